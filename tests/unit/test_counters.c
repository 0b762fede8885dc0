/*
 * -W/--report-counters: the LIST parser (good and bad entries, the keys
 * and labels of the columns) and reading the counters from the canned
 * sysfs trees of tests/unit/data/sysfs/ (through $top_srcdir, else ".").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/counters.h"
#include "tap.h"

static char root[4096];

static const char *tree(const char *name)
{
	const char *top = getenv("top_srcdir");

	snprintf(root, sizeof(root), "%s/tests/unit/data/sysfs/%s", top && *top ? top : ".", name);
	return root;
}

static int parse(const char *list, struct rb_counter_list *l, char *bad)
{
	return counters_parse(list, l, bad, 80);
}

static void test_good(void)
{
	struct rb_counter_list l;
	char bad[80] = "";

	is_int(parse("hw_counters/sent_pkts,rcvd_pkts,counters/port_xmit_data", &l, bad), 0, "three forms");
	is_int(l.n, 3, "three counters");
	is_int(l.c[0].dir, CTR_HW_COUNTERS, "hw_counters/ is that directory");
	is_int(l.c[1].dir, CTR_EITHER, "a bare NAME may be in either");
	is_int(l.c[2].dir, CTR_COUNTERS, "counters/ is that directory");
	is_str(l.c[0].name, "sent_pkts", "the name without the directory");
	is_str(l.c[0].key, "ctr_sent_pkts", "CSV/JSON key ctr_NAME");
	is_str(l.c[0].label, "sent_pkts", "human label NAME");
	is_int(parse("counters/X,hw_counters/X", &l, bad), 0, "the same name in both directories");
	is_str(l.c[0].key, "ctr_X", "the counters/ one is ctr_X");
	is_str(l.c[1].key, "ctr_hw_X", "the hw_counters/ one is ctr_hw_X");
	is_str(l.c[1].label, "hw_counters/X", "and labelled with its directory");
	is_int(parse("hw_counters/X,counters/X", &l, bad), 0, "either order");
	is_str(l.c[0].key, "ctr_hw_X", "the hw_counters/ one is ctr_hw_X, first or not");
	is_int(parse("a,b,c,d,e,f,g,h", &l, bad), 0, "eight counters");
	is_int(parse("A_9", &l, bad), 0, "letters, digits, _");
	is_int(parse("x123456789012345678901234567890123456789012345678901234567890ab", &l, bad), 0,
	       "a 63-character name");
}

static void test_bad(void)
{
	static const struct { const char *list, *bad; int err; const char *what; } cases[] = {
		{ "", "", -EINVAL, "an empty list" },
		{ "a,", "", -EINVAL, "an empty entry at the end" },
		{ ",a", "", -EINVAL, "an empty entry first" },
		{ "a/b", "a/b", -EINVAL, "an unknown directory" },
		{ "counters/", "counters/", -EINVAL, "a directory without a name" },
		{ "hw_counters/a/b", "hw_counters/a/b", -EINVAL, "a path" },
		{ "../x", "../x", -EINVAL, "a way out of the port" },
		{ "sent.pkts", "sent.pkts", -EINVAL, "a dot" },
		{ "ok,sent-pkts", "sent-pkts", -EINVAL, "a dash, named alone" },
		{ "a b", "a b", -EINVAL, "a space" },
		{ "x1234567890123456789012345678901234567890123456789012345678901ab",
		  "x1234567890123456789012345678901234567890123456789012345678901ab", -EINVAL,
		  "a 64-character name" },
		{ "a,b,c,d,e,f,g,h,i", "i", -E2BIG, "a ninth counter" },
		{ "a,b,a", "a", -EEXIST, "a name twice" },
		{ "hw_counters/a,hw_counters/a", "hw_counters/a", -EEXIST, "an entry twice" },
		{ "a,counters/a", "counters/a", -EEXIST, "a bare name and the same name in a directory" },
		{ "counters/X,hw_counters/X,hw_X", "hw_X", -EEXIST, "two entries keyed ctr_hw_X" },
	};
	struct rb_counter_list l;
	char bad[80];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strcpy(bad, "?");
		is_int(parse(cases[i].list, &l, bad), cases[i].err, cases[i].what);
		is_str(bad, cases[i].bad, "  ... the bad entry is named");
	}
}

static void test_fingerprint(void)
{
	struct rb_counter_list a, b;
	char bad[80];

	parse("sent_pkts,rcvd_pkts", &a, bad);
	parse("sent_pkts,rcvd_pkts", &b, bad);
	ok(counters_fingerprint(&a) == counters_fingerprint(&b), "the same list, the same fingerprint");
	parse("rcvd_pkts,sent_pkts", &b, bad);
	ok(counters_fingerprint(&a) != counters_fingerprint(&b), "another order, another fingerprint");
	b.n = 0;
	ok(counters_fingerprint(&a) != counters_fingerprint(&b), "no list differs from a list");
}

static void test_read(void)
{
	struct rb_counter_list l;
	uint64_t v[RB_MAX_COUNTERS], after[RB_MAX_COUNTERS] = { 10, 5 }, d[RB_MAX_COUNTERS];
	char bad[80];

	parse("port_xmit_data,duplicate_request,counters/port_rcv_data", &l, bad);
	is_int(counters_read(tree("pci-ib"), "mlx5_0", 1, &l, v), 0, "read from counters/ and hw_counters/");
	is_int(v[0], 123456789, "counters/port_xmit_data");
	is_int(v[1], 7, "hw_counters/duplicate_request found by its bare name");
	is_int(v[2], 987654321, "counters/port_rcv_data");
	parse("hw_counters/sent_pkts,rcvd_pkts", &l, bad);
	is_int(counters_read(tree("rxe-virtio"), "rxe0", 1, &l, v), 0, "rxe hw_counters");
	is_int(v[0], 4200, "sent_pkts");
	parse("hw_counters/port_xmit_data", &l, bad);
	is_int(counters_read(tree("pci-ib"), "mlx5_0", 1, &l, v), -EINVAL,
	       "a directory given is the only one looked in (missing: -EINVAL, exit 2)");
	parse("sent_pkts,nosuch", &l, bad);
	is_int(counters_read(tree("rxe-virtio"), "rxe0", 1, &l, v), -EINVAL, "a missing counter");
	is_int(counters_read(tree("rxe-virtio"), "rxe0", 2, &l, v), -EINVAL, "a missing port");
	parse("a,b", &l, bad);
	v[0] = 4;
	v[1] = 9;
	counters_delta(&l, v, after, d);
	is_int(d[0], 6, "the change of a counter");
	is_int(d[1], 0, "a counter that went back reads 0 (and is said)");
}

int main(void)
{
	test_good();
	test_bad();
	test_fingerprint();
	test_read();
	return tap_done();
}
