/*
 * rb_mpi --check's verdicts (src/prog/mpi/mpi_verdict.c) on links built by
 * hand: a pass; each configuration fault alone (an end unopened, MTU, link
 * layer or GID type unlike, an end off the --mtu or --gid-type threshold);
 * a benchmark not run or failed; the figures against --max-p99 and
 * --min-bw (at, past, NaN, thresholds of 0 or NaN that are none, none
 * applied to a run that failed); several faults at once, in their order;
 * small why buffers that must not overflow; --gid-type's spellings; and a
 * rail's odd ends against its majority.
 * Every expected text is written out here, never built by the module.
 */
#include "prog/mpi/mpi_verdict.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PLAN 95

/* A good rail: rxe0 (src) and rxe1 (dst), MTU 1024, RoCE v2, both ran. */
static struct check_end good_src(void)
{
	return (struct check_end){ .dev = "rxe0", .ok = true, .active_mtu = 1024,
				   .gid_type = GID_TYPE_ROCE_V2, .ib_link = false };
}

static struct check_end good_dst(void)
{
	return (struct check_end){ .dev = "rxe1", .ok = true, .active_mtu = 1024,
				   .gid_type = GID_TYPE_ROCE_V2, .ib_link = false };
}

static struct check_link good_link(void)
{
	return (struct check_link){ .lat = { .ran = true, .ok = true }, .bw = { .ran = true, .ok = true },
				    .p50_us = 3.5, .p99_us = 600.0, .bw_mibps = 900.0 };
}

static const struct check_thr no_thr;

/* One verdict into a roomy buffer (pre-filled, so "" must be written). */
static bool verdict(const struct check_thr *t, const struct check_end *s, const struct check_end *d,
		    const struct check_link *l, char *why, size_t n)
{
	memset(why, 'x', n);
	return check_verdict(t, s, d, l, why, n);
}

static void test_pass(void)
{
	struct check_end s = good_src(), d = good_dst();
	struct check_link l = good_link();
	char why[256];
	bool v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));

	ok(v, "both ends ok, MTU 1024 and RoCE v2 alike, both runs ok, no thresholds: pass");
	is_str(why, "", "... and why is empty");
}

/* The ends' configuration, one fault at a time. */
static void test_config(void)
{
	struct check_end s, d;
	struct check_link l = good_link();
	struct check_thr t;
	char why[256];
	bool v;

	s = good_src(), d = good_dst();
	s.ok = false;
	strcpy(s.why, "port 1 DOWN");
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "src not opened: fails");
	is_str(why, "src rxe0: port 1 DOWN", "... why: \"src rxe0: \" and its reason");

	s = good_src(), d = good_dst();
	d.ok = false;
	strcpy(d.why, "no such device");
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "dst not opened: fails");
	is_str(why, "dst rxe1: no such device", "... why: \"dst rxe1: \" and its reason");

	s = good_src(), d = good_dst();
	strcpy(s.dev, "rxe1");
	d.active_mtu = 4096;
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "active MTU 1024 vs 4096: fails");
	is_str(why, "active MTU 1024 (src rxe1) vs 4096 (dst rxe1)", "... why names both MTUs and both ends");

	s = good_src(), d = good_dst();
	s.active_mtu = 4096;
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "active MTU 4096 (src rxe0) vs 1024 (dst rxe1)"),
	   "active MTU 4096 (src rxe0) vs 1024 (dst rxe1): fails, src's figure first (why \"%s\")", why);

	s = good_src(), d = good_dst();
	s.ib_link = true;
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "link layers apart (src InfiniBand, dst Ethernet): fails");
	is_str(why, "link layer InfiniBand (src) vs Ethernet (dst)", "... why names both link layers");

	s = good_src(), d = good_dst();
	s.gid_type = GID_TYPE_ROCE_V1;
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "GID types RoCE v1 (src) vs RoCE v2 (dst): fails");
	is_str(why, "GID type RoCE v1 (src rxe0) vs RoCE v2 (dst rxe1)", "... why names both GID types and ends");

	s = good_src(), d = good_dst();
	t = no_thr;
	t.mtu = 4096;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "--mtu 4096, both ends at 1024: fails");
	is_str(why, "src rxe0: active MTU 1024, not 4096; dst rxe1: active MTU 1024, not 4096",
	       "... why names each end off the threshold");
	t.mtu = 1024;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v && !strcmp(why, ""), "--mtu 1024, both ends at 1024: pass (why \"%s\")", why);

	s = good_src(), d = good_dst();
	t = no_thr;
	t.gid_type = GID_TYPE_ROCE_V1 + 1;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "--gid-type RoCE v1, both ends RoCE v2: fails");
	is_str(why, "src rxe0: GID type RoCE v2, not RoCE v1; dst rxe1: GID type RoCE v2, not RoCE v1",
	       "... why names each end off the threshold");
	t.gid_type = GID_TYPE_ROCE_V2 + 1;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v && !strcmp(why, ""), "--gid-type RoCE v2, both ends RoCE v2: pass (why \"%s\")", why);
}

