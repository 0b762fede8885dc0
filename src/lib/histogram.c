#include "lib/histogram.h"
#include "lib/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Bucket layout.  Values v < 2^SUB_BITS have a bucket each.  A larger v with
 * its top bit at position b (2^b <= v < 2^(b+1)) falls in octave b, cut into
 * HALF = 2^(SUB_BITS-1) buckets of width 2^(b-SUB_BITS+1); the bucket index is
 * its top SUB_BITS bits plus the octave offset, so no division is needed.
 * Octaves go up to MAX_BITS-1: values >= 2^MAX_BITS (78 hours) clamp into
 * the last bucket, while min, max and the sums stay exact.
 */
#define SUB_BITS  HIST_SUB_BITS
#define HALF      (1u << (SUB_BITS - 1))
#define MAX_BITS  48
#define NBUCKETS  ((1u << SUB_BITS) + (MAX_BITS - SUB_BITS) * HALF)

struct histogram {
	uint64_t count, min, max;
	unsigned __int128 sum, sumsq;    /* exact: no rounding in mean/stdev */
	uint64_t bucket[NBUCKETS];
};

static unsigned bucket_index(uint64_t v)
{
	unsigned shift;

	if (v < (1u << SUB_BITS))
		return (unsigned)v;
	if (v >> MAX_BITS)
		return NBUCKETS - 1;
	shift = (unsigned)(63 - __builtin_clzll(v)) - (SUB_BITS - 1);
	/* (v >> shift) is in [HALF, 2 * HALF): the offset within the octave. */
	return shift * HALF + (unsigned)(v >> shift);
}

static uint64_t bucket_lower(unsigned i)
{
	unsigned shift;

	if (i < (1u << SUB_BITS))
		return i;
	shift = i / HALF - 1;
	return (uint64_t)(i - shift * HALF) << shift;
}

/* Inclusive: the largest value that lands in bucket i. */
static uint64_t bucket_upper(unsigned i)
{
	if (i + 1 == NBUCKETS)
		return UINT64_MAX;
	return bucket_lower(i + 1) - 1;
}

struct histogram *histogram_new(void)
{
	struct histogram *h = malloc(sizeof(*h));

	if (h)
		histogram_reset(h);
	return h;
}

void histogram_free(struct histogram *h)
{
	free(h);
}

void histogram_reset(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void histogram_record(struct histogram *h, uint64_t ns)
{
	h->bucket[bucket_index(ns)]++;
	h->count++;
	h->sum += ns;
	h->sumsq += (unsigned __int128)ns * ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

uint64_t histogram_count(const struct histogram *h)
{
	return h->count;
}

uint64_t histogram_min(const struct histogram *h)
{
	return h->count ? h->min : 0;
}

uint64_t histogram_max(const struct histogram *h)
{
	return h->max;
}

double histogram_mean(const struct histogram *h)
{
	if (!h->count)
		return NAN;
	return (double)((long double)h->sum / h->count);
}

/* n^2 var = n sumsq - sum^2, exact in integers while it fits. */
double histogram_stdev(const struct histogram *h)
{
	unsigned __int128 nsq, sq;
	long double n = h->count, mean, var;

	if (!h->count)
		return NAN;
	if (!__builtin_mul_overflow(h->sumsq, (unsigned __int128)h->count, &nsq) &&
	    !__builtin_mul_overflow(h->sum, h->sum, &sq))
		return (double)sqrtl((long double)(nsq - sq) / (n * n));
	mean = (long double)h->sum / n;
	var = (long double)h->sumsq / n - mean * mean;
	return (double)sqrtl(var > 0 ? var : 0);
}

double histogram_percentile(const struct histogram *h, double p)
{
	uint64_t rank, seen = 0;
	unsigned i;

	if (!h->count)
		return NAN;
	rank = stats_rank(h->count, p);
	for (i = 0; i < NBUCKETS - 1; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	return (double)(bucket_upper(i) < h->max ? bucket_upper(i) : h->max);
}

int histogram_write_csv(const struct histogram *h, FILE *f, double divisor)
{
	uint64_t seen = 0;

	if (!(divisor > 0))
		divisor = 1;
	fprintf(f, "lower_ns,upper_ns,count,cumulative_fraction\n");
	for (unsigned i = 0; i < NBUCKETS; i++) {
		uint64_t upper = bucket_upper(i);

		if (!h->bucket[i])
			continue;
		seen += h->bucket[i];
		if (upper > h->max)     /* the last bucket is open-ended */
			upper = h->max;
		fprintf(f, "%.1f,%.1f,%" PRIu64 ",%.9f\n",
			(double)bucket_lower(i) / divisor, (double)upper / divisor,
			h->bucket[i], (double)seen / (double)h->count);
	}
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
