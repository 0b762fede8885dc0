#include "lib/stats.h"
#include "tap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Every figure below was computed by hand from the nearest-rank definition
 * rank = ceil(p/100 * n) and the population standard deviation. */

static void test_one_sample(void)
{
	uint64_t v[] = { 7 };
	const double p[] = { 1, 50, 100 };
	struct stats_summary s;

	stats_summarize(v, 1, 1, p, 3, &s);
	is_int(s.count, 1, "n=1 count");
	is_near(s.min, 7, 0, "n=1 min");
	is_near(s.max, 7, 0, "n=1 max");
	is_near(s.mean, 7, 0, "n=1 mean");
	is_near(s.stdev, 0, 0, "n=1 stdev");
	is_int(s.npct, 3, "n=1 npct");
	for (int i = 0; i < 3; i++)
		ok(s.pct_at[i] == p[i] && s.pct[i] == 7, "n=1 p%g = 7 (got %g)", p[i], s.pct[i]);
}

static void test_two_samples(void)
{
	uint64_t v[] = { 20, 10 };
	const double p[] = { 1, 50, 50.1, 100 };
	const double want[] = { 10, 10, 20, 20 };
	struct stats_summary s;

	stats_summarize(v, 2, 1, p, 4, &s);
	is_near(s.min, 10, 0, "n=2 min");
	is_near(s.max, 20, 0, "n=2 max");
	is_near(s.mean, 15, 0, "n=2 mean");
	is_near(s.stdev, 5, 1e-15, "n=2 stdev is the population one (5, not 7.07)");
	for (int i = 0; i < 4; i++)
		ok(s.pct[i] == want[i], "n=2 p%g = %g (got %g)", p[i], want[i], s.pct[i]);
	ok(v[0] == 10 && v[1] == 20, "samples are sorted in place");
}

static void test_divisor(void)
{
	uint64_t v[] = { 20, 10, 13 };
	const double p[] = { 50, 100 };
	struct stats_summary s;

	/* mean 43/3, deviations -13/3, 17/3, -4/3: var = (169+289+16)/27 */
	stats_summarize(v, 3, 2, p, 2, &s);
	is_near(s.min, 5, 0, "divisor 2 min");
	is_near(s.max, 10, 0, "divisor 2 max");
	is_near(s.mean, 43.0 / 6, 1e-15, "divisor 2 mean");
	is_near(s.stdev, sqrt(474.0 / 27) / 2, 1e-14, "divisor 2 stdev");
	is_near(s.pct[0], 6.5, 0, "divisor 2 p50 = 13/2");
	is_near(s.pct[1], 10, 0, "divisor 2 p100 = max/2");
}

static void test_classic(void)
{
	uint64_t v[] = { 9, 4, 5, 2, 7, 4, 5, 4 };   /* mean 5, stdev 2 */
	const double p[] = { 12.5, 25, 75, 87.5, 88, 100 };
	const double want[] = { 2, 4, 5, 7, 9, 9 };
	struct stats_summary s;

	stats_summarize(v, N(v), 1, p, N(p), &s);
	is_near(s.mean, 5, 0, "2,4,4,4,5,5,7,9 mean");
	is_near(s.stdev, 2, 1e-15, "2,4,4,4,5,5,7,9 stdev");
	for (size_t i = 0; i < N(p); i++)
		ok(s.pct[i] == want[i], "2,4,4,4,5,5,7,9 p%g = %g (got %g)", p[i], want[i], s.pct[i]);
}

static void test_ten(void)
{
	uint64_t v[] = { 7, 3, 10, 1, 5, 9, 2, 8, 4, 6 };
	const double p[] = { 10, 11, 50, 90, 99, 100 };
	const double want[] = { 1, 2, 5, 9, 10, 10 };
	struct stats_summary s;

	stats_summarize(v, N(v), 1, p, N(p), &s);
	is_near(s.mean, 5.5, 0, "1..10 mean");
	is_near(s.stdev, sqrt(8.25), 1e-15, "1..10 stdev = sqrt((n^2-1)/12)");
	for (size_t i = 0; i < N(p); i++)
		ok(s.pct[i] == want[i], "1..10 p%g = %g (got %g)", p[i], want[i], s.pct[i]);
}

