/* --interval: each interval's row, streamed, and the whole-run row's
 * summary of them (report.h). */
#include "report/internal.h"

#include <math.h>
#include <string.h>

#include "engine/loops.h"
#include "lib/log.h"
#include "report/columns.h"

/* The interval columns: kind and offsets, the summary's figures NaN. */
static void ivl_fill(const struct report *r, union out_val *row, const char *kind, double t0,
		     double t1)
{
	union out_val *v = row + r->ivl_first;

	for (int i = r->ivl_first; i < r->nall; i++)
		row[i].d = NAN;
	v[IVL_KIND].s = kind;
	v[IVL_START].d = t0;
	v[IVL_END].d = t1;
	v[IVL_COUNT].u = 0;
	if (r->nall - r->ivl_first > IVL_BELOW)
		v[IVL_BELOW].u = 0;
}

/*
 * One interval into the run's figures.  A partial one's bound: the rate
 * with one more completion batch on each QP (-Q messages each; see
 * interval.h), the most its completions can hide.
 */
static void ivl_observe(struct report *r, const struct rb_session *s, const struct rb_measure *im,
			double t0, double t1)
{
	double grain = (double)s->conn.q.n * (double)(s->run.cq_mod ? s->run.cq_mod : 1) * (double)s->run.size;
	struct interval_obs o;

	if (s->bench->metric == METRIC_LAT) {
		r->ivl.n++;
		r->ivl.partial += im->partial;
		return;
	}
	o = interval_obs_make(t0, t1, (double)im->bytes, im->partial, grain);
	interval_stats_observe(&r->ivl, &o);
}

void report_interval(struct report *r, const struct rb_session *s, struct rb_measure *im,
		     uint64_t origin_ns, const uint64_t *ctr_delta)
{
	union out_val row[REPORT_MAX_COLS] = { 0 }, shown[REPORT_MAX_COLS];
	double t0 = (double)(im->start_ns - origin_ns) / 1e9, t1 = (double)(im->end_ns - origin_ns) / 1e9;

	if (s->bench->metric == METRIC_LAT)
		figures_lat(r, s, im, row);
	else
		figures_bw(s, im, row);
	/* -b: the peer's half and the sums are not known per interval */
	for (int i = BW_NCOLS; s->opt->bidir && s->bench->metric != METRIC_LAT && i < BW_BIDIR_NCOLS; i++)
		if (r->all[i].type == OUT_DOUBLE && !(im->rx_measured && i <= BW_RX_RATE))
			row[i].d = NAN;
	for (int i = 0; i < s->opt->counters.n; i++)
		row[r->ctr_first + i].u = ctr_delta[i];
	for (int i = 0; r->cpu_first >= 0 && i < CPU_NCOLS; i++)
		row[r->cpu_first + i].d = NAN;	/* read at the window's edges only */
	report_pace(r, s, im, row);
	ivl_fill(r, row, "interval", t0, t1);
	row[r->ivl_first + IVL_PARTIAL].d = im->partial;
	ivl_observe(r, s, im, t0, t1);
	row[r->ivl_first + IVL_COUNT].u = r->ivl.n;
	for (int i = 0; i < r->ncols; i++)
		shown[i] = report_cell_text(r, r->shown[i], row[r->shown[i]]);
	out_sub_row(r->out, "intervals", shown);
}

/* "12 of 0.05 s asked (11 whole, 0.050-0.061 s wide; 1 partial)" */
static void ivl_note_count(const struct interval_stats *st, const struct rb_session *s, char *buf,
			   size_t len)
{
	int n = snprintf(buf, len, "Intervals: %llu of %g s asked", (unsigned long long)st->n,
			 s->opt->interval_s);

	if (n < 0 || (size_t)n >= len || s->bench->metric == METRIC_LAT) {
		if (s->bench->metric == METRIC_LAT && st->partial && n > 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, " (the last partial)");
		return;
	}
	if (st->whole)
		n += snprintf(buf + n, len - (size_t)n, " (%llu whole, %.3f-%.3f s wide",
			      (unsigned long long)st->whole, st->min_width_s, st->max_width_s);
	else
		n += snprintf(buf + n, len - (size_t)n, " (none whole");
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s)", st->partial ? "; the last partial" : "");
}