/* The benchmarks' outcomes. */
static void test_runs(void)
{
	struct check_end s = good_src(), d = good_dst();
	struct check_link l;
	char why[256];
	bool v;

	l = good_link();
	l.lat = (struct check_run){ .ran = false, .ok = false };
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "latency never ran: fails");
	is_str(why, "latency: not measured", "... why \"latency: not measured\"");

	l = good_link();
	l.bw = (struct check_run){ .ran = false, .ok = false };
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "bandwidth: not measured"), "bandwidth never ran: fails, why \"bandwidth: not measured\" (got \"%s\")", why);

	l = good_link();
	l.bw = (struct check_run){ .ran = true, .ok = false, .cause = "CQ error 12 (transport retry counter exceeded)" };
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "bandwidth ran and failed: fails");
	is_str(why, "bandwidth failed: CQ error 12 (transport retry counter exceeded)", "... why \"bandwidth failed: \" and its cause");

	l = good_link();
	l.lat = (struct check_run){ .ran = true, .ok = false, .cause = "timeout" };
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "latency failed: timeout"), "latency ran and failed: fails, why \"latency failed: timeout\" (got \"%s\")", why);

	l = good_link();
	l.bw = (struct check_run){ .ran = true, .ok = false, .cause = NULL };
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v, "bandwidth failed with no cause (NULL): fails");
	is_str(why, "bandwidth failed: no cause given", "... why \"bandwidth failed: no cause given\"");

	l = good_link();
	l.lat = (struct check_run){ .ran = true, .ok = false, .cause = NULL };
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "latency failed: no cause given"), "latency failed with no cause (NULL): why \"latency failed: no cause given\" (got \"%s\")", why);

	l = good_link();
	l.lat = (struct check_run){ .ran = true, .ok = false, .cause = "" };
	v = verdict(&no_thr, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "latency failed: no cause given"), "latency failed with an empty cause: why \"latency failed: no cause given\" (got \"%s\")", why);
}

