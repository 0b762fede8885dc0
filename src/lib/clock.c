#include "lib/clock.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "lib/sysfs.h"

/*
 * Calibration: three readings of (counter, CLOCK_MONOTONIC) CAL_SPAN_NS
 * apart give two rates.  Each reading brackets a CLOCK_MONOTONIC read
 * between two counter reads (the narrowest of PAIR_TRIES), so its error is
 * at most half the bracket; a rate's error is bounded from those, and the
 * two rates must agree within their bounds.  CLOCK_MONOTONIC itself steps
 * by up to MONO_STEP_NS (HPET: 70 ns) whatever clock_getres() says.
 */
#define CAL_SPAN_NS (5 * 1000 * 1000ULL)
#define PAIR_TRIES 16
#define MONO_STEP_NS 100.0
#define CAL_MAX_ERR 5e-4            /* 0.05 %: the rate must be this good */
#define RATE_MIN_HZ 1e6
#define RATE_MAX_HZ 1e10
#define SYNC_SLACK_NS 1000.0       /* counters of two CPUs: at most 1 us apart */
#define DRIFT_MAX 1e-3              /* clock_check_drift(): 0.1 % */
#define DRIFT_MIN_SPAN_NS (100 * 1000 * 1000ULL)

#if defined(__x86_64__)
#define COUNTER_NAME "TSC"
#define COUNTER_CLOCKSOURCE "tsc"
#elif defined(__aarch64__)
#define COUNTER_NAME "CNTVCT_EL0"
#define COUNTER_CLOCKSOURCE "arch_sys_counter"
#else
#define COUNTER_NAME "none"
#define COUNTER_CLOCKSOURCE ""
#endif

struct clock_scale clock_scale;
int clock_counter_on;

static double counter_hz;
static bool chosen;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* One instant on both clocks: tick is the midpoint of the counter reads
 * around the CLOCK_MONOTONIC read ns; width is their distance in ticks. */
struct clock_pair {
	uint64_t tick, ns, width;
};

/* The counter, not read before earlier instructions finish (calibration
 * only: the hot path does without the fence, see clock_now_ns()). */
static inline uint64_t counter_ordered(void)
{
#if defined(__x86_64__)
	__builtin_ia32_lfence();
#elif defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#endif
	return clock_counter();
}

static struct clock_pair pair_read(void)
{
	struct clock_pair best = { .width = UINT64_MAX };

	for (int i = 0; i < PAIR_TRIES; i++) {
		uint64_t a = counter_ordered(), ns = clock_monotonic_ns(), b = counter_ordered();

		if (b >= a && b - a < best.width)
			best = (struct clock_pair){ a + (b - a) / 2, ns, b - a };
	}
	return best;
}

/* Ticks per ns from p to q, and the bound on its relative error. */
static double pair_rate(const struct clock_pair *p, const struct clock_pair *q, double *err)
{
	double ticks = (double)(q->tick - p->tick), ns = (double)(q->ns - p->ns);

	*err = (double)(p->width + q->width) / 2 / ticks + 2 * MONO_STEP_NS / ns;
	return ticks / ns;
}

static void sleep_until(uint64_t ns)
{
	uint64_t now;

	while ((now = clock_monotonic_ns()) < ns) {
		struct timespec left = { (time_t)((ns - now) / NSEC_PER_SEC), (long)((ns - now) % NSEC_PER_SEC) };

		nanosleep(&left, NULL);
	}
}

static bool pairs_ordered(const struct clock_pair *p, int n)
{
	for (int i = 1; i < n; i++)
		if (p[i].tick <= p[i - 1].tick || p[i].ns <= p[i - 1].ns)
			return false;
	return true;
}

/*
 * The counters of every CPU this thread may run on tell the same time
 * through sc: a thread that migrates must not see time jump.  The kernel
 * checks this too, but under emulation (qemu TCG) it refuses the TSC as
 * "unsynchronized" for counters that agree within a microsecond, so we
 * measure.  Pins the thread to each CPU in turn, then restores its mask.
 */