/* "; below --min-bw 10Gb/s: none (the partial one too short to judge)" */
static void ivl_note_floor(const struct interval_stats *st, const struct rb_session *s, char *buf,
			   size_t len)
{
	char names[400];

	snprintf(buf, len, "; below --min-bw %s: %s%s", s->opt->min_bw_text,
		 st->below ? interval_stats_below(st, names, sizeof(names)) : "none",
		 st->unjudged ? " (the partial one too short to judge)" : "");
}

/* Human: what the intervals showed, under the rows. */
static void ivl_note(struct report *r, const struct rb_session *s)
{
	const struct interval_stats *st = &r->ivl;
	char line[768];
	size_t n;

	ivl_note_count(st, s, line, sizeof(line));
	if (s->bench->metric != METRIC_LAT) {
		n = strlen(line);
		snprintf(line + n, sizeof(line) - n, "; lowest %.2f MiB/s at %.3f s, highest %.2f MiB/s at %.3f s, CV %.4f",
			 st->min_bps / 1048576.0, st->min_at_s, st->max_bps / 1048576.0, st->max_at_s,
			 interval_stats_cv(st));
		n = strlen(line);
		if (s->opt->min_bw_text)
			ivl_note_floor(st, s, line + n, sizeof(line) - n);
	}
	out_note(r->out, line);
}

/*
 * An interval ends at the loop's first look at the clock past its
 * boundary, once per pass (a burst of posts, then the completions): where
 * a pass lasts longer than the interval, the rows are wider than asked.
 * Their widths are in the rows; this says so, and what makes them finer.
 */
static void ivl_coarse_warn(const struct interval_stats *st, const struct rb_session *s)
{
	if (!st->whole || !(st->max_width_s > 2 * s->opt->interval_s))
		return;
	log_warn("size %llu: intervals up to %.3f s wide for --interval=%g (each ends at the loop's first look at the clock past its boundary, once per burst of posts and completions of -Q %u messages); a smaller -t or -Q gives finer ones",
		 (unsigned long long)s->run.size, st->max_width_s, s->opt->interval_s, s->run.cq_mod);
}

void report_interval_total(struct report *r, const struct rb_session *s, union out_val *row)
{
	const struct interval_stats *st = &r->ivl;
	union out_val *v = row + r->ivl_first;
	char names[400];

	if (r->ivl_first == r->nall)
		return;
	ivl_fill(r, row, "total", 0, row[s->bench->metric == METRIC_LAT ? LAT_WINDOW : BW_WINDOW].d);
	v[IVL_COUNT].u = st->n;
	if (s->bench->metric != METRIC_LAT) {
		v[IVL_MIN].d = st->min_bps / 1048576.0;
		v[IVL_MIN_AT].d = st->min_at_s;
		v[IVL_MAX].d = st->max_bps / 1048576.0;
		v[IVL_MAX_AT].d = st->max_at_s;
		v[IVL_CV].d = interval_stats_cv(st);
		v[IVL_BELOW].u = st->below;
	}
	ivl_coarse_warn(st, s);
	if (st->below)
		log_err("size %llu: %llu interval(s) below --min-bw %s: %s",
			(unsigned long long)s->run.size, (unsigned long long)st->below, s->opt->min_bw_text,
			interval_stats_below(st, names, sizeof(names)));
	r->ivl_below += st->below;
}

/* After the total row: the human line, then the next size starts afresh. */
void report_interval_done(struct report *r, const struct rb_session *s)
{
	if (r->ivl_first == r->nall)
		return;
	if (r->ivl.n)
		ivl_note(r, s);
	interval_stats_init(&r->ivl, s->opt->min_bw_bps);
}
