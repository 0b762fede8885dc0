/* The columns of every row (columns.h): their keys, labels, units and
 * which format shows them. */
#include "report/columns.h"

#include <string.h>

#include "cli/load.h"
#include "lib/stats.h"

/* Which columns the human table shows: perftest's, in the unit asked for. */
enum show { SHOW_ALL, SHOW_MACHINE, SHOW_MIB, SHOW_GBIT };

struct col_def {
	const char *key, *label;
	enum out_type type;
	int human_precision;
	enum show show;
};

static const struct col_def bw_cols[] = {
	{ "size_bytes", "#bytes", OUT_U64, 0, SHOW_ALL },
	{ "iterations", "#iterations", OUT_U64, 0, SHOW_ALL },
	{ "bytes", "bytes", OUT_U64, 0, SHOW_MACHINE },
	{ "window_s", "window[s]", OUT_DOUBLE, 6, SHOW_MACHINE },
	{ "bw_peak_mibps", "BW peak[MiB/sec]", OUT_DOUBLE, 2, SHOW_MIB },
	{ "bw_avg_mibps", "BW average[MiB/sec]", OUT_DOUBLE, 2, SHOW_MIB },
	{ "bw_peak_gbps", "BW peak[Gb/sec]", OUT_DOUBLE, 2, SHOW_GBIT },
	{ "bw_avg_gbps", "BW average[Gb/sec]", OUT_DOUBLE, 2, SHOW_GBIT },
	{ "msg_rate_mpps", "MsgRate[Mpps]", OUT_DOUBLE, 6, SHOW_ALL },
	{ "cq_mod", "CQ mod", OUT_U64, 0, SHOW_MACHINE },
	{ "wrs_per_cqe", "WRs/CQE", OUT_DOUBLE, 2, SHOW_MACHINE },
	/* -b: the columns above count this side's operations (tx); rx counts
	 * the peer's (sends: the messages received here), sum both, as
	 * perftest's bidirectional figure (its rate plus the peer's). */
	{ "rx_iterations", "#rx iterations", OUT_U64, 0, SHOW_MACHINE },
	{ "rx_window_s", "rx window[s]", OUT_DOUBLE, 6, SHOW_MACHINE },
	{ "bw_rx_avg_mibps", "BW rx average[MiB/sec]", OUT_DOUBLE, 2, SHOW_MIB },
	{ "bw_rx_avg_gbps", "BW rx average[Gb/sec]", OUT_DOUBLE, 2, SHOW_GBIT },
	{ "msg_rate_rx_mpps", "MsgRate rx[Mpps]", OUT_DOUBLE, 6, SHOW_MACHINE },
	{ "sum_iterations", "#sum iterations", OUT_U64, 0, SHOW_MACHINE },
	{ "bw_sum_avg_mibps", "BW sum average[MiB/sec]", OUT_DOUBLE, 2, SHOW_MIB },
	{ "bw_sum_avg_gbps", "BW sum average[Gb/sec]", OUT_DOUBLE, 2, SHOW_GBIT },
	{ "msg_rate_sum_mpps", "MsgRate sum[Mpps]", OUT_DOUBLE, 6, SHOW_ALL },
};

static const struct col_def lat_cols[] = {
	{ "size_bytes", "#bytes", OUT_U64, 0, SHOW_ALL },
	{ "iterations", "#iterations", OUT_U64, 0, SHOW_ALL },
	{ "window_s", "window[s]", OUT_DOUBLE, 6, SHOW_MACHINE },
	{ "lat_min_us", "t_min[usec]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "lat_max_us", "t_max[usec]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "lat_p50_us", "t_typical[usec]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "lat_avg_us", "t_avg[usec]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "lat_stdev_us", "t_stdev[usec]", OUT_DOUBLE, 2, SHOW_ALL },
};


/*
 * Latency, after the percentile columns: how the row's percentiles were
 * found.  Traded (wire, rb_mpi) as its code in .u; a string only where a
 * row is printed (report_cell_text).
 */
static const struct col_def method_col = {
	"lat_pct_method", "percentiles", OUT_STR, 0, SHOW_MACHINE
};

static const char *const pct_method_names[] = {
	[PCT_EXACT] = "exact",
	[PCT_HISTOGRAM] = "histogram",
};

const char *report_pct_method_name(uint64_t code)
{
	return code < sizeof(pct_method_names) / sizeof(pct_method_names[0]) ?
	       pct_method_names[code] : "unknown";
}

/* What a printed row shows in cell i of all[]: the percentile method's
 * name for its code, the value itself elsewhere. */