static void test_rank_rounding(void)
{
	uint64_t *v = malloc(1000 * sizeof(*v));
	const double p[] = { 50, 99, 99.9, 99.99 };
	const double want[] = { 500, 990, 999, 1000 };
	struct stats_summary s;

	for (int i = 0; i < 1000; i++)
		v[i] = 1000 - i;
	stats_summarize(v, 1000, 1, p, N(p), &s);
	for (size_t i = 0; i < N(p); i++)
		ok(s.pct[i] == want[i], "1..1000 p%g = %g (got %g)", p[i], want[i], s.pct[i]);
	free(v);
	is_int(stats_rank(1000, 99.9), 999, "rank(1000, 99.9) = 999 despite 999.0000000000001");
	is_int(stats_rank(3, 50), 2, "rank(3, 50) = ceil(1.5) = 2");
	is_int(stats_rank(3, 100), 3, "rank(3, 100) = n");
	is_int(stats_rank(3, 0.001), 1, "rank is at least 1");
}

static void test_large_mean(void)
{
	/* A naive sum of squares loses this stdev entirely (2e24 in double). */
	uint64_t v[] = { 1000000000001ULL, 1000000000003ULL };
	struct stats_summary s;

	stats_summarize(v, 2, 1, NULL, 0, &s);
	is_near(s.mean, 1000000000002.0, 0, "large mean");
	is_near(s.stdev, 1, 1e-9, "stdev of 1 around 1e12");
}

static void test_empty(void)
{
	uint64_t v[] = { 1 };
	const double p[] = { 50 };
	struct stats_summary s;

	stats_summarize(v, 0, 1, p, 1, &s);
	is_int(s.count, 0, "n=0 count");
	ok(isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.stdev),
	   "n=0 figures are NaN");
	ok(s.npct == 1 && s.pct_at[0] == 50 && isnan(s.pct[0]), "n=0 percentile is NaN");
	is_int(stats_percentile_sorted(v, 0, 50), 0, "percentile of nothing is 0");
}

static void test_many_pcts(void)
{
	uint64_t v[] = { 1, 2, 3 };
	double p[STATS_MAX_PCT + 4];
	struct stats_summary s;

	for (size_t i = 0; i < N(p); i++)
		p[i] = 100;
	stats_summarize(v, 3, 1, p, N(p), &s);
	is_int(s.npct, STATS_MAX_PCT, "npct clamped to STATS_MAX_PCT");
	ok(s.pct[STATS_MAX_PCT - 1] == 3, "last kept percentile filled");
}

static void test_samples(void)
{
	struct samples s;

	is_int(samples_init(&s, 3, 3), 0, "samples_init");
	for (uint64_t i = 0; i < 5; i++)
		samples_push(&s, i + 10);
	is_int(s.n, 3, "samples_push stops at cap == max");
	is_int(s.lost, 2, "the two beyond it are counted lost");
	ok(!samples_complete(&s), "a store that lost samples is not complete");
	ok(s.v[0] == 10 && s.v[2] == 12, "samples kept in order");
	samples_free(&s);
	ok(s.v == NULL && s.n == 0 && s.lost == 0, "samples_free clears");
	is_int(samples_init(&s, 0, 0), 0, "samples_init with cap 0");
	samples_push(&s, 1);
	is_int(s.n, 0, "cap 0 keeps nothing");
	is_int(s.lost, 1, "and counts it lost");
	samples_free(&s);
}

/* A -D run's store: starts small, doubles up to max, keeps every sample
 * in order until then, and only then counts the rest lost. */
static void test_samples_grow(void)
{
	struct samples s;
	bool in_order = true;

	is_int(samples_init(&s, 4, 100), 0, "samples_init 4 growing to 100");
	for (uint64_t i = 0; i < 100; i++)
		samples_push(&s, 1000 + i);
	is_int(s.n, 100, "100 pushed, 100 kept");
	is_int(s.cap, 100, "the last doubling stops at max (4..64, then 100)");
	ok(samples_complete(&s), "nothing lost up to max");
	for (size_t i = 0; i < s.n; i++)
		in_order = in_order && s.v[i] == 1000 + i;
	ok(in_order, "every sample kept, in the order pushed, across the reallocations");
	samples_push(&s, 7);
	is_int(s.n, 100, "max reached: the 101st is not kept");
	is_int(s.lost, 1, "and counted lost");
	ok(!samples_complete(&s), "the store says it is incomplete");
	samples_free(&s);
	is_int(samples_init(&s, 0, 3), 0, "samples_init 0 growing to 3");
	for (uint64_t i = 0; i < 3; i++)
		samples_push(&s, i);
	ok(s.n == 3 && s.lost == 0 && s.v[2] == 2, "cap 0 grows too (1, 2, 3)");
	samples_free(&s);
}

