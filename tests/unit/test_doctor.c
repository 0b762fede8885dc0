/*
 * rb_doctor's comparison of two hosts (src/prog/doctor/peer.c) on hand-made
 * facts, since rxe offers no RoCE v1 GID to set up a v1/v2 mismatch for
 * real: the facts survive their key=value encoding, and each difference
 * becomes the check it should (v1 against v2, InfiniBand against Ethernet:
 * failures; MTUs, subnets, versions: warnings), the report counts them and
 * its JSON says the worst.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "prog/doctor/doctor.h"
#include "tap.h"

static struct dr_facts healthy(void)
{
	struct dr_facts f = { .dev = "rxe0", .port = 1, .gid_index = 1, .gid_type = "RoCE v2",
			      .gid_ip = "192.0.2.1", .gid_prefix = "192.0.2.0/24",
			      .link_layer = "Ethernet", .active_mtu = 1024, .netdev_mtu = 1500,
			      .netdev = "eth0", .port_active = true, .version = "1.0" };
	return f;
}

static const struct dr_check *find(const struct dr_report *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->c[i].name, name) == 0)
			return &r->c[i];
	return NULL;
}

static int level_of(const struct dr_report *r, const char *name)
{
	const struct dr_check *c = find(r, name);

	return c ? (int)c->level : -1;
}

static void test_encoding(void)
{
	struct dr_facts a = healthy(), b;
	char buf[2048];
	int n = dr_facts_encode(&a, buf, sizeof(buf));

	ok(n > 0 && dr_facts_decode(buf, &b) == 0, "encode, decode");
	ok(memcmp(&a, &b, sizeof(a)) == 0, "the facts survive the encoding");
	is_int(dr_facts_encode(&a, buf, 40), -EMSGSIZE, "a short buffer: -EMSGSIZE");
	is_int(dr_facts_decode("version=1\n", &b), -EPROTO, "no doctor=1: -EPROTO");
	ok(dr_facts_decode("doctor=1\nfuture=x\nactive_mtu=4096\n", &b) == 0 && b.active_mtu == 4096 &&
	   b.gid_index == -1, "unknown keys ignored, missing ones defaulted");
}

static void test_same(void)
{
	struct dr_facts a = healthy(), b = healthy();
	static struct dr_report r;

	r.n = 0;
	dr_compare(&a, &b, &r);
	is_int(r.n, 6, "six comparisons");
	is_int(dr_worst(&r), DR_OK, "two identical hosts: all ok");
}

static void test_mismatch(void)
{
	struct dr_facts a = healthy(), b = healthy();
	static struct dr_report r;

	snprintf(b.gid_type, sizeof(b.gid_type), "RoCE v1");
	b.netdev_mtu = 9000;
	b.active_mtu = 4096;
	snprintf(b.gid_prefix, sizeof(b.gid_prefix), "198.51.100.0/24");
	r.n = 0;
	dr_compare(&a, &b, &r);
	is_int(level_of(&r, "peer GID type"), DR_FAIL, "RoCE v2 here, v1 there: a failure");
	ok(strstr(find(&r, "peer GID type")->advice, "same RoCE version") != NULL, "saying what to do");
	is_int(level_of(&r, "peer MTU"), DR_WARN, "MTUs differ: a warning");
	ok(strstr(find(&r, "peer MTU")->observed, "the benchmarks use 1024 B") != NULL,
	   "naming the path MTU that will run");
	is_int(level_of(&r, "peer subnet"), DR_WARN, "different subnets: a warning");
	is_int(level_of(&r, "peer link"), DR_OK, "same link layer: ok");
	snprintf(b.link_layer, sizeof(b.link_layer), "InfiniBand");
	b.port_active = false;
	r.n = 0;
	dr_compare(&a, &b, &r);
	is_int(level_of(&r, "peer link"), DR_FAIL, "Ethernet against InfiniBand: a failure");
	is_int(level_of(&r, "peer port"), DR_FAIL, "the peer's port down: a failure");
}

static void test_print(void)
{
	static struct dr_report r;
	char out[4096] = "";
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");

	dr_add(&r, "one", DR_OK, "unused", "fine");
	dr_add(&r, "two", DR_FAIL, "do \"this\"", "broken");
	is_str(r.c[0].advice, "", "an ok check carries no advice");
	dr_print(f, &r, true, "t");
	fclose(f);
	ok(strstr(out, "\"summary\":{\"ok\":1,\"warn\":0,\"fail\":1}") != NULL, "JSON summary counts");
	ok(strstr(out, "\"status\":\"fail\"}") != NULL, "JSON status: the worst");
	ok(strstr(out, "do \\\"this\\\"") != NULL, "strings escaped");
	for (int i = 0; i < DR_MAX_CHECKS + 5; i++)
		dr_add(&r, "x", DR_OK, NULL, "x");
	is_int(r.n, DR_MAX_CHECKS, "a full report takes no more");
}

int main(void)
{
	test_encoding();
	test_same();
	test_mismatch();
	test_print();
	return tap_done();
}
