#include "interval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void interval_stats_init(struct interval_stats *st, double floor_bps)
{
	memset(st, 0, sizeof(*st));
	st->min_bps = st->max_bps = NAN;
	st->min_at_s = st->max_at_s = NAN;
	st->floor_bps = floor_bps;
}

void interval_stats_add(struct interval_stats *st, double start_s, double end_s, double bps)
{
	if (st->n == 0 || bps < st->min_bps) {
		st->min_bps = bps;
		st->min_at_s = start_s;
	}
	if (st->n == 0 || bps > st->max_bps) {
		st->max_bps = bps;
		st->max_at_s = start_s;
	}
	st->n++;
	st->sum += bps;
	st->sumsq += bps * bps;
	if (st->floor_bps > 0 && bps < st->floor_bps) {
		if (st->below < INTERVAL_NAMED) {
			st->below_at_s[st->below] = start_s;
			st->below_end_s[st->below] = end_s;
		}
		st->below++;
	}
}

double interval_stats_cv(const struct interval_stats *st)
{
	double mean, var;

	if (st->n < 2)
		return NAN;
	mean = st->sum / (double)st->n;
	var = (st->sumsq - (double)st->n * mean * mean) / (double)(st->n - 1);
	if (var < 0)
		var = 0;
	return mean > 0 ? sqrt(var) / mean : NAN;
}

const char *interval_stats_below(const struct interval_stats *st, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint64_t i = 0; i < st->below && i < INTERVAL_NAMED && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%.3f-%.3f s", i ? ", " : "",
					 st->below_at_s[i], st->below_end_s[i]);
	if (st->below > INTERVAL_NAMED && used < len)
		snprintf(buf + used, len - used, " (and %llu more)",
			 (unsigned long long)(st->below - INTERVAL_NAMED));
	return buf;
}