/* The figures against --max-p99 and --min-bw. */
static void test_thresholds(void)
{
	struct check_end s = good_src(), d = good_dst();
	struct check_link l;
	struct check_thr t;
	char why[256];
	bool v;

	l = good_link();
	l.p99_us = 600.0;
	t = (struct check_thr){ .max_p99_us = 500.0 };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "p99 600 us, --max-p99 500: fails");
	is_str(why, "p99 latency 600.00 us > 500.00", "... why \"p99 latency 600.00 us > 500.00\"");

	l.p99_us = 500.0;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v && !strcmp(why, ""), "p99 500 us, --max-p99 500 (equal): pass (why \"%s\")", why);

	l.p99_us = 499.5;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v, "p99 499.5 us, --max-p99 500 (below): pass (why \"%s\")", why);

	l = good_link();
	l.bw_mibps = 900.0;
	t = (struct check_thr){ .min_bw_mibps = 1000.0 };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "bandwidth 900 MiB/s, --min-bw 1000: fails");
	is_str(why, "bandwidth 900.0 MiB/s < 1000.0", "... why \"bandwidth 900.0 MiB/s < 1000.0\"");

	l.bw_mibps = 1000.0;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v && !strcmp(why, ""), "bandwidth 1000 MiB/s, --min-bw 1000 (equal): pass (why \"%s\")", why);

	l.bw_mibps = 12000.0;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v, "bandwidth 12000 MiB/s, --min-bw 1000 (above): pass (why \"%s\")", why);

	/* A NaN figure never meets a threshold that is set. */
	l = good_link();
	l.p99_us = NAN;
	t = (struct check_thr){ .max_p99_us = 500.0 };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v && !strncmp(why, "p99 latency ", 12) && strstr(why, " us > 500.00"),
	   "p99 NaN, --max-p99 500: fails, why the p99 reason (got \"%s\")", why);

	l = good_link();
	l.bw_mibps = NAN;
	t = (struct check_thr){ .min_bw_mibps = 1000.0 };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v && !strncmp(why, "bandwidth ", 10) && strstr(why, " MiB/s < 1000.0"),
	   "bandwidth NaN, --min-bw 1000: fails, why the bandwidth reason (got \"%s\")", why);

	/* Thresholds of 0 or NaN are none: figures far off still pass. */
	l = good_link();
	l.p99_us = 100000.0;
	l.bw_mibps = 1.0;
	t = (struct check_thr){ .max_p99_us = 0, .min_bw_mibps = 0 };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v && !strcmp(why, ""), "--max-p99 0 and --min-bw 0 are none: p99 100000 us, 1 MiB/s pass (why \"%s\")", why);
	t = (struct check_thr){ .max_p99_us = NAN, .min_bw_mibps = NAN };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v && !strcmp(why, ""), "--max-p99 NaN and --min-bw NaN are none: pass (why \"%s\")", why);
	l.p99_us = NAN;
	l.bw_mibps = NAN;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(v && !strcmp(why, ""), "NaN figures with NaN thresholds (none): pass (why \"%s\")", why);

	/* No threshold on a run that failed or never ran: its failure alone. */
	t = (struct check_thr){ .max_p99_us = 500.0, .min_bw_mibps = 1000.0 };
	l = good_link();
	l.p99_us = 600.0;
	l.bw_mibps = 2000.0;
	l.lat = (struct check_run){ .ran = true, .ok = false, .cause = "timeout" };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "latency failed, p99 600 over --max-p99 500: fails");
	is_str(why, "latency failed: timeout", "... why the failure alone, not the p99 threshold");

	l = good_link();
	l.p99_us = 100.0;
	l.bw_mibps = 900.0;
	l.bw = (struct check_run){ .ran = true, .ok = false, .cause = "QP to ERR" };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "bandwidth failed, 900 under --min-bw 1000: fails");
	is_str(why, "bandwidth failed: QP to ERR", "... why the failure alone, not the bandwidth threshold");

	l = good_link();
	l.p99_us = 600.0;
	l.bw_mibps = 900.0;
	l.lat = (struct check_run){ .ran = false, .ok = false };
	l.bw = (struct check_run){ .ran = false, .ok = false };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "latency: not measured; bandwidth: not measured"),
	   "neither ran, figures past both thresholds: why only \"not measured\" twice (got \"%s\")", why);
}

/* Several faults: every reason, "; " between, config, latency, bandwidth, p99, bw. */
static void test_several(void)
{
	struct check_end s, d;
	struct check_link l;
	struct check_thr t = { .max_p99_us = 500.0, .min_bw_mibps = 1000.0 };
	char why[512];
	bool v;

	s = good_src(), d = good_dst();
	d.active_mtu = 4096;
	l = good_link();
	l.lat = (struct check_run){ .ran = false, .ok = false };
	l.bw = (struct check_run){ .ran = true, .ok = false, .cause = "QP to ERR" };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "MTU unlike, latency not run, bandwidth failed: fails");
	is_str(why, "active MTU 1024 (src rxe0) vs 4096 (dst rxe1); latency: not measured; bandwidth failed: QP to ERR",
	       "... why: config; latency; bandwidth");

	s = good_src(), d = good_dst();
	s.gid_type = GID_TYPE_ROCE_V1;
	l = good_link();
	l.p99_us = 600.0;
	l.bw_mibps = 900.0;
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "GID types unlike, p99 and bandwidth past their thresholds: fails");
	is_str(why, "GID type RoCE v1 (src rxe0) vs RoCE v2 (dst rxe1); p99 latency 600.00 us > 500.00; "
		    "bandwidth 900.0 MiB/s < 1000.0",
	       "... why: config; p99; bw");

	s = good_src(), d = good_dst();
	l = good_link();
	l.p99_us = 600.0;
	l.bw = (struct check_run){ .ran = false, .ok = false };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "bandwidth: not measured; p99 latency 600.00 us > 500.00"),
	   "bandwidth not run and p99 past: the bandwidth run before p99 (got \"%s\")", why);

	s = good_src(), d = good_dst();
	l = good_link();
	l.bw_mibps = 900.0;
	l.lat = (struct check_run){ .ran = true, .ok = false, .cause = "timeout" };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v && !strcmp(why, "latency failed: timeout; bandwidth 900.0 MiB/s < 1000.0"),
	   "latency failed and bandwidth under: latency, then bw (got \"%s\")", why);

	s = good_src(), d = good_dst();
	s.ok = false;
	strcpy(s.why, "port 1 DOWN");
	d.ok = false;
	strcpy(d.why, "no such device");
	l = good_link();
	l.lat = (struct check_run){ .ran = false, .ok = false };
	l.bw = (struct check_run){ .ran = false, .ok = false };
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v, "neither end opened, neither run: fails");
	is_str(why, "src rxe0: port 1 DOWN; dst rxe1: no such device; latency: not measured; bandwidth: not measured",
	       "... why: src, dst, latency, bandwidth");

	/* Every configuration fault that can stand together: each one named. */
	s = good_src(), d = good_dst();
	s.gid_type = GID_TYPE_ROCE_V1;
	d.active_mtu = 4096;
	t = (struct check_thr){ .mtu = 4096, .gid_type = GID_TYPE_ROCE_V2 + 1 };
	l = good_link();
	v = verdict(&t, &s, &d, &l, why, sizeof(why));
	ok(!v && strstr(why, "active MTU 1024 (src rxe0) vs 4096 (dst rxe1)") &&
	   strstr(why, "src rxe0: active MTU 1024, not 4096") && !strstr(why, "dst rxe1: active MTU") &&
	   strstr(why, "GID type RoCE v1 (src rxe0) vs RoCE v2 (dst rxe1)") &&
	   strstr(why, "src rxe0: GID type RoCE v1, not RoCE v2") && !strstr(why, "dst rxe1: GID type"),
	   "MTU and GID type unlike, src off --mtu 4096 and --gid-type RoCE v2: each named, dst not (got \"%s\")", why);
	{
		int seps = 0;

		for (const char *p = why; (p = strstr(p, "; ")); p += 2)
			seps++;
		is_int(seps, 3, "... four reasons, three \"; \" between them");
	}
}

