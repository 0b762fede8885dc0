#include "cli/load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const load_names[] = {
	[LOAD_NONE] = "none", [LOAD_SEND_BW] = "send_bw",
	[LOAD_WRITE_BW] = "write_bw", [LOAD_READ_BW] = "read_bw",
};

#define N_LOAD_NAMES ((int)(sizeof(load_names) / sizeof(load_names[0])))

int load_bench_parse(const char *name)
{
	if (!strncmp(name, "rb_", 3))
		name += 3;
	for (int i = LOAD_SEND_BW; i < N_LOAD_NAMES; i++)
		if (!strcmp(name, load_names[i]))
			return i;
	return -1;
}

const char *load_bench_name(enum load_bench b)
{
	return (int)b >= 0 && (int)b < N_LOAD_NAMES ? load_names[b] : "?";
}

/* The options that only mean something with --load. */
static const char *load_orphan(const struct load_ask *a)
{
	if (a->size_given)
		return "--load-size";
	if (a->qps_given)
		return "--load-qps";
	return a->compare ? "--load-compare" : NULL;
}

int load_check(const struct load_ask *a, bool latency, uint64_t max_size, uint64_t max_qps,
	       char *why, size_t len)
{
	const char *orphan = load_orphan(a);

	if (!a->bench_text && orphan)
		snprintf(why, len, "%s needs --load (e.g. --load=write_bw)", orphan);
	else if (!a->bench_text)
		return 0;
	else if (load_bench_parse(a->bench_text) < 0)
		snprintf(why, len, "--load: unknown load benchmark '%s' (one of send_bw, write_bw, read_bw)",
			 a->bench_text);
	else if (!latency)
		snprintf(why, len, "--load runs under a latency benchmark only (e.g. rb_send_lat --load=%s)",
			 a->bench_text);
	else if (a->size < 1 || a->size > max_size)
		snprintf(why, len, "--load-size %llu is out of range (1..%llu bytes)",
			 (unsigned long long)a->size, (unsigned long long)max_size);
	else if (a->qps < 1 || a->qps > max_qps)
		snprintf(why, len, "--load-qps %llu is out of range (1..%llu)",
			 (unsigned long long)a->qps, (unsigned long long)max_qps);
	else
		return 0;
	return -EINVAL;
}

bool load_compare_loaded(unsigned rep)
{
	return rep % 2 == 1;
}

double load_ratio(double loaded, double idle)
{
	if (!(loaded > 0) || !(idle > 0) || isinf(loaded) || isinf(idle))
		return NAN;
	return loaded / idle;
}

static uint64_t overlap_ns(const struct load_ivl *v, uint64_t start_ns, uint64_t end_ns)
{
	uint64_t a = v->start_ns > start_ns ? v->start_ns : start_ns;
	uint64_t b = v->end_ns < end_ns ? v->end_ns : end_ns;

	return b > a ? b - a : 0;
}

double load_window_bytes(const struct load_ivl *iv, int n, uint64_t start_ns, uint64_t end_ns)
{
	double bytes = 0;

	for (int i = 0; i < n; i++) {
		uint64_t span = iv[i].end_ns - iv[i].start_ns;

		if (iv[i].end_ns <= iv[i].start_ns)
			continue;
		bytes += (double)iv[i].bytes * (double)overlap_ns(&iv[i], start_ns, end_ns) / (double)span;
	}
	return bytes;
}

double load_run_bytes(const struct load_ivl *iv, int n)
{
	double bytes = 0;

	for (int i = 0; i < n; i++)
		bytes += (double)iv[i].bytes;
	return bytes;
}