union out_val report_cell_text(const struct report *r, int i, union out_val v)
{
	if (i == r->method_col)
		v.s = report_pct_method_name(v.u);
	return v;
}

/* --interval: after every other column (the peer's row is traded without
 * them: they are this side's). */
static const struct col_def ivl_cols[] = {
	{ "row_kind", "row", OUT_STR, 0, SHOW_MACHINE },
	{ "t_start_s", "from[s]", OUT_DOUBLE, 3, SHOW_ALL },
	{ "t_end_s", "to[s]", OUT_DOUBLE, 3, SHOW_ALL },
	{ "interval_count", "#intervals", OUT_U64, 0, SHOW_MACHINE },
	/* 1: ended by SIGINT, or by the run's end before its boundary (empty: the total) */
	{ "ivl_partial", "partial", OUT_DOUBLE, 0, SHOW_ALL },
	/* bandwidth only */
	{ "ivl_bw_min_mibps", "interval BW min[MiB/sec]", OUT_DOUBLE, 2, SHOW_MACHINE },
	{ "ivl_bw_min_at_s", "interval BW min at[s]", OUT_DOUBLE, 3, SHOW_MACHINE },
	{ "ivl_bw_max_mibps", "interval BW max[MiB/sec]", OUT_DOUBLE, 2, SHOW_MACHINE },
	{ "ivl_bw_max_at_s", "interval BW max at[s]", OUT_DOUBLE, 3, SHOW_MACHINE },
	{ "ivl_bw_cv", "interval BW CV", OUT_DOUBLE, 4, SHOW_MACHINE },
	{ "ivl_below_min_bw", "intervals below --min-bw", OUT_U64, 0, SHOW_MACHINE },
};


/* --validate: what the checks of both sides found (each side's own counts
 * are traded with the row and summed; the first mismatch is this side's,
 * else the peer's).  No mismatch: the "first" columns are empty. */
static const struct col_def val_cols[] = {
	{ "validated_msgs", "#checked", OUT_U64, 0, SHOW_ALL },
	{ "validate_errors", "#wrong", OUT_U64, 0, SHOW_ALL },
	{ "validate_first_msg", "1st wrong msg", OUT_DOUBLE, 0, SHOW_ALL },
	{ "validate_first_qp", "1st wrong QP", OUT_DOUBLE, 0, SHOW_MACHINE },
	{ "validate_first_offset", "1st wrong byte", OUT_DOUBLE, 0, SHOW_ALL },
};


/* -g, bandwidth: the sender's messages posted (all its QPs, the whole
 * loop), what each receiving QP should get (the same: each gets every
 * one), what they got (all of them, the least and most one QP got), and
 * the messages missing over all receiving QPs (QPs x expected - received;
 * each QP's on the receiving side's stderr). */
static const struct col_def mc_cols[] = {
	{ "mc_sent", "#mc sent", OUT_U64, 0, SHOW_MACHINE },
	{ "mc_expected_per_qp", "#mc expected/QP", OUT_U64, 0, SHOW_MACHINE },
	{ "mc_received", "#mc received", OUT_U64, 0, SHOW_MACHINE },
	{ "mc_recv_min", "#mc QP min", OUT_U64, 0, SHOW_MACHINE },
	{ "mc_recv_max", "#mc QP max", OUT_U64, 0, SHOW_MACHINE },
	{ "mc_lost", "#mc lost", OUT_U64, 0, SHOW_ALL },
};

/* --load: the load's name, size, QPs and its figures in the latency window,
 * then over its whole run, from its first interval to its last (NaN in an
 * idle repetition); --load-compare: the phase, then a ratio
 * loaded/idle per percentile (ratio_cols). */
