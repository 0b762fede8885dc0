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

/* A growable array of raw samples (ns). */
struct samples {
	uint64_t *v;
	size_t n, cap;
};

int samples_init(struct samples *s, size_t cap);   /* 0 or -ENOMEM */
void samples_free(struct samples *s);
/* Caller guarantees room (cap is sized from the iteration count). */
static inline void samples_push(struct samples *s, uint64_t v)
{
	if (s->n < s->cap)
		s->v[s->n++] = v;
}

/*
 * Summarize n samples.  Sorts v in place (dump raw samples before calling).
 * Every output value is sample / divisor (divisor 2 turns a round trip into
 * a one-way figure; 1 keeps it).  n == 0 gives count 0 and NaN figures.
 */
void stats_summarize(uint64_t *v, size_t n, double divisor,
		     const double *pcts, int npct, struct stats_summary *out);

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
