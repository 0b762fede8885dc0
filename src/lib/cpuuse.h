/*
 * --cpu_util: what the CPU did over a measured window, two ways.
 *
 *   perftest's CPU_Util[%]: the first line of /proc/stat (every CPU of the
 *   host) read at the window's edges, user / (user + idle) of the change,
 *   as perftest's get_cpu_stats() and calc_cpu_util() compute it (its
 *   user is the line's second word, its idle the fifth: nice, system,
 *   iowait, irq and softirq count in neither).
 *   Ours: the measuring thread's own user and system time
 *   (getrusage(RUSAGE_THREAD)) over the same edges, as a share of the
 *   window; -j sums the threads' times.
 *
 * A mark is read at each edge (the measuring thread itself, engine/
 * window.c); cpu_use_between() is the difference.  Pure but for
 * cpu_mark_read().
 */
#ifndef RB_CPUUSE_H
#define RB_CPUUSE_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_mark {
	uint64_t wall_ns;               /* CLOCK_MONOTONIC */
	uint64_t user_us, sys_us;       /* the calling thread's, getrusage */
	uint64_t stat_user, stat_idle;  /* /proc/stat's first line, in ticks */
	bool stat_ok;                   /* /proc/stat was read */
	bool ok;                        /* the mark was taken */
};

/* Over a window: its seconds, the threads' CPU seconds, /proc/stat's ticks. */
struct cpu_use {
	double wall_s, user_s, sys_s;
	uint64_t stat_user, stat_idle;
	bool stat_ok;
	bool ok;
};

/* This thread's times and /proc/stat now (stat_ok false if unreadable). */
void cpu_mark_read(struct cpu_mark *m);
/* "cpu  U N S I ..." -> U and I, as perftest reads them; 0 or -EINVAL. */
int cpu_stat_parse(const char *line, uint64_t *user, uint64_t *idle);
/* b - a (ok false unless both were taken). */
void cpu_use_between(const struct cpu_mark *a, const struct cpu_mark *b, struct cpu_use *u);
/* Sum another thread's use into u (the window: the longest; the
 * host-wide ticks: the first kept). */
void cpu_use_add(struct cpu_use *u, const struct cpu_use *t);
/* perftest's CPU_Util[%]: 100 * user / (user + idle); 0 when both are 0
 * (as perftest), NaN when not read. */
double cpu_use_util_pct(const struct cpu_use *u);
/* The threads' user or system time as a % of the window (NaN: not read);
 * -j's sum may pass 100, as top's does. */
double cpu_use_pct(const struct cpu_use *u, bool sys);

#endif
