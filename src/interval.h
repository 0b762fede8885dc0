/*
 * What the intervals of a run show (--interval): the lowest and highest
 * interval bandwidth and when, their coefficient of variation, and the
 * intervals under --min-bw.  Constant memory however long the run: a few
 * sums and the first INTERVAL_NAMED intervals under the floor by name.
 * Pure, no I/O.
 */
#ifndef RB_INTERVAL_H
#define RB_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#define INTERVAL_NAMED 16

struct interval_stats {
	uint64_t n;                     /* intervals seen */
	uint64_t below;                 /* under the floor */
	double min_bps, max_bps;        /* NaN until the first */
	double min_at_s, max_at_s;      /* their start offsets */
	double sum, sumsq;              /* of bps, for the coefficient of variation */
	double floor_bps;               /* 0: none */
	double below_at_s[INTERVAL_NAMED], below_end_s[INTERVAL_NAMED];
};

void interval_stats_init(struct interval_stats *st, double floor_bps);
/* One interval [start_s, end_s) that moved bps bytes/s. */
void interval_stats_add(struct interval_stats *st, double start_s, double end_s, double bps);
/* Standard deviation over mean of the intervals' bandwidth; NaN under 2. */
double interval_stats_cv(const struct interval_stats *st);
/* "3.000-4.000 s, 7.000-8.000 s (and 2 more)": the intervals under the floor. */
const char *interval_stats_below(const struct interval_stats *st, char *buf, size_t len);

#endif
