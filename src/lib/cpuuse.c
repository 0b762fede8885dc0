/* --cpu_util's figures (cpuuse.h). */
#include "lib/cpuuse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

int cpu_stat_parse(const char *line, uint64_t *user, uint64_t *idle)
{
	uint64_t nice, sys;
	char tag[8];

	if (sscanf(line, "%7s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, tag, user, &nice, &sys,
		   idle) != 5 || strcmp(tag, "cpu"))
		return -EINVAL;
	return 0;
}

static void stat_read(struct cpu_mark *m)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];

	m->stat_ok = f && fgets(line, sizeof(line), f) &&
		     !cpu_stat_parse(line, &m->stat_user, &m->stat_idle);
	if (f)
		fclose(f);
}

static uint64_t tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

void cpu_mark_read(struct cpu_mark *m)
{
	struct rusage ru;

	struct timespec ts;

	memset(m, 0, sizeof(*m));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	m->wall_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	stat_read(m);
	if (getrusage(RUSAGE_THREAD, &ru))
		return;
	m->user_us = tv_us(ru.ru_utime);
	m->sys_us = tv_us(ru.ru_stime);
	m->ok = true;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void cpu_use_between(const struct cpu_mark *a, const struct cpu_mark *b, struct cpu_use *u)
{
	memset(u, 0, sizeof(*u));
	u->ok = a->ok && b->ok;
	u->stat_ok = a->stat_ok && b->stat_ok;
	if (u->ok) {
		u->wall_s = (double)delta(a->wall_ns, b->wall_ns) / 1e9;
		u->user_s = (double)delta(a->user_us, b->user_us) / 1e6;
		u->sys_s = (double)delta(a->sys_us, b->sys_us) / 1e6;
	}
	if (u->stat_ok) {
		u->stat_user = delta(a->stat_user, b->stat_user);
		u->stat_idle = delta(a->stat_idle, b->stat_idle);
	}
}

void cpu_use_add(struct cpu_use *u, const struct cpu_use *t)
{
	if (t->ok) {
		u->wall_s = u->wall_s > t->wall_s ? u->wall_s : t->wall_s;
		u->user_s += t->user_s;
		u->sys_s += t->sys_s;
		u->ok = true;
	}
	if (t->stat_ok && !u->stat_ok) {
		u->stat_user = t->stat_user;
		u->stat_idle = t->stat_idle;
		u->stat_ok = true;
	}
}

double cpu_use_util_pct(const struct cpu_use *u)
{
	uint64_t all = u->stat_user + u->stat_idle;

	if (!u->stat_ok)
		return NAN;
	return all ? 100.0 * (double)u->stat_user / (double)all : 0;
}

double cpu_use_pct(const struct cpu_use *u, bool sys)
{
	if (!u->ok || !(u->wall_s > 0))
		return NAN;
	return 100.0 * (sys ? u->sys_s : u->user_s) / u->wall_s;
}
