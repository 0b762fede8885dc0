/* A row's figures from a measure (report.h): bandwidth, latency, -b's
 * sums, -j's thread rows, --validate's and --load's columns. */
#include "report/internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "cli/load.h"
#include "engine/loops.h"
#include "lib/log.h"
#include "lib/pace.h"
#include "report/columns.h"

static void rx_columns(union out_val *row, uint64_t msgs, uint64_t bytes, double secs)
{
	double bps = secs > 0 ? (double)bytes / secs : NAN;

	row[BW_RX_ITERS].u = msgs;
	row[BW_RX_WINDOW].d = secs;
	row[BW_RX_AVG_MIB].d = bps / 1048576.0;
	row[BW_RX_AVG_GB].d = bps * 8 / 1e9;
	row[BW_RX_RATE].d = secs > 0 ? (double)msgs / secs / 1e6 : NAN;
}

void figures_bw(const struct rb_session *s, const struct rb_measure *m, union out_val *row)
{
	double secs = (double)(m->end_ns - m->start_ns) / 1e9;
	double bps = secs > 0 ? (double)m->bytes / secs : NAN;

	row[BW_SIZE].u = s->run.size;
	row[BW_ITERS].u = m->msgs;
	row[BW_BYTES].u = m->bytes;
	row[BW_WINDOW].d = secs;
	row[BW_PEAK_MIB].d = s->opt->no_peak ? NAN : m->peak_bps / 1048576.0;
	row[BW_AVG_MIB].d = bps / 1048576.0;
	row[BW_PEAK_GB].d = s->opt->no_peak ? NAN : m->peak_bps * 8 / 1e9;
	row[BW_AVG_GB].d = bps * 8 / 1e9;
	row[BW_RATE].d = secs > 0 ? (double)m->msgs / secs / 1e6 : NAN;
	row[BW_CQ_MOD].u = s->run.cq_mod;
	row[BW_WRS_PER_CQE].d = m->wrs_signaled ? (double)m->wrs_posted / (double)m->wrs_signaled : NAN;
	if (m->rx_measured)
		rx_columns(row, m->rx_msgs, m->rx_msgs * s->run.size,
			   (double)(m->rx_end_ns - m->rx_start_ns) / 1e9);
}

/* -b, one-sided verbs: what the peer did to this side is its own row's
 * count; then the sums (perftest: this side's rate plus the peer's). */
void report_bidir(const struct rb_session *s, union out_val *row, const union out_val *peer)
{
	if (!s->opt->bidir || s->bench->metric == METRIC_LAT)
		return;
	if (s->bench->verb != VERB_SEND)
		rx_columns(row, peer[BW_ITERS].u, peer[BW_BYTES].u, peer[BW_WINDOW].d);
	row[BW_SUM_ITERS].u = row[BW_ITERS].u + row[BW_RX_ITERS].u;
	row[BW_SUM_AVG_MIB].d = row[BW_AVG_MIB].d + row[BW_RX_AVG_MIB].d;
	row[BW_SUM_AVG_GB].d = row[BW_AVG_GB].d + row[BW_RX_AVG_GB].d;
	row[BW_SUM_RATE].d = row[BW_RATE].d + row[BW_RX_RATE].d;
}

/*
 * Latency summary from every sample (-n, and -D up to SAMPLES_MAX_DURATION
 * samples), or from the histogram (an interval's row, a -D run past the
 * bound): *method says which.
 */
static void lat_summary(const struct rb_session *s, struct rb_measure *m, struct stats_summary *st,
			enum pct_method *method)
{
	const struct rb_options *o = s->opt;
	double pcts[STATS_MAX_PCT + 1] = { 50 };
	double div = s->bench->lat_divisor;
	int n = 1;

	for (int i = 0; i < o->npct && n <= STATS_MAX_PCT - 1; i++)
		if (o->pcts[i] != 50)
			pcts[n++] = o->pcts[i];
	*method = m->samples.n && samples_complete(&m->samples) ? PCT_EXACT : PCT_HISTOGRAM;
	if (*method == PCT_EXACT) {
		stats_summarize(m->samples.v, m->samples.n, div, pcts, n, st);
		return;
	}
	memset(st, 0, sizeof(*st));
	st->count = histogram_count(m->hist);
	st->npct = n;
	st->min = st->count ? (double)histogram_min(m->hist) / div : NAN;
	st->max = st->count ? (double)histogram_max(m->hist) / div : NAN;
	st->mean = st->count ? histogram_mean(m->hist) / div : NAN;
	st->stdev = st->count ? histogram_stdev(m->hist) / div : NAN;
	for (int i = 0; i < n; i++) {
		st->pct_at[i] = pcts[i];
		st->pct[i] = st->count ? histogram_percentile(m->hist, pcts[i]) / div : NAN;
	}
}

