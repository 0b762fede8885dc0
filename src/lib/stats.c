#include "lib/stats.h"
#include "lib/units.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int samples_init(struct samples *s, size_t cap, size_t max)
{
	*s = (struct samples){ .cap = cap, .max = max > cap ? max : cap };
	s->v = malloc((cap ? cap : 1) * sizeof(*s->v));
	if (!s->v) {
		s->cap = s->max = 0;
		return -ENOMEM;
	}
	return 0;
}

void samples_push_slow(struct samples *s, uint64_t v)
{
	size_t cap = s->cap ? s->cap * 2 : 1;
	uint64_t *nv;

	if (cap > s->max)
		cap = s->max;
	nv = cap > s->cap ? realloc(s->v, cap * sizeof(*s->v)) : NULL;
	if (!nv) {
		s->lost++;
		return;
	}
	s->v = nv;
	s->cap = cap;
	s->v[s->n++] = v;
}

void samples_free(struct samples *s)
{
	free(s->v);
	*s = (struct samples){ 0 };
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Sorting the samples: a least-significant-digit radix sort, 11 bits a
 * digit, whose counts are taken in one pass over the samples, for the
 * digits below the highest bit any sample has set (latencies in ns: two
 * or three), skipping a digit that every sample shares.  The same order as qsort's, in a few dozen
 * instructions a sample instead of a comparison call per sample and
 * level; qsort where the room for it is refused, or for a handful.
 */
#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_DIGITS ((64 + RADIX_BITS - 1) / RADIX_BITS)
#define RADIX_MIN_N 64

static unsigned radix_digit(uint64_t x, int d)
{
	return (unsigned)(x >> (d * RADIX_BITS)) & (RADIX_SIZE - 1);
}

/* The digits that some sample has set: those below the highest bit set. */
static int radix_digits(const uint64_t *v, size_t n)
{
	uint64_t any = 0;

	for (size_t i = 0; i < n; i++)
		any |= v[i];
	return any ? (64 - __builtin_clzll(any) + RADIX_BITS - 1) / RADIX_BITS : 0;
}

static void radix_count(const uint64_t *v, size_t n, size_t (*count)[RADIX_SIZE], int digits)
{
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < digits; d++)
			count[d][radix_digit(v[i], d)]++;
}

/* One digit's pass from src into dst, stable; count becomes the offsets. */
static void radix_pass(const uint64_t *src, uint64_t *dst, size_t n, size_t *count, int d)
{
	size_t at = 0;

	for (unsigned b = 0; b < RADIX_SIZE; b++) {
		size_t c = count[b];

		count[b] = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[count[radix_digit(src[i], d)]++] = src[i];
}

static bool radix_sort(uint64_t *v, size_t n)
{
	size_t (*count)[RADIX_SIZE] = calloc(RADIX_DIGITS, sizeof(*count));
	uint64_t *tmp = malloc(n * sizeof(*tmp)), *src = v, *dst = tmp, *t;
	int digits;

	if (!count || !tmp) {
		free(count);
		free(tmp);
		return false;
	}
	digits = radix_digits(v, n);
	radix_count(v, n, count, digits);
	for (int d = 0; d < digits; d++) {
		if (count[d][radix_digit(v[0], d)] == n)
			continue;       /* every sample has this digit */
		radix_pass(src, dst, n, count[d], d);
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(count);
	free(tmp);
	return true;
}

void stats_sort(uint64_t *v, size_t n)
{
	if (n < RADIX_MIN_N || !radix_sort(v, n))
		qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t stats_rank(uint64_t n, double p)
{
	double x = p / 100.0 * (double)n;
	/*
	 * 99.9 / 100 * 1000 is 999.0000000000001 in double: without the slack
	 * of a few ulps, ceil() would pick rank 1000 instead of 999.
	 */
	double r = ceil(x - 8 * DBL_EPSILON * x);

	if (r < 1)
		return 1;
	if (r > (double)n)
		return n;
	return (uint64_t)r;
}

uint64_t stats_percentile_sorted(const uint64_t *sorted, size_t n, double p)
{
	return n ? sorted[stats_rank(n, p) - 1] : 0;
}

/* Welford: one pass, no catastrophic cancellation on large means. */
static void mean_stdev(const uint64_t *v, size_t n, double *mean, double *stdev)
{
	double m = 0, m2 = 0;

	for (size_t i = 0; i < n; i++) {
		double x = (double)v[i], d = x - m;

		m += d / (double)(i + 1);
		m2 += d * (x - m);
	}
	*mean = m;
	*stdev = sqrt(m2 / (double)n);
}

static void summary_empty(struct stats_summary *out)
{
	out->min = out->max = out->mean = out->stdev = NAN;
	for (int i = 0; i < out->npct; i++)
		out->pct[i] = NAN;
}

void stats_summarize(uint64_t *v, size_t n, double divisor,
		     const double *pcts, int npct, struct stats_summary *out)
{
	double mean, stdev;

	if (!(divisor > 0))
		divisor = 1;
	memset(out, 0, sizeof(*out));
	out->count = n;
	out->npct = npct < 0 ? 0 : npct > STATS_MAX_PCT ? STATS_MAX_PCT : npct;
	for (int i = 0; i < out->npct; i++)
		out->pct_at[i] = pcts[i];
	if (!n) {
		summary_empty(out);
		return;
	}
	stats_sort(v, n);
	mean_stdev(v, n, &mean, &stdev);
	out->min = (double)v[0] / divisor;
	out->max = (double)v[n - 1] / divisor;
	out->mean = mean / divisor;
	out->stdev = stdev / divisor;
	for (int i = 0; i < out->npct; i++)
		out->pct[i] = (double)stats_percentile_sorted(v, n, pcts[i]) / divisor;
}

/* One item of a percentile list: a number in (0, 100]. */
static int parse_pct(const char *s, size_t len, double *out)
{
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (units_parse_double(buf, 0, 100, out) || *out <= 0)
		return -EINVAL;
	return 0;
}

int stats_parse_percentiles(const char *list, double *pcts, int max)
{
	const char *s = list;
	int n = 0;

	if (!list)
		return -EINVAL;
	for (;;) {
		size_t len = strcspn(s, ",");
		double p;

		if (parse_pct(s, len, &p))
			return -EINVAL;
		if (n == max)
			return -ERANGE;
		pcts[n++] = p;
		if (!s[len])
			return n;
		s += len + 1;
	}
}
