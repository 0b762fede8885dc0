/*
 * lib/cpuuse: --cpu_util's figures.  /proc/stat's line read as perftest
 * reads it (user: the second word, idle: the fifth), the window's
 * arithmetic, and a live mark around a busy loop held against the
 * kernel's other account of this process (/proc/self/stat's utime and
 * stime), not against cpuuse.c's own sums.
 */
#include "lib/cpuuse.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void test_parse(void)
{
	uint64_t u = 0, i = 0;

	ok(!cpu_stat_parse("cpu  4705 356 584 3699176 23 23 0 0 0 0\n", &u, &i) && u == 4705 &&
	   i == 3699176, "cpu  U N S I ...: user %llu (2nd word), idle %llu (5th), as perftest",
	   (unsigned long long)u, (unsigned long long)i);
	ok(cpu_stat_parse("cpu0 1 2 3 4\n", &u, &i) != 0, "a per-CPU line (cpu0) is not the host's");
	ok(cpu_stat_parse("cpu 1 2 3\n", &u, &i) != 0, "a short line is refused");
	ok(cpu_stat_parse("intr 1 2 3 4 5\n", &u, &i) != 0, "another line is refused");
}

static void test_between(void)
{
	struct cpu_mark a = { .wall_ns = 1000000000, .user_us = 100, .sys_us = 50, .stat_user = 10,
			      .stat_idle = 90, .stat_ok = true, .ok = true };
	struct cpu_mark b = { .wall_ns = 3000000000, .user_us = 1500100, .sys_us = 250050,
			      .stat_user = 40, .stat_idle = 150, .stat_ok = true, .ok = true };
	struct cpu_use u, t;

	cpu_use_between(&a, &b, &u);
	ok(u.ok && fabs(u.wall_s - 2) < 1e-12 && fabs(u.user_s - 1.5) < 1e-12 && fabs(u.sys_s - 0.25) < 1e-12,
	   "2 s window: 1.5 s user, 0.25 s system");
	ok(fabs(cpu_use_pct(&u, false) - 75) < 1e-9 && fabs(cpu_use_pct(&u, true) - 12.5) < 1e-9,
	   "user 75 %%, system 12.5 %% of the window");
	ok(fabs(cpu_use_util_pct(&u) - 100.0 * 30 / 90) < 1e-9,
	   "CPU_Util: 100 * 30 / (30 + 60) (perftest's calc_cpu_util)");
	t = u;
	t.wall_s = 1.9;
	cpu_use_add(&u, &t);
	ok(fabs(u.wall_s - 2) < 1e-12 && fabs(u.user_s - 3) < 1e-12 && fabs(cpu_use_pct(&u, false) - 150) < 1e-9 &&
	   fabs(cpu_use_util_pct(&u) - 100.0 * 30 / 90) < 1e-9,
	   "-j: two threads' times summed over the longer window (150 %%), the host's ticks once");
	b.stat_user = a.stat_user;
	b.stat_idle = a.stat_idle;
	cpu_use_between(&a, &b, &u);
	is_int((long long)cpu_use_util_pct(&u), 0, "no tick in the window: 0, as perftest");
	b.ok = false;
	cpu_use_between(&a, &b, &u);
	ok(!u.ok && isnan(cpu_use_pct(&u, false)), "an edge not read: NaN (the column empty)");
	memset(&u, 0, sizeof(u));
	ok(isnan(cpu_use_util_pct(&u)), "/proc/stat not read: NaN");
}

/* This process's utime + stime from /proc/self/stat, in seconds. */
static double proc_cpu_s(void)
{
	unsigned long ut = 0, st = 0;
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return NAN;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void test_live(void)
{
	struct cpu_mark a, b;
	struct cpu_use u;
	struct timespec t0, t;
	double k0 = proc_cpu_s(), k1, got;
	volatile unsigned long spin = 0;

	cpu_mark_read(&a);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			spin += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < 0.3);
	cpu_mark_read(&b);
	k1 = proc_cpu_s();
	cpu_use_between(&a, &b, &u);
	got = u.user_s + u.sys_s;
	printf("# a 0.3 s busy loop: %.3f s by getrusage(RUSAGE_THREAD), %.3f s by /proc/self/stat, window %.3f s\n",
	       got, k1 - k0, u.wall_s);
	ok(u.ok && a.stat_ok && b.stat_ok, "a live mark reads the thread's times and /proc/stat");
	ok(u.wall_s >= 0.3 && u.wall_s < 5, "the window: the loop's 0.3 s or a little more");
	/* ticks are 10 ms: the kernel's other count within 0.05 s */
	ok(!isnan(k1) && fabs(got - (k1 - k0)) < 0.05, "the thread's CPU matches /proc/self/stat's (%.3f vs %.3f s)",
	   got, k1 - k0);
	ok(cpu_use_pct(&u, false) + cpu_use_pct(&u, true) <= 100.5, "user + system at most the window");
	ok(cpu_use_util_pct(&u) >= 0 && cpu_use_util_pct(&u) <= 100, "CPU_Util within 0..100");
}

int main(void)
{
	test_parse();
	test_between();
	test_live();
	return tap_done();
}
