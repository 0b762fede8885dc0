#include "lib/histogram.h"
#include "lib/stats.h"
#include "tap.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NSAMPLES 1000000

static const double pcts[] = { 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 99.999, 100 };

/* Deterministic data: splitmix64. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(void)   /* (0, 1] */
{
	return ((double)(rng_next() >> 11) + 1) / 9007199254740992.0;
}

static double rng_normal(void)
{
	return sqrt(-2 * log(rng_unit())) * cos(2 * M_PI * rng_unit());
}

/* A latency-like shape: log-normal around 2 us, spanning 20 ns .. 1 ms. */
static uint64_t gen_lognormal(void)
{
	return (uint64_t)exp(log(2000) + 1.2 * rng_normal());
}

/* 99 % tight around 1 us, 1 % tail to 10 ms: the RDMA latency shape. */
static uint64_t gen_skewed(void)
{
	if (rng_next() % 100)
		return 1000 + rng_next() % 100;
	return 100000 + rng_next() % 10000000;
}

static uint64_t gen_small(void)
{
	return rng_next() % 600;
}

static char *csv_of(const struct histogram *h, double divisor, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = histogram_write_csv(h, f, divisor);
	fclose(f);
	return buf;
}

/* Every percentile within [exact, exact * 1.01]; figures exact. */
static void check_against_exact(const char *name, uint64_t (*gen)(void))
{
	struct histogram *h = histogram_new();
	uint64_t *v = malloc(NSAMPLES * sizeof(*v));
	struct stats_summary s;

	for (size_t i = 0; i < NSAMPLES; i++) {
		v[i] = gen();
		histogram_record(h, v[i]);
	}
	stats_summarize(v, NSAMPLES, 1, pcts, N(pcts), &s);
	is_int(histogram_count(h), NSAMPLES, name);
	is_near((double)histogram_min(h), s.min, 0, "min exact");
	is_near((double)histogram_max(h), s.max, 0, "max exact");
	is_near(histogram_mean(h), s.mean, 1e-12, "mean exact");
	is_near(histogram_stdev(h), s.stdev, 1e-9, "stdev exact");
	for (size_t i = 0; i < N(pcts); i++) {
		double got = histogram_percentile(h, pcts[i]), want = s.pct[i];

		ok(got >= want && got <= want * 1.01, "%s p%g: %.0f within 1 %% above exact %.0f",
		   name, pcts[i], got, want);
	}
	ok(histogram_percentile(h, 100) == s.max, "%s p100 is the exact max", name);
	free(v);
	histogram_free(h);
}

/* {v, big}: p50 is rank 1, the upper bound of v's bucket. */
static double bucket_upper_of(struct histogram *h, uint64_t v)
{
	histogram_reset(h);
	histogram_record(h, v);
	histogram_record(h, UINT64_C(1) << 47);
	return histogram_percentile(h, 50);
}

static void test_buckets(void)
{
	struct histogram *h = histogram_new();
	int exact = 1, bound = 1;
	uint64_t worst_v = 0;

	for (uint64_t v = 0; v < 256; v++)
		exact &= bucket_upper_of(h, v) == (double)v;
	ok(exact, "values below 256 are exact");
	is_near(bucket_upper_of(h, 256), 257, 0, "256 is in [256, 257]");
	is_near(bucket_upper_of(h, 511), 511, 0, "511 is in [510, 511]");
	is_near(bucket_upper_of(h, 512), 515, 0, "512 is in [512, 515]");
	is_near(bucket_upper_of(h, 1000), 1003, 0, "1000 is in [1000, 1003]");
	for (int i = 0; i < 200000; i++) {
		uint64_t v = i < 4096 ? (uint64_t)i : rng_next() >> (rng_next() % 47 + 17);
		double up = bucket_upper_of(h, v);

		if (up < (double)v || up > (double)v + (double)v / 128) {
			bound = 0;
			worst_v = v;
		}
	}
	ok(bound, "every value's bucket is within [v, v + v/128] (bad: %" PRIu64 ")", worst_v);
	histogram_free(h);
}

static void test_clamp(void)
{
	struct histogram *h = histogram_new();
	uint64_t big = UINT64_C(1) << 60;

	histogram_record(h, UINT64_C(1) << 50);
	histogram_record(h, big);
	histogram_record(h, 5);
	is_int(histogram_min(h), 5, "min exact with huge values");
	ok(histogram_max(h) == big, "max exact beyond the last bucket");
	ok(histogram_percentile(h, 100) == (double)big, "p100 is the exact max");
	ok(histogram_percentile(h, 50) == (double)big,
	   "p50 falls in the open last bucket, clamped to max");
	ok(histogram_percentile(h, 33) == 5, "p33 exact small value");
	is_near(histogram_mean(h), ((double)(UINT64_C(1) << 50) + (double)big + 5) / 3, 1e-15,
		"mean exact with huge values");
	histogram_free(h);
}

