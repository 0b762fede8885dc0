#include "clock.h"

const char *clock_source(void) { return "CLOCK_MONOTONIC"; }

double clock_resolution_ns(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts))
		return 0;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double clock_cost_ns(unsigned n)
{
	volatile uint64_t sink = 0;
	uint64_t start = clock_now_ns();

	for (unsigned i = 0; i < n; i++)
		sink += clock_now_ns();
	(void)sink;
	return n ? (double)(clock_now_ns() - start) / n : 0;
}