/* Small why buffers: never written past n; n == 0: not written at all. */
static void test_small(void)
{
	struct check_end s = good_src(), d = good_dst();
	struct check_link l = good_link();
	struct check_thr t = { .max_p99_us = 500.0, .min_bw_mibps = 1000.0 };
	char buf[128];
	int spoiled;
	bool v;

	d.active_mtu = 4096;
	l.p99_us = 600.0;
	l.bw_mibps = 900.0;

	memset(buf, 'Z', sizeof(buf));
	v = check_verdict(&t, &s, &d, &l, buf, 16);
	spoiled = 0;
	for (size_t i = 16; i < sizeof(buf); i++)
		spoiled += buf[i] != 'Z';
	ok(!v, "a failing link, why of 16 bytes: fails");
	is_int(spoiled, 0, "... nothing written past the 16 bytes");
	is_str(buf, "active MTU 1024", "... why: the first reason cut to 15 characters");

	memset(buf, 'Z', sizeof(buf));
	s.ok = false;
	strcpy(s.why, "down");
	v = check_verdict(&t, &s, &d, &l, buf, 20);
	spoiled = 0;
	for (size_t i = 20; i < sizeof(buf); i++)
		spoiled += buf[i] != 'Z';
	ok(!v && !spoiled && !strcmp(buf, "src rxe0: down; p99"),
	   "why of 20 bytes: the second reason cut, nothing past 20 bytes (got \"%s\", %d spoiled)", buf, spoiled);
	s.ok = true;

	memset(buf, 'Z', sizeof(buf));
	v = check_verdict(&t, &s, &d, &l, buf, 1);
	spoiled = 0;
	for (size_t i = 1; i < sizeof(buf); i++)
		spoiled += buf[i] != 'Z';
	is_int(spoiled, 0, "a failing link, why of 1 byte: nothing written past it");
	ok(buf[0] == '\0', "... why is \"\" (the byte a NUL)");
	ok(!v, "... and the link still fails");

	memset(buf, 'Z', sizeof(buf));
	v = check_verdict(&t, &s, &d, &l, buf, 0);
	spoiled = 0;
	for (size_t i = 0; i < sizeof(buf); i++)
		spoiled += buf[i] != 'Z';
	ok(!v, "why of 0 bytes: false");
	is_int(spoiled, 0, "... and nothing written");
}

