/*
 * Log-linear histogram of latencies in ns (fio/HdrHistogram scheme, our own
 * code): values below 2^HIST_SUB_BITS are exact; above, each power of two is
 * cut into 2^(HIST_SUB_BITS-1) equal buckets, so a bucket's width is at most
 * 1/128 of its lower bound: relative error <= 0.8 %.  Memory is fixed
 * (no growth with run length): used by -D runs and by -H output.
 */
#ifndef RB_HISTOGRAM_H
#define RB_HISTOGRAM_H

#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS 8             /* 256 exact values, then 128 per octave */

struct histogram;

struct histogram *histogram_new(void);          /* NULL on ENOMEM */
void histogram_free(struct histogram *h);
void histogram_reset(struct histogram *h);
void histogram_record(struct histogram *h, uint64_t ns);

uint64_t histogram_count(const struct histogram *h);
uint64_t histogram_min(const struct histogram *h);     /* exact */
uint64_t histogram_max(const struct histogram *h);     /* exact */
double histogram_mean(const struct histogram *h);      /* exact (kept sum) */
double histogram_stdev(const struct histogram *h);     /* population, from kept sums */
/* Nearest-rank percentile: the upper bound of the bucket holding that rank,
 * clamped to the exact max. */
double histogram_percentile(const struct histogram *h, double p);

/*
 * Write the non-empty buckets as CSV:
 *   lower_ns,upper_ns,count,cumulative_fraction
 * a header row, then one row per bucket (the caller writes the sidecar
 * that says what was measured).  Values are divided by divisor (2 for one-way latency from a round
 * trip), bounds printed with %.1f.  Returns 0 or -errno.
 */
int histogram_write_csv(const struct histogram *h, FILE *f, double divisor);

#endif