static int check_cpus(const struct clock_scale *sc, double hz, double err, char *why, size_t len)
{
	cpu_set_t mask, one;
	int rc = 0;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return 0;	/* cannot move: the CPU we are on is the one we use */
	for (int cpu = 0; cpu < CPU_SETSIZE && !rc; cpu++) {
		struct clock_pair p;
		double off, bound;

		if (!CPU_ISSET(cpu, &mask))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		p = pair_read();
		off = (double)(int64_t)(clock_scale_ns(sc, p.tick) - p.ns);
		bound = (double)p.width * 1e9 / 2 / hz + MONO_STEP_NS + SYNC_SLACK_NS +
			err * (double)(p.ns - sc->ns0);
		if (fabs(off) > bound) {
			snprintf(why, len, "the counter of CPU %d is %+.0f ns off the calibrated time (at most %.0f ns allowed)",
				 cpu, off, bound);
			rc = -1;
		}
	}
	sched_setaffinity(0, sizeof(mask), &mask);
	return rc;
}

/* Measure the counter's rate into sc.  0, or -1 with the reason in why. */
static int calibrate(struct clock_scale *sc, double *hz, char *why, size_t len)
{
	struct clock_pair p[3];
	double r01, r12, r02, e01, e12, e02;

	p[0] = pair_read();
	for (int i = 1; i < 3; i++) {
		sleep_until(p[i - 1].ns + CAL_SPAN_NS);
		p[i] = pair_read();
	}
	if (!pairs_ordered(p, 3)) {
		snprintf(why, len, "the counter does not advance with CLOCK_MONOTONIC");
		return -1;
	}
	r01 = pair_rate(&p[0], &p[1], &e01);
	r12 = pair_rate(&p[1], &p[2], &e12);
	r02 = pair_rate(&p[0], &p[2], &e02);
	*hz = r02 * 1e9;
	if (*hz < RATE_MIN_HZ || *hz > RATE_MAX_HZ) {
		snprintf(why, len, "implausible rate %.6g Hz", *hz);
		return -1;
	}
	if (fabs(r01 - r12) / r02 > e01 + e12) {
		snprintf(why, len, "two %.0f ms calibrations disagree by %.4f %% (their error bound: %.4f %%)",
			 CAL_SPAN_NS / 1e6, 100 * fabs(r01 - r12) / r02, 100 * (e01 + e12));
		return -1;
	}
	if (e02 > CAL_MAX_ERR) {
		snprintf(why, len, "calibration too noisy (error bound %.4f %%, at most %.4f %% wanted)",
			 100 * e02, 100 * CAL_MAX_ERR);
		return -1;
	}
	*sc = (struct clock_scale){ .tick0 = p[2].tick, .ns0 = p[2].ns,
				    .mult = (uint64_t)llround(4294967296.0 / r02) };
	if (check_cpus(sc, *hz, e02, why, len))
		return -1;
	log_verbose("clock: %s at %.6f MHz (two %.0f ms calibrations agree within %.4f %%, error bound %.4f %%)",
		    COUNTER_NAME, *hz / 1e6, CAL_SPAN_NS / 1e6, 100 * fabs(r01 - r12) / r02, 100 * e02);
	return 0;
}

/* Whether /proc/cpuinfo's first "flags" line lists each of the words. */
static bool cpu_flags(const char *const *words, int n)
{
	char line[8192];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "flags", 5);
	fclose(f);
	for (int i = 0; found && i < n; i++) {
		const char *w = words[i];
		size_t l = strlen(w);
		const char *at = line;

		while ((at = strstr(at, w)) && !(at[-1] == ' ' && (at[l] == ' ' || at[l] == '\n')))
			at += l;
		found = at != NULL;
	}
	return found;
}

/*
 * x86 on bare metal: a TSC without constant_tsc changes rate with the CPU
 * frequency, one without nonstop_tsc stops in deep idle states; a short
 * calibration cannot see either.  In a VM (the hypervisor flag) those flags
 * say nothing: qemu's CPU models hide them although TCG's TSC is the
 * host's, so there the calibration and the check of every CPU decide.
 */
static bool tsc_flags_ok(void)
{
#if defined(__x86_64__)
	static const char *const stable[] = { "constant_tsc", "nonstop_tsc" };
	static const char *const vm[] = { "hypervisor" };

	return cpu_flags(stable, 2) || cpu_flags(vm, 1);
#else
	return true;
#endif
}

