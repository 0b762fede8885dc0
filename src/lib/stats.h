/*
 * Latency statistics over every kept sample.  Pure, no I/O.
 *
 * Percentile definition (documented in the man pages): nearest rank on the
 * sorted samples, rank = ceil(p/100 * n), 1-based; p = 100 gives the max.
 * stdev is the population standard deviation (divide by n), computed in
 * double with Welford's method.
 */
#ifndef RB_STATS_H
#define RB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_MAX_PCT 16

struct stats_summary {
	uint64_t count;
	double min, max, mean, stdev;       /* in the samples' unit / divisor */
	int npct;
	double pct_at[STATS_MAX_PCT];       /* e.g. 50, 99.9 */
	double pct[STATS_MAX_PCT];          /* value at pct_at[i] */
};

/*
 * The raw samples (ns), every one of them up to a bound: an -n run sizes
 * the store from its iteration count (cap == max), a -D run starts small
 * and doubles up to max.  A sample that finds the store full (max reached,
 * or memory refused) is counted in lost, not kept: the caller then knows
 * that the samples are not all there (samples_complete) and takes its
 * figures elsewhere (the histogram), saying so.
 */
struct samples {
	uint64_t *v;
	size_t n, cap, max;
	uint64_t lost;              /* samples that found the store full */
};

/* The most a -D run keeps: 2^25 samples, 256 MiB (a minute of 2 us round
 * trips); beyond it the figures come from the histogram. */
#define SAMPLES_MAX_DURATION ((size_t)1 << 25)
#define SAMPLES_FIRST_CAP ((size_t)1 << 16)

/* Room for cap now, growing up to max (max <= cap: no growth).  0 or -ENOMEM. */
int samples_init(struct samples *s, size_t cap, size_t max);
void samples_free(struct samples *s);
/* Out of the hot path: grow (double, up to max) and keep v, or count it lost. */
void samples_push_slow(struct samples *s, uint64_t v);
static inline void samples_push(struct samples *s, uint64_t v)
{
	if (s->n < s->cap)
		s->v[s->n++] = v;
	else
		samples_push_slow(s, v);
}
/* Every sample pushed is kept. */
static inline int samples_complete(const struct samples *s)
{
	return s->lost == 0;
}

/*
 * Summarize n samples.  Sorts v in place (dump raw samples before calling).
 * Every output value is sample / divisor (divisor 2 turns a round trip into
 * a one-way figure; 1 keeps it).  n == 0 gives count 0 and NaN figures.
 */
void stats_summarize(uint64_t *v, size_t n, double divisor,
		     const double *pcts, int npct, struct stats_summary *out);

/* Sort n samples in ascending order, in place (a radix sort: stats.c). */
void stats_sort(uint64_t *v, size_t n);

/* The 1-based nearest rank of percentile p among n samples (1 when n is 0);
 * shared with the histogram so both follow the one definition above. */
uint64_t stats_rank(uint64_t n, double p);

/* Nearest-rank percentile of already sorted samples (raw unit). */
uint64_t stats_percentile_sorted(const uint64_t *sorted, size_t n, double p);

/*
 * Parse "50,90,99,99.9" into pcts (each in (0,100]); returns the count,
 * or -EINVAL (bad number / out of range) or -ERANGE (more than max).
 */
int stats_parse_percentiles(const char *list, double *pcts, int max);

#endif
