/* src/cli/load.c: the rules of --load and --load-compare (no device). */
#include "cli/load.h"

#include <errno.h>

#include "tap.h"

static void test_names(void)
{
	is_int(load_bench_parse("write_bw"), LOAD_WRITE_BW, "write_bw");
	is_int(load_bench_parse("rb_send_bw"), LOAD_SEND_BW, "rb_send_bw, the program's name");
	is_int(load_bench_parse("read_bw"), LOAD_READ_BW, "read_bw");
	is_int(load_bench_parse("atomic_bw"), -1, "atomic_bw is not a load");
	is_int(load_bench_parse("write_lat"), -1, "a latency test is not a load");
	is_int(load_bench_parse(""), -1, "empty");
	is_str(load_bench_name(LOAD_WRITE_BW), "write_bw", "the name back");
	is_str(load_bench_name(LOAD_NONE), "none", "no load");
}

static int check(const char *bench, bool latency, uint64_t size, uint64_t qps, char *why)
{
	struct load_ask a = { .bench_text = bench, .size = size, .qps = qps,
			      .size_given = true, .qps_given = true };

	why[0] = 0;
	return load_check(&a, latency, 8u << 20, 256, why, 256);
}

static void test_check(void)
{
	struct load_ask none = { .size = LOAD_DEFAULT_SIZE, .qps = LOAD_DEFAULT_QPS };
	char why[256] = "";

	is_int(load_check(&none, true, 8u << 20, 256, why, sizeof(why)), 0, "no load: nothing to check");
	none.compare = true;
	is_int(load_check(&none, true, 8u << 20, 256, why, sizeof(why)), -EINVAL, "--load-compare alone");
	ok(strstr(why, "--load-compare needs --load") != NULL, "named: %s", why);
	is_int(check("write_bw", true, 65536, 1, why), 0, "a 64 KiB write_bw load on a latency test");
	is_int(check("nope", true, 65536, 1, why), -EINVAL, "unknown load");
	ok(strstr(why, "--load") && strstr(why, "write_bw"), "named with the choices: %s", why);
	is_int(check("write_bw", false, 65536, 1, why), -EINVAL, "a load on a bandwidth test");
	ok(strstr(why, "latency benchmark only") != NULL, "said: %s", why);
	is_int(check("send_bw", true, 0, 1, why), -EINVAL, "size 0");
	ok(strstr(why, "--load-size") != NULL, "named: %s", why);
	is_int(check("send_bw", true, (8u << 20) + 1, 1, why), -EINVAL, "size past the sweep's end");
	is_int(check("read_bw", true, 8u << 20, 256, why), 0, "the largest size and QP count");
	is_int(check("read_bw", true, 4096, 257, why), -EINVAL, "257 QPs");
	ok(strstr(why, "--load-qps") != NULL, "named: %s", why);
}

static void test_compare(void)
{
	unsigned loaded = 0;

	ok(!load_compare_loaded(0) && load_compare_loaded(1) && !load_compare_loaded(2),
	   "idle, loaded, idle, ...");
	for (unsigned i = 0; i < LOAD_COMPARE_REPS; i++)
		loaded += load_compare_loaded(i);
	is_int(loaded * 2, LOAD_COMPARE_REPS, "as many loaded as idle repetitions");
	is_near(load_ratio(30, 10), 3.0, 1e-12, "ratio loaded / idle");
	ok(isnan(load_ratio(30, 0)), "idle 0: no ratio");
	ok(isnan(load_ratio(NAN, 10)), "loaded not measured: no ratio");
	ok(isnan(load_ratio(10, INFINITY)), "infinite: no ratio");
}

static void test_window(void)
{
	const struct load_ivl iv[] = {
		{ 0, 100, 1000 }, { 100, 200, 2000 }, { 200, 300, 3000 }, { 300, 300, 77 },
	};

	is_near(load_window_bytes(iv, 4, 0, 300), 6000, 1e-12, "whole intervals");
	is_near(load_window_bytes(iv, 4, 50, 250), 500 + 2000 + 1500, 1e-12, "shares at both ends");
	is_near(load_window_bytes(iv, 4, 400, 500), 0, 1e-12, "after the load");
	is_near(load_window_bytes(iv, 0, 0, 300), 0, 1e-12, "no interval");
	is_near(load_run_bytes(iv, 4), 6077, 1e-12, "the whole run: every interval, an empty one's bytes too");
	is_near(load_run_bytes(iv, 0), 0, 1e-12, "the whole run: no interval");
	ok(load_window_bytes(iv, 4, 0, 1000) <= load_run_bytes(iv, 4), "a window holds at most the run's bytes");
}

int main(void)
{
	test_names();
	test_check();
	test_compare();
	test_window();
	return tap_done();
}