static void test_parse(void)
{
	static const struct {
		const char *in;
		int ret;
	} bad[] = {
		{ "", -EINVAL }, { "0", -EINVAL }, { "101", -EINVAL }, { "100.01", -EINVAL },
		{ "-5", -EINVAL }, { "50,", -EINVAL }, { ",50", -EINVAL },
		{ "50,,90", -EINVAL }, { "abc", -EINVAL }, { "50 ,90", -EINVAL },
		{ "50;90", -EINVAL }, { "nan", -EINVAL }, { "1,2,3,4,5", -ERANGE },
		{ "1,2,3,4,x", -EINVAL },
	};
	double p[4] = { 0 };

	is_int(stats_parse_percentiles("50,90,99,99.9", p, 4), 4, "parse 50,90,99,99.9");
	ok(p[0] == 50 && p[1] == 90 && p[2] == 99 && p[3] == 99.9, "parsed values");
	is_int(stats_parse_percentiles("100", p, 4), 1, "parse 100");
	ok(p[0] == 100, "parsed 100");
	is_int(stats_parse_percentiles("0.001,1e1", p, 4), 2, "parse 0.001,1e1");
	ok(p[0] == 0.001 && p[1] == 10, "parsed 0.001 and 10");
	for (size_t i = 0; i < N(bad); i++) {
		char what[64];

		snprintf(what, sizeof(what), "parse \"%s\" fails with %d", bad[i].in, bad[i].ret);
		is_int(stats_parse_percentiles(bad[i].in, p, 4), bad[i].ret, what);
	}
	is_int(stats_parse_percentiles(NULL, p, 4), -EINVAL, "parse NULL");
}

static int cmp_ref(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* xorshift64: the same samples on every run. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* stats_sort against qsort on n samples of kind: 0 the whole 64-bit range,
 * 1 latencies (1 us .. 1 ms, many repeats), 2 all the same, 3 a few
 * values far apart (digits that only some samples have). */
static bool sort_matches(size_t n, int kind)
{
	uint64_t *v = malloc(n * sizeof(*v) + 1), *want = malloc(n * sizeof(*v) + 1), x = 88172645463325252ull;
	static const uint64_t few[] = { 3, 1ull << 40, 2047, 2048, UINT64_MAX, 0, 1ull << 63 };
	bool same;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = next_rand(&x);

		v[i] = kind == 0 ? r : kind == 1 ? 1000 + r % 999000 : kind == 2 ? 4242 : few[r % N(few)];
	}
	memcpy(want, v, n * sizeof(*v));
	qsort(want, n, sizeof(*want), cmp_ref);
	stats_sort(v, n);
	same = memcmp(v, want, n * sizeof(*v)) == 0;
	free(v);
	free(want);
	return same;
}

static void test_sort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 100000 };
	uint64_t small[] = { 5, 1, 4, 1, 3 };

	stats_sort(small, N(small));
	ok(small[0] == 1 && small[1] == 1 && small[2] == 3 && small[3] == 4 && small[4] == 5,
	   "stats_sort: 5 1 4 1 3 gives 1 1 3 4 5");
	for (size_t i = 0; i < N(sizes); i++)
		for (int kind = 0; kind < 4; kind++)
			ok(sort_matches(sizes[i], kind), "stats_sort: %zu samples of kind %d in qsort's order",
			   sizes[i], kind);
}

int main(void)
{
	test_one_sample();
	test_two_samples();
	test_divisor();
	test_classic();
	test_ten();
	test_rank_rounding();
	test_large_mean();
	test_empty();
	test_many_pcts();
	test_samples();
	test_samples_grow();
	test_parse();
	test_sort();
	return tap_done();
}