static void test_gid_parse(void)
{
	is_int(check_gid_type_parse("v2"), GID_TYPE_ROCE_V2 + 1, "gid-type \"v2\": RoCE v2");
	is_int(check_gid_type_parse("RoCE v2"), GID_TYPE_ROCE_V2 + 1, "gid-type \"RoCE v2\": RoCE v2");
	is_int(check_gid_type_parse("2"), GID_TYPE_ROCE_V2 + 1, "gid-type \"2\": RoCE v2");
	is_int(check_gid_type_parse("roce V2"), GID_TYPE_ROCE_V2 + 1, "gid-type \"roce V2\" (any case): RoCE v2");
	is_int(check_gid_type_parse("v1"), GID_TYPE_ROCE_V1 + 1, "gid-type \"v1\": RoCE v1");
	is_int(check_gid_type_parse("RoCE v1"), GID_TYPE_ROCE_V1 + 1, "gid-type \"RoCE v1\": RoCE v1");
	is_int(check_gid_type_parse("1"), GID_TYPE_ROCE_V1 + 1, "gid-type \"1\": RoCE v1");
	is_int(check_gid_type_parse("ROCE V1"), GID_TYPE_ROCE_V1 + 1, "gid-type \"ROCE V1\" (any case): RoCE v1");
	is_int(check_gid_type_parse("IB"), GID_TYPE_IB + 1, "gid-type \"IB\": IB");
	is_int(check_gid_type_parse("v3"), -1, "gid-type \"v3\": refused (-1)");
	is_int(check_gid_type_parse(""), -1, "gid-type \"\": refused (-1)");
	is_int(check_gid_type_parse(NULL), -1, "gid-type NULL: refused (-1)");
}

/* A rail of n ends like good_src, on hosts' rxe1. */
static void rail(struct check_end *e, int n)
{
	for (int i = 0; i < n; i++) {
		e[i] = good_src();
		strcpy(e[i].dev, "rxe1");
	}
}

static void test_odd(void)
{
	struct check_end e[5], m;
	bool odd[5];
	char why[128];
	int n;

	rail(e, 5);
	is_int(check_odd_ends(e, 5, odd, &m), 0, "5 ends alike: no odd end");
	ok(!odd[0] && !odd[4], "... none marked");

	rail(e, 5);
	e[3].active_mtu = 4096;
	n = check_odd_ends(e, 5, odd, &m);
	is_int(n, 1, "5 ends, one at MTU 4096: one odd end");
	ok(odd[3] && !odd[0] && !odd[1] && !odd[2] && !odd[4], "... end 3, and only it");
	is_int(m.active_mtu, 1024, "... the majority's MTU: 1024");
	check_odd_why(&e[3], &m, why, sizeof(why));
	is_str(why, "active MTU 4096 (the others 1024)", "... why: \"active MTU 4096 (the others 1024)\"");

	rail(e, 3);
	e[0].active_mtu = 1024, e[1].active_mtu = 4096, e[2].active_mtu = 4096;
	n = check_odd_ends(e, 3, odd, &m);
	is_int(n, 1, "3 ends, the first at 1024 and two at 4096: the first is odd (the majority decides, not the order)");
	ok(odd[0] && !odd[1] && !odd[2], "... end 0 marked");

	rail(e, 2);
	e[1].active_mtu = 4096;
	is_int(check_odd_ends(e, 2, odd, &m), 0, "2 ends that differ: no strict majority, no odd end");
	ok(!odd[0] && !odd[1], "... none marked");

	rail(e, 4);
	e[0].active_mtu = e[1].active_mtu = 4096;
	is_int(check_odd_ends(e, 4, odd, NULL), 0, "4 ends split 2:2: no odd end (common NULL taken)");

	rail(e, 5);
	e[1].ok = false;
	strcpy(e[1].why, "port 1 DOWN");
	e[4].gid_type = GID_TYPE_ROCE_V1;
	n = check_odd_ends(e, 5, odd, &m);
	is_int(n, 2, "5 ends, one unopened and one RoCE v1: two odd ends");
	ok(odd[1] && odd[4] && !odd[0], "... ends 1 and 4");
	check_odd_why(&e[1], &m, why, sizeof(why));
	is_str(why, "not opened: port 1 DOWN", "... the unopened end's why");
	check_odd_why(&e[4], &m, why, sizeof(why));
	is_str(why, "GID type RoCE v1 (the others RoCE v2)", "... the RoCE v1 end's why");

	rail(e, 3);
	e[2].ib_link = true;
	e[2].gid_type = GID_TYPE_IB;
	check_odd_ends(e, 3, odd, &m);
	check_odd_why(&e[2], &m, why, sizeof(why));
	is_str(why, "GID type IB (the others RoCE v2); link layer InfiniBand (the others Ethernet)",
	       "an InfiniBand end among RoCE ones: both differences named");

	is_int(check_odd_ends(e, 0, odd, &m), 0, "no ends: no odd end");
}

int main(void)
{
	printf("1..%d\n", PLAN);
	test_pass();
	test_config();
	test_runs();
	test_thresholds();
	test_several();
	test_small();
	test_gid_parse();
	test_odd();
	if (tap_n != PLAN)
		printf("# planned %d checks, ran %d\n", PLAN, tap_n);
	return tap_failed || tap_n != PLAN;
}
