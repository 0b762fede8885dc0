/*
 * What the intervals of a run show (--interval): the lowest and highest
 * interval bandwidth and when, their coefficient of variation, how wide
 * they were, and the intervals under --min-bw.  Constant memory however
 * long the run: a few sums and the first INTERVAL_NAMED intervals under
 * the floor by name.  Pure, no I/O.
 *
 * A whole interval reached its boundary (the asked SECONDS, rounded up to
 * the loop's next look at the clock); a partial one was cut short by the
 * run's end (-D's end or the peer stopping before its boundary; SIGINT
 * wherever its boundary, its messages in flight uncounted).  The figures of the
 * whole ones make the lowest, highest and CV.  A partial one is judged
 * against the floor only on what it can show: completions come in
 * batches (-Q messages on a QP), so one short interval may hold none on a
 * healthy link.  It is under the floor only when even one more batch on
 * each QP (its bound) would leave it under: then the link surely ran
 * slower than the floor over it.
 */
#ifndef RB_INTERVAL_H
#define RB_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INTERVAL_NAMED 16

struct interval_stats {
	uint64_t n;                     /* intervals seen, whole and partial */
	uint64_t whole;                 /* of them whole: in min, max and CV */
	uint64_t partial;               /* of them partial */
	uint64_t unjudged;              /* partial ones too short to judge against the floor */
	uint64_t below;                 /* under the floor */
	double min_bps, max_bps;        /* NaN until the first whole one */
	double min_at_s, max_at_s;      /* their start offsets */
	double min_width_s, max_width_s; /* of the whole ones, NaN until the first */
	double sum, sumsq;              /* of bps, for the coefficient of variation */
	double floor_bps;               /* 0: none */
	double below_at_s[INTERVAL_NAMED], below_end_s[INTERVAL_NAMED];
};

/* One interval: [start_s, end_s) moved bps bytes/s; a partial one's bound
 * is the rate it would show with one more completion batch per QP. */
struct interval_obs {
	double start_s, end_s, bps;
	bool partial;
	double bound_bps;
};

/* The interval [start_s, end_s) that moved bytes; a partial one's bound
 * adds grain_bytes (one completion batch on each QP) to them. */
struct interval_obs interval_obs_make(double start_s, double end_s, double bytes, bool partial,
				      double grain_bytes);
void interval_stats_init(struct interval_stats *st, double floor_bps);
/* One whole interval [start_s, end_s) that moved bps bytes/s. */
void interval_stats_add(struct interval_stats *st, double start_s, double end_s, double bps);
/* One interval, whole or partial. */
void interval_stats_observe(struct interval_stats *st, const struct interval_obs *o);
/* The floor's verdict on one interval: true when under it (see above). */
bool interval_below_floor(double floor_bps, const struct interval_obs *o);
/* Whether a partial interval can be judged against the floor at all. */
bool interval_judgeable(double floor_bps, const struct interval_obs *o);
/* Standard deviation over mean of the whole intervals' bandwidth; NaN under 2. */
double interval_stats_cv(const struct interval_stats *st);
/* "3.000-4.000 s, 7.000-8.000 s (and 2 more)": the intervals under the floor. */
const char *interval_stats_below(const struct interval_stats *st, char *buf, size_t len);

#endif