/* With policy auto: why the counter is not worth it here, or NULL. */
static const char *auto_refusal(char *buf, size_t len)
{
	char cs[64];

	if (!CLOCK_HAVE_COUNTER)
		return "no cycle counter known on this architecture";
	if (!tsc_flags_ok())
		return "the CPU does not say its TSC is constant and nonstop (no constant_tsc, nonstop_tsc)";
	if (!sysfs_read("", "/sys/devices/system/clocksource/clocksource0/current_clocksource", cs, sizeof(cs)) &&
	    !strcmp(cs, COUNTER_CLOCKSOURCE)) {
		snprintf(buf, len, "the kernel's clocksource is %s: clock_gettime reads it cheaply", cs);
		return buf;
	}
	return NULL;
}

static void use_monotonic(void)
{
	__atomic_store_n(&clock_counter_on, 0, __ATOMIC_RELEASE);
	counter_hz = 0;
}

static void clock_init_locked(enum clock_policy policy)
{
	char buf[160], why[160];
	const char *refusal = NULL;
	struct clock_scale sc;
	double hz;

	use_monotonic();
	chosen = true;
	if (policy == CLK_MONOTONIC)
		return;
	if (policy == CLK_AUTO)
		refusal = auto_refusal(buf, sizeof(buf));
	else if (!CLOCK_HAVE_COUNTER)
		refusal = "no cycle counter known on this architecture";
	if (!refusal && calibrate(&sc, &hz, why, sizeof(why)))
		refusal = why;
	if (refusal) {
		if (policy == CLK_TSC)
			log_warn("--clock=tsc: %s; using CLOCK_MONOTONIC", refusal);
		else
			log_verbose("clock: CLOCK_MONOTONIC (%s)", refusal);
		return;
	}
	clock_scale = sc;
	counter_hz = hz;
	__atomic_store_n(&clock_counter_on, 1, __ATOMIC_RELEASE);
}

void clock_init(enum clock_policy policy)
{
	pthread_mutex_lock(&init_lock);
	clock_init_locked(policy);
	pthread_mutex_unlock(&init_lock);
}

void clock_init_once(enum clock_policy policy)
{
	pthread_mutex_lock(&init_lock);
	if (!chosen)
		clock_init_locked(policy);
	pthread_mutex_unlock(&init_lock);
}

double clock_drift(void)
{
	struct clock_pair p;

	if (!__atomic_load_n(&clock_counter_on, __ATOMIC_ACQUIRE))
		return 0;
	p = pair_read();
	if (p.ns <= clock_scale.ns0)
		return 0;
	return ((double)clock_scale_ns(&clock_scale, p.tick) - (double)p.ns) / (double)(p.ns - clock_scale.ns0);
}

void clock_check_drift(void)
{
	double d = clock_drift();

	if (fabs(d) > DRIFT_MAX && clock_monotonic_ns() - clock_scale.ns0 >= DRIFT_MIN_SPAN_NS)
		log_warn("the %s ran %.3f %% %s than CLOCK_MONOTONIC since calibration: durations are off by that much (try --clock=monotonic)",
			 COUNTER_NAME, 100 * fabs(d), d > 0 ? "faster" : "slower");
}

int clock_policy_parse(const char *name, enum clock_policy *p)
{
	static const char *const names[] = { [CLK_AUTO] = "auto", [CLK_TSC] = "tsc",
					     [CLK_MONOTONIC] = "monotonic" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i])) {
			*p = (enum clock_policy)i;
			return 0;
		}
	return -1;
}

const char *clock_source(void)
{
	return __atomic_load_n(&clock_counter_on, __ATOMIC_ACQUIRE) ? COUNTER_NAME : "CLOCK_MONOTONIC";
}

double clock_counter_hz(void) { return counter_hz; }

double clock_resolution_ns(void)
{
	struct timespec ts;

	if (counter_hz > 0)
		return counter_hz >= 1e9 ? 1 : 1e9 / counter_hz;
	if (clock_getres(CLOCK_MONOTONIC, &ts))
		return 0;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double clock_cost_ns(unsigned n)
{
	volatile uint64_t sink = 0;
	uint64_t start = clock_monotonic_ns();

	for (unsigned i = 0; i < n; i++)
		sink += clock_now_ns();
	(void)sink;
	return n ? (double)(clock_monotonic_ns() - start) / n : 0;
}