static const struct col_def load_cols[] = {
	{ "load", "load", OUT_STR, 0, SHOW_ALL },
	{ "load_size", "load size[B]", OUT_U64, 0, SHOW_MACHINE },
	{ "load_qps", "load QPs", OUT_U64, 0, SHOW_MACHINE },
	{ "load_bw_mibps", "load BW[MiB/sec]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "load_bytes", "load bytes", OUT_DOUBLE, 0, SHOW_MACHINE },
	{ "load_msgs", "load msgs", OUT_DOUBLE, 0, SHOW_MACHINE },
	{ "load_cpu", "load CPU", OUT_DOUBLE, 0, SHOW_MACHINE },
	{ "load_run_s", "load run[s]", OUT_DOUBLE, 3, SHOW_MACHINE },
	{ "load_run_bytes", "load run bytes", OUT_DOUBLE, 0, SHOW_MACHINE },
	{ "phase", "phase", OUT_STR, 0, SHOW_ALL },
};


/* --cpu_util: perftest's figure (the host's /proc/stat), then the
 * measuring threads' own (lib/cpuuse.h); this side's, never traded. */
static const struct col_def cpu_cols[] = {
	{ "cpu_util_pct", "CPU_Util[%]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "cpu_user_pct", "user CPU[%]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "cpu_sys_pct", "sys CPU[%]", OUT_DOUBLE, 2, SHOW_ALL },
};

/* Machine formats keep every digit a test may recompute (1e-9 relative). */
#define MACHINE_PRECISION 9

static void col_add(struct report *r, const struct col_def *d)
{
	r->all[r->nall++] = (struct out_col){ d->key, d->label, d->type, d->human_precision };
}

/* "99.9" -> key "lat_p99_9_us", label "99.9%[usec]" */
static void col_add_pct(struct report *r, double pct)
{
	char *key = r->names[r->nall][0], *label = r->names[r->nall][1], *dot;

	snprintf(key, 48, "lat_p%g_us", pct);
	while ((dot = strchr(key, '.')))
		*dot = '_';
	snprintf(label, 48, "%g%%[usec]", pct);
	r->all[r->nall++] = (struct out_col){ key, label, OUT_DOUBLE, 2 };
}

/* -W: one u64 column per counter, after every other column. */
static void col_add_counters(struct report *r, const struct rb_options *o, enum show *show)
{
	r->ctr_first = r->nall;
	for (int i = 0; i < o->counters.n; i++) {
		const struct rb_counter *c = &o->counters.c[i];

		show[r->nall] = SHOW_ALL;
		r->all[r->nall++] = (struct out_col){ c->key, c->label, OUT_U64, 0 };
	}
}

/* -j: which thread a row is ("all": the total) and the CPU it ran on. */
static void col_add_threads(struct report *r, const struct rb_options *o, enum show *show)
{
	static const struct col_def defs[] = {
		{ "thread", "thread", OUT_STR, 0, SHOW_ALL },
		{ "cpu", "CPU", OUT_DOUBLE, 0, SHOW_ALL },
	};

	r->thread_col = -1;
	if (o->threads < 2)
		return;
	r->thread_col = r->nall;
	for (int i = 0; i < 2; i++) {
		show[r->nall] = defs[i].show;
		col_add(r, &defs[i]);
	}
}

/* "lat_p99_9_us" -> key and label "ratio_p99_9" */
static void col_add_ratio(struct report *r, int of)
{
	char *key = r->names[r->nall][0], *label = r->names[r->nall][1];
	char src[48];

	snprintf(src, sizeof(src), "%s", r->all[of].key);
	snprintf(key, 48, "ratio_%.*s", (int)(strlen(src) - 7), src + 4);
	snprintf(label, 48, "ratio_%.*s", (int)(strlen(src) - 7), src + 4);
	r->load_ratio_of[r->load_nratio++] = of;
	r->all[r->nall++] = (struct out_col){ key, label, OUT_DOUBLE, 3 };
}

static void col_add_load(struct report *r, const struct rb_options *o, enum show *show, int npcol)
{
	int n = o->load.compare ? LOADC_COMPARE_NCOLS : LOADC_NCOLS;

	r->load_first = -1;
	r->load_nratio = 0;
	if (o->load_bench == LOAD_NONE)
		return;
	r->load_first = r->nall;
	for (int i = 0; i < n; i++) {
		show[r->nall] = load_cols[i].show;
		col_add(r, &load_cols[i]);
	}
	for (int i = -1; o->load.compare && i < npcol; i++) {
		show[r->nall] = SHOW_ALL;
		col_add_ratio(r, i < 0 ? LAT_P50 : LAT_FIXED + i);
	}
}

/* --rate_limit=SW: this side's achieved rate beside the asked one (the
 * metadata's rate_limit), in its unit (pace.h's order); not traded. */
static const struct col_def pace_cols[] = {
	{ "rate_achieved", "paced[Gbps]", OUT_DOUBLE, 4, SHOW_ALL },
	{ "rate_achieved", "paced[Mbps]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "rate_achieved", "paced[MiBps]", OUT_DOUBLE, 2, SHOW_ALL },
	{ "rate_achieved", "paced[pps]", OUT_DOUBLE, 0, SHOW_ALL },
};

static void col_add_pace(struct report *r, const struct rb_options *o, enum rb_metric metric,
			 enum show *show)
{
	r->pace_col = -1;
	if (!(o->rate_limit > 0) || o->rate_type != RT_SW || metric != METRIC_BW)
		return;
	r->pace_col = r->nall;
	show[r->nall] = SHOW_ALL;
	col_add(r, &pace_cols[o->rate_units]);
}

static void col_add_cpu(struct report *r, const struct rb_options *o, enum show *show)
{
	r->cpu_first = o->cpu_util ? r->nall : -1;
	for (int i = 0; o->cpu_util && i < CPU_NCOLS; i++) {
		show[r->nall] = cpu_cols[i].show;
		col_add(r, &cpu_cols[i]);
	}
}

/*
 * --perftest-headers: perftest 6.29's human table column for column, its
 * words (perftest_parameters.h: RESULT_FMT, RESULT_FMT_G, RESULT_FMT_LAT,
 * RESULT_FMT_LAT_DUR, RESULT_EXT_CPU_UTIL): -b's columns are the sums
 * (its peak not known here: "-"), a -D latency run's are #bytes,
 * #iterations, t_avg and tps average.  report_row() fills the two cells
 * no column of all[] holds (r->pt_blank, r->pt_tps).
 */
static const struct out_col pt_p99 = { "lat_p99_us", "99% percentile[usec]", OUT_DOUBLE, 2 };
static const struct out_col pt_p99_9 = { "lat_p99_9_us", "99.9% percentile[usec]", OUT_DOUBLE, 2 };
static const struct out_col pt_tps = { "tps_average", "tps average", OUT_DOUBLE, 2 };

/* Show all[i] under as's key and label (NULL: its own). */
static void pt_show(struct report *r, int i, const struct out_col *as)
{
	r->shown[r->ncols] = i < 0 ? 0 : i;
	r->cols[r->ncols] = as ? *as : r->all[r->shown[r->ncols]];
	r->ncols++;
}

static int col_find(const struct report *r, const char *key)
{
	for (int i = 0; i < r->nall; i++)
		if (!strcmp(r->all[i].key, key))
			return i;
	return -1;
}

static void pt_headers_bw(struct report *r, const struct rb_options *o)
{
	bool g = o->report_gbits, b = o->bidir;
	int avg = g ? BW_AVG_GB : BW_AVG_MIB;

	pt_show(r, BW_SIZE, NULL);
	pt_show(r, BW_ITERS, NULL);
	if (b)
		r->pt_blank = r->ncols;
	pt_show(r, g ? BW_PEAK_GB : BW_PEAK_MIB, NULL);
	pt_show(r, b ? (g ? BW_SUM_AVG_GB : BW_SUM_AVG_MIB) : avg, &r->all[avg]);
	pt_show(r, b ? BW_SUM_RATE : BW_RATE, &r->all[BW_RATE]);
}

static void pt_headers(struct report *r, const struct rb_options *o, bool lat)
{
	r->ncols = 0;
	if (!lat) {
		pt_headers_bw(r, o);
	} else if (o->duration_s > 0 || o->run_infinitely) {
		pt_show(r, LAT_SIZE, NULL);
		pt_show(r, LAT_ITERS, NULL);
		pt_show(r, LAT_AVG, NULL);
		r->pt_tps = r->ncols;
		pt_show(r, LAT_WINDOW, &pt_tps);
	} else {
		for (int i = LAT_SIZE; i <= LAT_STDEV; i++)
			if (i != LAT_WINDOW)
				pt_show(r, i, NULL);
		pt_show(r, col_find(r, "lat_p99_us"), &pt_p99);
		pt_show(r, col_find(r, "lat_p99_9_us"), &pt_p99_9);
	}
	if (r->cpu_first >= 0)
		pt_show(r, r->cpu_first + CPU_UTIL, NULL);
	r->shown_ctr_first = r->ncols;
}

/* --output: perftest's one number (-b: the sum, as perftest prints it). */
static int value_col(const struct rb_options *o)
{
	if (o->pt_output == PT_OUT_LAT)
		return LAT_AVG;
	if (o->pt_output == PT_OUT_MR)
		return o->bidir ? BW_SUM_RATE : BW_RATE;
	if (o->bidir)
		return o->report_gbits ? BW_SUM_AVG_GB : BW_SUM_AVG_MIB;
	return o->report_gbits ? BW_AVG_GB : BW_AVG_MIB;
}

static bool col_shown(enum show show, enum out_format fmt, bool gbits)
{
	if (fmt != OUT_HUMAN)
		return true;
	return show == SHOW_ALL || (show == SHOW_MIB && !gbits) || (show == SHOW_GBIT && gbits);
}

void report_columns(struct report *r, const struct rb_options *o, enum rb_metric metric)
{
	bool lat = metric == METRIC_LAT;
	const struct col_def *defs = lat ? lat_cols : bw_cols;
	int ndefs = lat ? LAT_FIXED : o->bidir ? BW_BIDIR_NCOLS : BW_NCOLS;
	enum show show[REPORT_MAX_COLS];

	for (int i = 0; i < ndefs; i++) {
		show[r->nall] = defs[i].show;
		col_add(r, &defs[i]);
	}
	_Static_assert(LAT_FIXED + STATS_MAX_PCT - 1 + RB_MAX_COUNTERS + IVL_LAT_NCOLS <= REPORT_MAX_COLS,
		       "every percentile and every counter has a column");
	_Static_assert(BW_BIDIR_NCOLS + RB_MAX_COUNTERS <= REPORT_MAX_COLS,
		       "every -b column and every counter has a column");
	for (int i = 0; lat && i < o->npct; i++)
		if (o->pcts[i] != 50) {
			show[r->nall] = SHOW_ALL;
			col_add_pct(r, o->pcts[i]);
		}
	r->method_col = lat ? r->nall : -1;
	if (lat) {
		show[r->nall] = method_col.show;
		col_add(r, &method_col);
	}
	col_add_threads(r, o, show);
	col_add_counters(r, o, show);
	r->val_first = o->validate ? r->nall : -1;
	for (int i = 0; o->validate && i < VAL_NCOLS; i++) {
		show[r->nall] = val_cols[i].show;
		col_add(r, &val_cols[i]);
	}
	r->mc_first = o->mcg && !lat ? r->nall : -1;
	for (int i = 0; r->mc_first >= 0 && i < MC_NCOLS; i++) {
		show[r->nall] = mc_cols[i].show;
		col_add(r, &mc_cols[i]);
	}
	_Static_assert(MC_NCOLS <= BW_BIDIR_NCOLS - BW_NCOLS, "-g's columns fit where -b's would be (never both)");
	col_add_load(r, o, show, (lat ? r->method_col : r->ctr_first) - LAT_FIXED);
	r->shown_ctr_first = -1;
	r->nbase = r->nall;
	col_add_cpu(r, o, show);
	col_add_pace(r, o, metric, show);
	r->ivl_first = r->nall;
	for (int i = 0; o->interval_s > 0 && i < (lat ? IVL_LAT_NCOLS : IVL_NCOLS); i++) {
		show[r->nall] = ivl_cols[i].show;
		col_add(r, &ivl_cols[i]);
	}
	_Static_assert(BW_BIDIR_NCOLS + 2 + RB_MAX_COUNTERS + VAL_NCOLS + CPU_NCOLS + 1 + IVL_NCOLS <= REPORT_MAX_COLS,
		       "every -b column, -j's two, every counter, --validate's, the paced rate and the intervals' have a column");
	_Static_assert(LAT_FIXED + STATS_MAX_PCT - 1 + 1 + RB_MAX_COUNTERS + VAL_NCOLS + LOADC_COMPARE_NCOLS +
		       STATS_MAX_PCT + CPU_NCOLS + IVL_LAT_NCOLS <= REPORT_MAX_COLS,
		       "every percentile, the method, every counter, --validate's, --load's, --cpu_util's and the intervals' have a column");
	_Static_assert(LAT_FIXED + STATS_MAX_PCT - 1 + RB_MAX_COUNTERS + VAL_NCOLS + IVL_LAT_NCOLS <= REPORT_MAX_COLS,
		       "every percentile, every counter, --validate's and the intervals' have a column");
	r->pt_blank = r->pt_tps = -1;
	if (o->perftest_headers && o->format == OUT_HUMAN) {
		pt_headers(r, o, lat);
		return;
	}
	if (o->format == OUT_VALUE) {
		r->shown[0] = value_col(o);
		r->cols[0] = r->all[r->shown[0]];
		r->cols[0].precision = 6;	/* perftest's "%lf" */
		r->ncols = 1;
		r->shown_ctr_first = 1;
		return;
	}
	for (int i = 0; i < r->nall; i++) {
		if (!col_shown(show[i], o->format, o->report_gbits))
			continue;
		if (i == r->ctr_first)
			r->shown_ctr_first = r->ncols;
		r->shown[r->ncols] = i;
		r->cols[r->ncols] = r->all[i];
		if (o->format != OUT_HUMAN && i != r->thread_col + 1)
			r->cols[r->ncols].precision = MACHINE_PRECISION;
		r->ncols++;
	}
	if (r->shown_ctr_first < 0)
		r->shown_ctr_first = r->ncols;
}