void figures_lat(const struct report *r, const struct rb_session *s, struct rb_measure *m,
		 union out_val *row)
{
	struct stats_summary st;
	enum pct_method method;

	lat_summary(s, m, &st, &method);
	row[LAT_SIZE].u = s->run.size;
	row[LAT_ITERS].u = st.count;
	row[LAT_WINDOW].d = (double)(m->end_ns - m->start_ns) / 1e9;
	row[LAT_MIN].d = st.min / 1e3;
	row[LAT_MAX].d = st.max / 1e3;
	row[LAT_P50].d = st.pct[0] / 1e3;
	row[LAT_AVG].d = st.mean / 1e3;
	row[LAT_STDEV].d = st.stdev / 1e3;
	for (int i = LAT_FIXED; i < r->method_col; i++)
		row[i].d = st.pct[i - LAT_FIXED + 1] / 1e3;
	row[r->method_col].u = method;
}

/*
 * A sweep says each size it finished on stderr when nobody sees the rows
 * arrive (results in a file or a pipe) and stderr is a terminal, or with
 * --verbose; scripts reading stderr see nothing otherwise.
 */
static void sweep_progress(const struct rb_session *s)
{
	const struct rb_options *o = s->opt;
	bool rows_seen = isatty(STDOUT_FILENO) && !o->out_file;

	if (o->all && (o->verbose || (isatty(STDERR_FILENO) && !rows_seen)))
		log_info("-a: size %llu done", (unsigned long long)s->run.size);
}

uint64_t report_row_count(const union out_val *row)
{
	_Static_assert((int)BW_ITERS == (int)LAT_ITERS, "both tables count in the same column");
	return row[BW_ITERS].u;
}

double report_row_window(const struct rb_session *s, const union out_val *row)
{
	return row[s->bench->metric == METRIC_LAT ? LAT_WINDOW : BW_WINDOW].d;
}

void report_compute(const struct report *r, const struct rb_session *s,
		    struct rb_measure *m, union out_val *row)
{
	if (s->bench->metric == METRIC_LAT)
		figures_lat(r, s, m, row);
	else
		figures_bw(s, m, row);
	for (int i = 0; i < s->opt->counters.n; i++)
		row[r->ctr_first + i].u = m->ctr_delta[i];
	sweep_progress(s);
}

void report_cpu(const struct report *r, const struct rb_measure *m, union out_val *row)
{
	union out_val *c = row + r->cpu_first;

	if (r->cpu_first < 0)
		return;
	c[CPU_UTIL].d = cpu_use_util_pct(&m->cpu);
	c[CPU_USER].d = cpu_use_pct(&m->cpu, false);
	c[CPU_SYS].d = cpu_use_pct(&m->cpu, true);
}

void report_compute_thread(const struct report *r, const struct rb_worker *w, union out_val *row)
{
	figures_bw(w->s, &w->m, row);
	report_cpu(r, &w->m, row);
	row[r->thread_col].u = 0;	/* the name is set locally: no pointer on the wire */
	row[r->thread_col + 1].d = w->cpu_seen >= 0 ? w->cpu_seen : NAN;
}

/* --validate: this side's checks into its row, before the rows are traded. */
void report_validate(const struct report *r, const struct rb_session *s, union out_val *row)
{
	const struct rb_vresult *v = validate_result(s);
	union out_val *c = row + r->val_first;
	bool bad = v->errors != 0;

	if (r->val_first < 0)
		return;
	c[VAL_CHECKED].u = v->checked;
	c[VAL_ERRORS].u = v->errors;
	c[VAL_FIRST_MSG].d = bad ? (double)v->first_msg : NAN;
	c[VAL_FIRST_QP].d = bad ? v->first_qp : NAN;
	c[VAL_FIRST_OFF].d = bad ? (double)v->first_off : NAN;
}

/* After the trade: both sides' counts, and the first mismatch found. */
void report_validate_merge(const struct report *r, const struct rb_session *s, union out_val *row,
			   const union out_val *peer)
{
	const union out_val *p = peer + r->val_first;
	union out_val *c = row + r->val_first;

	if (r->val_first < 0)
		return;
	report_validate(r, s, row);
	if (!c[VAL_ERRORS].u && p[VAL_ERRORS].u)
		for (int i = VAL_FIRST_MSG; i < VAL_NCOLS; i++)
			c[i] = p[i];
	c[VAL_CHECKED].u += p[VAL_CHECKED].u;
	c[VAL_ERRORS].u += p[VAL_ERRORS].u;
}