static void test_count_reset(void)
{
	struct histogram *h = histogram_new();

	ok(h != NULL, "histogram_new");
	is_int(histogram_count(h), 0, "new histogram is empty");
	ok(isnan(histogram_mean(h)) && isnan(histogram_stdev(h)) &&
	   isnan(histogram_percentile(h, 50)), "empty figures are NaN");
	for (int i = 1; i <= 4; i++)
		histogram_record(h, (uint64_t)i * 1000);
	is_int(histogram_count(h), 4, "count after 4 records");
	is_near(histogram_mean(h), 2500, 0, "mean of 1000..4000");
	is_near(histogram_stdev(h), sqrt(1250000), 1e-15, "population stdev of 1000..4000");
	histogram_reset(h);
	is_int(histogram_count(h), 0, "count after reset");
	is_int(histogram_min(h), 0, "min after reset");
	is_int(histogram_max(h), 0, "max after reset");
	ok(isnan(histogram_percentile(h, 99)), "percentile after reset is NaN");
	histogram_record(h, 77);
	ok(histogram_min(h) == 77 && histogram_max(h) == 77 &&
	   histogram_percentile(h, 1) == 77, "records again after reset");
	histogram_free(h);
}

static void test_csv_golden(void)
{
	struct histogram *h = histogram_new();
	char *csv;
	int ret;

	csv = csv_of(h, 1, &ret);
	is_str(csv, "lower_ns,upper_ns,count,cumulative_fraction\n", "empty CSV");
	free(csv);
	histogram_record(h, 5);
	histogram_record(h, 300);
	histogram_record(h, 5);
	histogram_record(h, 1000);
	csv = csv_of(h, 1, &ret);
	is_int(ret, 0, "write_csv returns 0");
	is_str(csv, "lower_ns,upper_ns,count,cumulative_fraction\n"
	       "5.0,5.0,2,0.500000000\n"
	       "300.0,301.0,1,0.750000000\n"
	       "1000.0,1000.0,1,1.000000000\n", "CSV rows; the last upper is the max");
	free(csv);
	histogram_record(h, 1003);
	csv = csv_of(h, 2, &ret);
	is_str(csv, "lower_ns,upper_ns,count,cumulative_fraction\n"
	       "2.5,2.5,2,0.400000000\n"
	       "150.0,150.5,1,0.600000000\n"
	       "500.0,501.5,2,1.000000000\n", "CSV with divisor 2");
	free(csv);
	histogram_free(h);
}

/* Parse a big CSV back: counts add up, rows ascend, cumulative ends at 1. */
static void test_csv_large(void)
{
	struct histogram *h = histogram_new();
	double prev_upper = -1, prev_cum = 0, cum = 0;
	uint64_t total = 0, rows = 0;
	int ret, sane = 1;
	char *csv, *line, *save = NULL;

	for (int i = 0; i < 100000; i++)
		histogram_record(h, gen_lognormal());
	csv = csv_of(h, 1, &ret);
	is_int(ret, 0, "large CSV written");
	line = strtok_r(csv, "\n", &save);
	is_str(line, "lower_ns,upper_ns,count,cumulative_fraction", "large CSV header");
	while ((line = strtok_r(NULL, "\n", &save))) {
		double lo, up;
		uint64_t n;

		if (sscanf(line, "%lf,%lf,%" SCNu64 ",%lf", &lo, &up, &n, &cum) != 4 ||
		    lo > up || lo <= prev_upper || cum < prev_cum || n == 0)
			sane = 0;
		prev_upper = up;
		prev_cum = cum;
		total += n;
		rows++;
	}
	ok(sane, "%" PRIu64 " rows well formed, ascending, cumulative non-decreasing", rows);
	is_int(total, 100000, "row counts sum to the count");
	ok(cum == 1.0, "last cumulative_fraction is 1 (got %.9f)", cum);
	ok(prev_upper == (double)histogram_max(h), "last upper is the max");
	free(csv);
	histogram_free(h);
}

static void test_csv_error(void)
{
	struct histogram *h = histogram_new();
	FILE *f = fopen("/dev/null", "r");

	histogram_record(h, 1);
	ok(histogram_write_csv(h, f, 1) < 0, "write error reported");
	fclose(f);
	histogram_free(h);
}

int main(void)
{
	test_buckets();
	test_clamp();
	test_count_reset();
	check_against_exact("log-normal", gen_lognormal);
	check_against_exact("skewed", gen_skewed);
	check_against_exact("small", gen_small);
	test_csv_golden();
	test_csv_large();
	test_csv_error();
	return tap_done();
}
