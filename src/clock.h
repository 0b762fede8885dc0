/*
 * The suite's one clock: clock_gettime(CLOCK_MONOTONIC), read through the
 * vDSO.  No cycle counter, so nothing to calibrate and no CPU frequency to
 * guess (perftest's TSC fit fails under emulation and prints 0.00 MB/s).
 */
#ifndef RB_CLOCK_H
#define RB_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Name of the clock, for the report ("CLOCK_MONOTONIC"). */
const char *clock_source(void);
/* clock_getres() of the clock, in ns. */
double clock_resolution_ns(void);
/* Mean cost of one clock_now_ns() call in ns, measured over n reads. */
double clock_cost_ns(unsigned n);

#endif
