/* The results document: open it, print its rows, close it (report.h). */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/loops.h"
#include "lib/log.h"
#include "report/columns.h"
#include "report/internal.h"

/* What a report holds beside its columns: no interval yet, no idle
 * repetition yet. */
static void report_reset(struct report *r, const struct rb_options *o)
{
	interval_stats_init(&r->ivl, o->min_bw_bps);
	for (int i = 0; i < STATS_MAX_PCT; i++)
		r->load_idle[i] = NAN;
}

void report_define(struct report *r, const struct rb_session *s)
{
	memset(r, 0, sizeof(*r));
	report_columns(r, s->opt, s->bench->metric);
	report_reset(r, s->opt);
}

int report_open(struct report *r, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;

	memset(r, 0, sizeof(*r));
	r->file = stdout;
	if (o->out_file) {
		r->file = fopen(o->out_file, "w");
		if (!r->file) {
			log_err("cannot write the results file %s: %s", o->out_file, strerror(errno));
			return -errno;
		}
	}
	r->out = out_open(o->format, r->file);
	if (!r->out) {
		if (r->file != stdout)
			fclose(r->file);
		return -ENOMEM;
	}
	report_columns(r, o, s->bench->metric);
	report_reset(r, o);
	if (ptjson_check(o)) {
		report_close(r, "failed", "cannot write the --out_json file");
		return -EIO;
	}
	if (o->format == OUT_CSV && report_sidecar(r->out, o->out_file)) {
		report_close(r, "failed", "cannot write the metadata file");
		return -EIO;
	}
	return 0;
}

/* Human: the table has no method column; a row whose percentiles are the
 * histogram's says so under it. */
static void report_histogram_note(struct report *r, const union out_val *row)
{
	char line[256];

	snprintf(line, sizeof(line),
		 "Size %llu: not all of its %llu samples could be kept (at most %zu): its percentiles are histogram bucket upper bounds, within 0.8 %%",
		 (unsigned long long)row[LAT_SIZE].u, (unsigned long long)row[LAT_ITERS].u,
		 SAMPLES_MAX_DURATION);
	out_note(r->out, line);
}

void report_row(struct report *r, const union out_val *row)
{
	union out_val shown[REPORT_MAX_COLS];

	for (int i = 0; i < r->ncols; i++)
		shown[i] = report_cell_text(r, r->shown[i], row[r->shown[i]]);
	if (r->pt_blank >= 0)
		shown[r->pt_blank].d = NAN;
	if (r->pt_tps >= 0)
		shown[r->pt_tps].d = row[LAT_WINDOW].d > 0 ? (double)row[LAT_ITERS].u / row[LAT_WINDOW].d : NAN;
	out_row(r->out, shown);
	ptjson_row(r, row);
	if (r->method_col >= 0 && row[r->method_col].u != PCT_EXACT)
		report_histogram_note(r, row);
}

void report_row_threads(struct report *r, union out_val *row,
			union out_val (*trows)[REPORT_MAX_COLS], const struct rb_team *T, bool rows)
{
	int n = T->n;
	union out_val shown[REPORT_MAX_COLS], *parts = calloc((size_t)n, sizeof(shown));

	row[r->thread_col].s = "all";
	row[r->thread_col + 1].d = NAN;
	for (int k = 0; k < n; k++)
		trows[k][r->thread_col].s = T->w[k].label;
	if (!parts) {
		report_row(r, row);
		return;
	}
	for (int i = 0; i < r->ncols; i++)
		shown[i] = row[r->shown[i]];
	for (int k = 0; k < n; k++)
		for (int i = 0; i < r->ncols; i++)
			parts[(size_t)k * REPORT_MAX_COLS + (size_t)i] = trows[k][r->shown[i]];
	out_row_parts(r->out, shown, "threads", parts, n, REPORT_MAX_COLS, r->shown_ctr_first, rows);
	ptjson_row(r, row);
	free(parts);
}

void report_close(struct report *r, const char *status, const char *error)
{
	ptjson_end(r);
	if (!r->out)
		return;
	out_end(r->out, status, error);
	r->out = NULL;
	if (r->file && r->file != stdout)
		fclose(r->file);
	r->file = NULL;
}

void report_finish(struct report *r, const struct rb_session *s, const char *status,
		   const char *error)
{
	if (r->out && !r->begun && s->opt->format != OUT_HUMAN) {
		report_meta_unbegun(r, s);
		out_begin(r->out, s->bench->title, NULL, 0);
	}
	report_close(r, status, error);
}
