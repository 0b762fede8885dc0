#include "lib/interval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void interval_stats_init(struct interval_stats *st, double floor_bps)
{
	memset(st, 0, sizeof(*st));
	st->min_bps = st->max_bps = NAN;
	st->min_at_s = st->max_at_s = NAN;
	st->min_width_s = st->max_width_s = NAN;
	st->floor_bps = floor_bps;
}

struct interval_obs interval_obs_make(double start_s, double end_s, double bytes, bool partial,
				      double grain_bytes)
{
	struct interval_obs o = { .start_s = start_s, .end_s = end_s, .partial = partial };
	double width = end_s - start_s;

	o.bps = width > 0 ? bytes / width : NAN;
	o.bound_bps = width > 0 ? (bytes + grain_bytes) / width : INFINITY;
	return o;
}

bool interval_below_floor(double floor_bps, const struct interval_obs *o)
{
	if (!(floor_bps > 0))
		return false;
	return o->partial ? o->bound_bps < floor_bps : o->bps < floor_bps;
}

/* A partial interval under the floor whose bound is not: its completions
 * cannot tell a slow link from a batch that had not come yet. */
bool interval_judgeable(double floor_bps, const struct interval_obs *o)
{
	return !(floor_bps > 0) || !o->partial || o->bps >= floor_bps || o->bound_bps < floor_bps;
}

/* A whole interval's figures: lowest, highest, the sums for the CV, width. */
static void stats_whole(struct interval_stats *st, const struct interval_obs *o)
{
	double width = o->end_s - o->start_s;

	if (st->whole == 0 || o->bps < st->min_bps) {
		st->min_bps = o->bps;
		st->min_at_s = o->start_s;
	}
	if (st->whole == 0 || o->bps > st->max_bps) {
		st->max_bps = o->bps;
		st->max_at_s = o->start_s;
	}
	if (st->whole == 0 || width < st->min_width_s)
		st->min_width_s = width;
	if (st->whole == 0 || width > st->max_width_s)
		st->max_width_s = width;
	st->whole++;
	st->sum += o->bps;
	st->sumsq += o->bps * o->bps;
}

static void stats_below(struct interval_stats *st, const struct interval_obs *o)
{
	if (st->below < INTERVAL_NAMED) {
		st->below_at_s[st->below] = o->start_s;
		st->below_end_s[st->below] = o->end_s;
	}
	st->below++;
}

void interval_stats_observe(struct interval_stats *st, const struct interval_obs *o)
{
	st->n++;
	if (o->partial)
		st->partial++;
	else
		stats_whole(st, o);
	if (!interval_judgeable(st->floor_bps, o))
		st->unjudged++;
	if (interval_below_floor(st->floor_bps, o))
		stats_below(st, o);
}

void interval_stats_add(struct interval_stats *st, double start_s, double end_s, double bps)
{
	struct interval_obs o = { .start_s = start_s, .end_s = end_s, .bps = bps };

	interval_stats_observe(st, &o);
}

double interval_stats_cv(const struct interval_stats *st)
{
	double mean, var;

	if (st->whole < 2)
		return NAN;
	mean = st->sum / (double)st->whole;
	var = (st->sumsq - (double)st->whole * mean * mean) / (double)(st->whole - 1);
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
