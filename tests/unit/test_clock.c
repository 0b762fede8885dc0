/*
 * The suite's clock (src/clock.h): a known interval measured with
 * clock_now_ns() agrees with CLOCK_MONOTONIC read directly, and with the
 * unslewed CLOCK_MONOTONIC_RAW, within 0.1 %; the clock never goes back; and
 * the cost of one read is printed as a TAP diagnostic (goal: 25 ns or less).
 * The cost is not a pass/fail check: it depends on the machine (a VM without
 * a stable TSC falls back from the vDSO to a system call), not on our code.
 */
#include "clock.h"
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#define SLEEP_NS (200 * 1000 * 1000ULL)
#define COST_GOAL_NS 25.0
#define COST_TRIALS 7
#define COST_READS 200000u

static uint64_t raw_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Sleep ns, restarting after a signal with the time left. */
static void sleep_ns(uint64_t ns)
{
	struct timespec left = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) };

	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

static void tap_diag_interval(uint64_t ours, uint64_t mono, uint64_t raw)
{
	printf("# 200 ms nanosleep: clock_now_ns %.6f ms, CLOCK_MONOTONIC %.6f ms, CLOCK_MONOTONIC_RAW %.6f ms\n",
	       (double)ours / 1e6, (double)mono / 1e6, (double)raw / 1e6);
}

/* One interval, read by three clocks nested around the same sleep: the
 * outer reads are taken first and last, so each inner interval is shorter
 * by the cost of the reads in between (well under a microsecond). */
static void test_interval(void)
{
	uint64_t raw0 = raw_ns(CLOCK_MONOTONIC_RAW), mono0 = raw_ns(CLOCK_MONOTONIC);
	uint64_t ours0 = clock_now_ns();
	uint64_t ours, mono, raw;

	sleep_ns(SLEEP_NS);
	ours = clock_now_ns() - ours0;
	mono = raw_ns(CLOCK_MONOTONIC) - mono0;
	raw = raw_ns(CLOCK_MONOTONIC_RAW) - raw0;
	tap_diag_interval(ours, mono, raw);
	ok(ours >= SLEEP_NS, "a 200 ms nanosleep lasts at least 200 ms by clock_now_ns (%.6f ms)",
	   (double)ours / 1e6);
	is_near((double)ours, (double)mono, 1e-3, "clock_now_ns agrees with CLOCK_MONOTONIC within 0.1 %");
	is_near((double)ours, (double)raw, 1e-3, "clock_now_ns agrees with CLOCK_MONOTONIC_RAW within 0.1 %");
}

static void test_monotonic(void)
{
	uint64_t prev = clock_now_ns(), back = 0;

	for (unsigned i = 0; i < 1000000; i++) {
		uint64_t now = clock_now_ns();

		back += now < prev;
		prev = now;
	}
	is_int(back, 0, "clock_now_ns never goes back over 10^6 reads");
}

static void test_source(void)
{
	double res = clock_resolution_ns();

	is_str(clock_source(), "CLOCK_MONOTONIC", "clock_source names the clock clock_now_ns reads");
	ok(res > 0 && res <= 1000, "clock resolution is 1 us or finer (%g ns)", res);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of a few trials: one trial that a busy machine preempts should
 * not decide the figure. */
static void test_cost(void)
{
	double c[COST_TRIALS];

	for (int i = 0; i < COST_TRIALS; i++)
		c[i] = clock_cost_ns(COST_READS);
	qsort(c, COST_TRIALS, sizeof(c[0]), cmp_double);
	printf("# clock_cost_ns: median %.1f ns per clock_now_ns() (min %.1f, max %.1f; %d trials of %u reads); goal <= %.0f ns: %s\n",
	       c[COST_TRIALS / 2], c[0], c[COST_TRIALS - 1], COST_TRIALS, COST_READS, COST_GOAL_NS,
	       c[COST_TRIALS / 2] <= COST_GOAL_NS ? "met" : "NOT met on this machine");
	ok(c[0] > 0 && c[0] < 100000, "clock_cost_ns gives a plausible figure (%.1f ns)", c[0]);
	is_near(clock_cost_ns(0), 0, 0, "clock_cost_ns(0) is 0, not a division by zero");
}

int main(void)
{
	test_source();
	test_interval();
	test_monotonic();
	test_cost();
	return tap_done();
}
