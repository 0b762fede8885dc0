/* gid_choose and the GID helpers on hand-made tables. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "lib/gid.h"
#include "tap.h"

static struct gid_entry entry(int index, const char *ip6, enum gid_type type,
			      const char *netdev)
{
	struct gid_entry e = { .index = index, .type = type };

	inet_pton(AF_INET6, ip6, e.raw);
	snprintf(e.netdev, sizeof(e.netdev), "%s", netdev);
	e.empty = strcmp(ip6, "::") == 0;
	return e;
}

static void test_rxe_table(void)
{
	struct gid_entry t[3] = {
		entry(0, "fe80::5054:ff:fe12:3456", GID_TYPE_ROCE_V2, "rxedummy0"),
		entry(1, "::ffff:192.0.2.1", GID_TYPE_ROCE_V2, "rxedummy0"),
		entry(2, "::", GID_TYPE_UNKNOWN, ""),
	};
	char why[160];

	is_int(gid_choose(t, 3, false, why, sizeof(why)), 1, "rxe: IPv4-mapped RoCE v2 over link-local");
	is_str(why, "RoCE v2, IPv4-mapped 192.0.2.1 on rxedummy0", "rxe: the reason");
}

static void test_v2_global_before_v1(void)
{
	struct gid_entry t[4] = {
		entry(0, "fe80::1", GID_TYPE_ROCE_V1, "eth0"),
		entry(1, "::ffff:10.0.0.1", GID_TYPE_ROCE_V1, "eth0"),
		entry(2, "fe80::1", GID_TYPE_ROCE_V2, "eth0"),
		entry(3, "2001:db8::1", GID_TYPE_ROCE_V2, "eth0"),
	};
	char why[160];

	is_int(gid_choose(t, 4, false, why, sizeof(why)), 3, "RoCE v2 IPv6 global before any v1");
	is_str(why, "RoCE v2, IPv6 2001:db8::1 on eth0", "v2 global: the reason");
}

static void test_v1_only(void)
{
	struct gid_entry t[3] = {
		entry(0, "fe80::1", GID_TYPE_ROCE_V1, "eth0"),
		entry(1, "::", GID_TYPE_UNKNOWN, ""),
		entry(2, "::ffff:10.0.0.2", GID_TYPE_ROCE_V1, "eth0"),
	};
	char why[160];

	is_int(gid_choose(t, 3, false, why, sizeof(why)), 2, "v1 only: IPv4-mapped first");
	is_str(why, "RoCE v1, IPv4-mapped 10.0.0.2 on eth0", "v1 only: the reason");
	t[2].empty = true;
	is_int(gid_choose(t, 3, false, why, sizeof(why)), 0, "v1 only, link-local left: it");
}

static void test_link_local_only(void)
{
	struct gid_entry t[1] = {
		entry(0, "fe80::1", GID_TYPE_ROCE_V2, "eth0"),
	};
	char why[160];

	is_int(gid_choose(t, 1, false, why, sizeof(why)), 0, "only a v2 link-local GID: chosen");
	ok(strstr(why, "no routable GID") != NULL, "link-local only: says so (%s)", why);
}

static void test_ib(void)
{
	struct gid_entry t[2] = {
		entry(0, "fe80::c42:a103:65:5b2e", GID_TYPE_IB, ""),
		entry(1, "::ffff:10.0.0.1", GID_TYPE_IB, ""),
	};
	char why[160];

	is_int(gid_choose(t, 2, true, why, sizeof(why)), 0, "IB link: index 0");
	ok(strstr(why, "InfiniBand") != NULL, "IB: the reason names the link layer (%s)", why);
}

static void test_empty(void)
{
	struct gid_entry t[2] = {
		entry(0, "::", GID_TYPE_UNKNOWN, ""),
		entry(1, "::", GID_TYPE_UNKNOWN, ""),
	};
	char why[160];

	is_int(gid_choose(t, 2, false, why, sizeof(why)), -ENOENT, "all empty (RoCE): -ENOENT");
	is_int(gid_choose(t, 2, true, why, sizeof(why)), -ENOENT, "all empty (IB): -ENOENT");
	is_int(gid_choose(t, 0, false, why, sizeof(why)), -ENOENT, "no entries: -ENOENT");
	ok(why[0] != '\0', "-ENOENT still gives a reason");
}

static void test_index_field(void)
{
	struct gid_entry t[2] = {
		entry(7, "fe80::1", GID_TYPE_ROCE_V2, ""),
		entry(9, "::ffff:192.0.2.9", GID_TYPE_ROCE_V2, ""),
	};
	char why[160];

	is_int(gid_choose(t, 2, false, why, sizeof(why)), 9, "returns the entry's index, not its position");
	is_str(why, "RoCE v2, IPv4-mapped 192.0.2.9", "no netdev: no \" on\"");
}

static void test_names(void)
{
	is_str(gid_type_name(GID_TYPE_IB), "IB", "name IB");
	is_str(gid_type_name(GID_TYPE_ROCE_V1), "RoCE v1", "name RoCE v1");
	is_str(gid_type_name(GID_TYPE_ROCE_V2), "RoCE v2", "name RoCE v2");
	is_str(gid_type_name(GID_TYPE_UNKNOWN), "unknown", "name unknown");
	is_int(gid_type_parse("IB/RoCE v1", false), GID_TYPE_ROCE_V1, "parse IB/RoCE v1 on Ethernet");
	is_int(gid_type_parse("IB/RoCE v1", true), GID_TYPE_IB, "parse IB/RoCE v1 on IB");
	is_int(gid_type_parse("RoCE v2", false), GID_TYPE_ROCE_V2, "parse RoCE v2");
	is_int(gid_type_parse("bogus", false), GID_TYPE_UNKNOWN, "parse garbage");
	is_int(gid_type_parse(NULL, false), GID_TYPE_UNKNOWN, "parse NULL");
}

static void test_format(void)
{
	struct gid_entry m = entry(0, "::ffff:192.0.2.1", GID_TYPE_ROCE_V2, "");
	struct gid_entry l = entry(0, "fe80::5054:ff:fe12:3456", GID_TYPE_ROCE_V2, "");
	struct gid_entry g = entry(0, "2001:db8::1", GID_TYPE_ROCE_V2, "");
	char buf[64];

	ok(gid_is_ipv4_mapped(m.raw) && !gid_is_ipv4_mapped(l.raw), "ipv4-mapped detection");
	ok(gid_is_link_local(l.raw) && !gid_is_link_local(m.raw) && !gid_is_link_local(g.raw),
	   "link-local detection");
	inet_pton(AF_INET6, "febf::1", l.raw);
	ok(gid_is_link_local(l.raw), "febf:: is link-local (fe80::/10)");
	inet_pton(AF_INET6, "fec0::1", l.raw);
	ok(!gid_is_link_local(l.raw), "fec0:: is not link-local");
	gid_format(m.raw, buf, sizeof(buf));
	is_str(buf, "::ffff:192.0.2.1", "format mapped");
	gid_format(g.raw, buf, sizeof(buf));
	is_str(buf, "2001:db8::1", "format IPv6");
	gid_ip(m.raw, buf, sizeof(buf));
	is_str(buf, "192.0.2.1", "ip of a mapped GID");
	gid_ip(g.raw, buf, sizeof(buf));
	is_str(buf, "2001:db8::1", "ip of an IPv6 GID");
	gid_format(g.raw, buf, 4);
	is_str(buf, "", "format into a too small buffer: empty, no overflow");
}

/* -M/--MGID's forms, the defaults, HELLO's halves. */
static void test_mgid(void)
{
	uint8_t g[16], want[16];
	char buf[64];

	ok(gid_parse_mgid("255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0", g) == 0, "perftest's 16 bytes parse");
	inet_pton(AF_INET6, "ff01:0:2:c985::", want);
	ok(!memcmp(g, want, 16), "perftest's bytes are its default ff01:0:2:c985::");
	ok(gid_parse_mgid("0xff:0x0e:0:0:0:0:0:0:0:0:0:0:0:0:0:7", g) == 0 && g[1] == 0x0e && g[15] == 7,
	   "bytes in 0x hex parse");
	ok(gid_parse_mgid("ff0e::1", g) == 0 && g[0] == 0xff && g[15] == 1, "an IPv6 group parses");
	ok(gid_parse_mgid("239.1.2.3", g) == 0 && gid_is_ipv4_mapped(g) && g[12] == 239 && g[15] == 3,
	   "an IPv4 group is taken IPv4-mapped");
	ok(gid_parse_mgid("::ffff:224.0.0.251", g) == 0, "an IPv4-mapped group parses");
	is_int(gid_parse_mgid("192.0.2.1", g), -EDOM, "a unicast IPv4 address: not multicast");
	is_int(gid_parse_mgid("2001:db8::1", g), -EDOM, "a unicast IPv6 address: not multicast");
	is_int(gid_parse_mgid("255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:256", g), -EINVAL, "a byte over 255");
	is_int(gid_parse_mgid("255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:", g), -EINVAL, "a missing last byte");
	is_int(gid_parse_mgid("ff0e::zz", g), -EINVAL, "not an address");
	is_int(gid_parse_mgid("", g), -EINVAL, "empty");
	gid_default_mgid(true, g);
	gid_format(g, buf, sizeof(buf));
	is_str(buf, "::ffff:239.2.201.133", "IPv4 default group");
	ok(gid_is_multicast(g), "the IPv4 default is multicast");
	gid_mgid_next(g);
	gid_format(g, buf, sizeof(buf));
	is_str(buf, "::ffff:239.2.201.134", "the ping-pong's second group: last byte + 1");
	gid_default_mgid(false, g);
	gid_format(g, buf, sizeof(buf));
	is_str(buf, "ff05:0:2:c985::", "IPv6 default group (site scope)");
	ok(gid_half(g, 0) == 0xff0500000002c985ull && gid_half(g, 1) == 0, "halves of the MGID");
	ok(!gid_is_multicast((const uint8_t[16]){ 0 }), "the zero GID is no group");
}

int main(void)
{
	test_mgid();
	test_rxe_table();
	test_v2_global_before_v1();
	test_v1_only();
	test_link_local_only();
	test_ib();
	test_empty();
	test_index_field();
	test_names();
	test_format();
	return tap_done();
}