/* Exit 1 (-EIO) when the checks found any message wrong, saying where. */
int report_validate_verdict(const struct report *r, const struct rb_session *s,
			    const union out_val *row)
{
	const union out_val *c = row + r->val_first;

	if (r->val_first < 0 || !c[VAL_ERRORS].u)
		return 0;
	log_err("--validate at size %llu: %llu of %llu messages checked had a wrong payload; the first: message %.0f of QP %.0f, byte %.0f (a DMA, ordering or memory fault on either side)",
		(unsigned long long)s->run.size, (unsigned long long)c[VAL_ERRORS].u,
		(unsigned long long)c[VAL_CHECKED].u, c[VAL_FIRST_MSG].d, c[VAL_FIRST_QP].d,
		c[VAL_FIRST_OFF].d);
	return -EIO;
}

/* The columns every side trades whether it measured or not. */
bool report_traded_always(const struct report *r, int i)
{
	if (r->load_first >= 0 && i >= r->load_first && i < r->load_first + LOADC_NCOLS)
		return true;
	if (r->mc_first >= 0 && i >= r->mc_first && i < r->mc_first + MC_NCOLS)
		return true;
	return r->val_first >= 0 && i >= r->val_first && i < r->val_first + VAL_NCOLS;
}

/* --load-compare: an idle row's percentiles kept, a loaded row's ratios to them. */
static void load_ratios(struct report *r, bool loaded, union out_val *row)
{
	union out_val *c = row + r->load_first + LOADC_COMPARE_NCOLS;

	for (int k = 0; k < r->load_nratio; k++) {
		double v = row[r->load_ratio_of[k]].d;

		c[k].d = loaded ? load_ratio(v, r->load_idle[k]) : NAN;
		if (!loaded)
			r->load_idle[k] = v;
	}
}

void report_load(struct report *r, const struct rb_session *s, const struct load_figures *f,
		 union out_val *row, const union out_val *peer)
{
	const struct rb_options *o = s->opt;
	union out_val *c = row + r->load_first;
	const union out_val *p = peer ? peer + r->load_first : NULL;

	if (r->load_first < 0)
		return;
	c[LOADC_NAME].s = load_bench_name(o->load_bench);
	c[LOADC_SIZE].u = o->load.size;
	c[LOADC_QPS].u = o->load.qps;
	c[LOADC_BW].d = s->is_client || !peer ? f->bw_mibps : p[LOADC_BW].d;
	c[LOADC_BYTES].d = s->is_client || !peer ? f->bytes : p[LOADC_BYTES].d;
	c[LOADC_MSGS].d = s->is_client || !peer ? f->msgs : p[LOADC_MSGS].d;
	c[LOADC_CPU].d = f->cpu >= 0 ? f->cpu : NAN;
	c[LOADC_RUN_S].d = s->is_client || !peer ? f->run_s : p[LOADC_RUN_S].d;
	c[LOADC_RUN_BYTES].d = s->is_client || !peer ? f->run_bytes : p[LOADC_RUN_BYTES].d;
	if (!o->load.compare || !peer)
		return;
	c[LOADC_PHASE].s = f->loaded ? "loaded" : "idle";
	load_ratios(r, f->loaded, row);
}

void report_pace_check(const struct rb_session *s, const struct rb_measure *m)
{
	const struct rb_options *o = s->opt;
	double secs = (double)(m->end_ns - m->start_ns) / 1e9, asked, got;

	if (!(o->rate_limit > 0) || o->rate_type != RT_SW || !m->measured || !m->msgs ||
	    s->bench->metric != METRIC_BW)
		return;
	asked = pace_pps(o->rate_limit, o->rate_units, s->run.size);
	got = pace_rate_of(PACE_PPS, m->msgs, s->run.size, secs);
	if (got < 0.9 * asked)
		log_warn("size %llu: paced at %.4g %s, %.0f %% of --rate_limit=%g (the device or the peer kept it lower)",
			 (unsigned long long)s->run.size,
			 pace_rate_of(o->rate_units, m->msgs, s->run.size, secs), pace_unit_name(o->rate_units),
			 100 * got / asked, o->rate_limit);
}

void report_pace(const struct report *r, const struct rb_session *s, const struct rb_measure *m,
		 union out_val *row)
{
	if (r->pace_col < 0)
		return;
	row[r->pace_col].d = m->measured ? pace_rate_of(s->opt->rate_units, m->msgs, s->run.size,
							(double)(m->end_ns - m->start_ns) / 1e9) : NAN;
}
