/*
 * The suite's one clock, in nanoseconds on CLOCK_MONOTONIC's scale.
 *
 * Where clock_gettime() is slow (a kernel clocksource other than the TSC: a
 * VM on HPET pays a system call and an emulated device read, ~1.2 us, on
 * every read), clock_now_ns() reads the CPU's counter instead (x86-64: TSC,
 * aarch64: CNTVCT_EL0) and converts it with a rate that clock_init()
 * measured against CLOCK_MONOTONIC.  The conversion is anchored on a
 * CLOCK_MONOTONIC reading, so both give the same time (within a
 * microsecond) and code that runs before clock_init() is not wrong, only
 * slower.  A rate that two calibrations do not agree on is never used
 * (perftest's fit fails under emulation and prints 0.00 MB/s).
 */
#ifndef RB_CLOCK_H
#define RB_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL

/* --clock: auto (the counter where clock_gettime is slow and the counter
 * passes calibration), tsc (the counter whenever it passes), monotonic. */
enum clock_policy { CLK_AUTO, CLK_TSC, CLK_MONOTONIC };

#if defined(__x86_64__)
#define CLOCK_HAVE_COUNTER 1
static inline uint64_t clock_counter(void) { return __builtin_ia32_rdtsc(); }
#elif defined(__aarch64__)
#define CLOCK_HAVE_COUNTER 1
static inline uint64_t clock_counter(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
#else
#define CLOCK_HAVE_COUNTER 0
static inline uint64_t clock_counter(void) { return 0; }
#endif

/* ns = ns0 + (counter - tick0) * mult / 2^32; written by clock_init() before
 * clock_counter_on is set (release), read after it (acquire). */
struct clock_scale {
	uint64_t tick0, ns0, mult;
};

extern struct clock_scale clock_scale;
extern int clock_counter_on;

static inline uint64_t clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_scale_ns(const struct clock_scale *sc, uint64_t tick)
{
	uint64_t d = tick - sc->tick0;

	return sc->ns0 + (uint64_t)(((unsigned __int128)d * sc->mult) >> 32);
}

/* No fence before rdtsc: a sample may start or end ~10 ns early, which
 * does not matter at microseconds, and lfence;rdtsc costs 26-30 ns against
 * 18-21 ns on our x86 build host (the same ~50 ns under qemu TCG). */
static inline uint64_t clock_now_ns(void)
{
	if (CLOCK_HAVE_COUNTER && __atomic_load_n(&clock_counter_on, __ATOMIC_ACQUIRE))
		return clock_scale_ns(&clock_scale, clock_counter());
	return clock_monotonic_ns();
}

/* Choose the clock by policy (calibrating the counter: ~10 ms).  May be
 * called again (tests do); never fails: the fallback is CLOCK_MONOTONIC,
 * said on stderr with --verbose, or always when policy is CLK_TSC. */
void clock_init(enum clock_policy policy);
/* clock_init() unless a clock was already chosen; safe from any thread. */
void clock_init_once(enum clock_policy policy);
/* Compare the counter with CLOCK_MONOTONIC over the time since clock_init():
 * their difference relative to that span (0 on CLOCK_MONOTONIC).  A
 * counter that changed its rate after calibration shows here. */
double clock_drift(void);
/* Warn on stderr when clock_drift() exceeds 0.1 % over 100 ms or more. */
void clock_check_drift(void);

/* "auto", "tsc", "monotonic" → 0, or -1. */
int clock_policy_parse(const char *name, enum clock_policy *p);
/* Name of the clock, for the report ("CLOCK_MONOTONIC", "TSC"). */
const char *clock_source(void);
/* Counter rate in Hz, 0 on CLOCK_MONOTONIC. */
double clock_counter_hz(void);
/* Resolution of the clock in ns. */
double clock_resolution_ns(void);
/* Mean cost of one clock_now_ns() call in ns, measured over n reads. */
double clock_cost_ns(unsigned n);

#endif
