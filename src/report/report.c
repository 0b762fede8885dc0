#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "session/cm.h"
#include "lib/commit.h"
#include "config.h"
#include "lib/gid.h"
#include "cli/load.h"
#include "lib/log.h"
#include "engine/loops.h"
#include "engine/postsched.h"
#include "lib/units.h"

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

enum { BW_SIZE, BW_ITERS, BW_BYTES, BW_WINDOW, BW_PEAK_MIB, BW_AVG_MIB, BW_PEAK_GB,
       BW_AVG_GB, BW_RATE, BW_CQ_MOD, BW_WRS_PER_CQE, BW_NCOLS,
       BW_RX_ITERS = BW_NCOLS, BW_RX_WINDOW, BW_RX_AVG_MIB, BW_RX_AVG_GB, BW_RX_RATE,
       BW_SUM_ITERS, BW_SUM_AVG_MIB, BW_SUM_AVG_GB, BW_SUM_RATE, BW_BIDIR_NCOLS };

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

enum { LAT_SIZE, LAT_ITERS, LAT_WINDOW, LAT_MIN, LAT_MAX, LAT_P50, LAT_AVG, LAT_STDEV,
       LAT_FIXED };

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
	/* 1: cut short by the run's end before its boundary (empty: the total) */
	{ "ivl_partial", "partial", OUT_DOUBLE, 0, SHOW_ALL },
	/* bandwidth only */
	{ "ivl_bw_min_mibps", "interval BW min[MiB/sec]", OUT_DOUBLE, 2, SHOW_MACHINE },
	{ "ivl_bw_min_at_s", "interval BW min at[s]", OUT_DOUBLE, 3, SHOW_MACHINE },
	{ "ivl_bw_max_mibps", "interval BW max[MiB/sec]", OUT_DOUBLE, 2, SHOW_MACHINE },
	{ "ivl_bw_max_at_s", "interval BW max at[s]", OUT_DOUBLE, 3, SHOW_MACHINE },
	{ "ivl_bw_cv", "interval BW CV", OUT_DOUBLE, 4, SHOW_MACHINE },
	{ "ivl_below_min_bw", "intervals below --min-bw", OUT_U64, 0, SHOW_MACHINE },
};

enum { IVL_KIND, IVL_START, IVL_END, IVL_COUNT, IVL_PARTIAL, IVL_LAT_NCOLS, IVL_MIN = IVL_LAT_NCOLS,
       IVL_MIN_AT, IVL_MAX, IVL_MAX_AT, IVL_CV, IVL_BELOW, IVL_NCOLS };

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

enum { VAL_CHECKED, VAL_ERRORS, VAL_FIRST_MSG, VAL_FIRST_QP, VAL_FIRST_OFF, VAL_NCOLS };

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

enum { LOADC_NAME, LOADC_SIZE, LOADC_QPS, LOADC_BW, LOADC_BYTES, LOADC_MSGS, LOADC_CPU,
       LOADC_RUN_S, LOADC_RUN_BYTES, LOADC_NCOLS, LOADC_PHASE = LOADC_NCOLS, LOADC_COMPARE_NCOLS };

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
	for (int i = 0; i < STATS_MAX_PCT; i++)
		r->load_idle[i] = NAN;
}

static bool col_shown(enum show show, enum out_format fmt, bool gbits)
{
	if (fmt != OUT_HUMAN)
		return true;
	return show == SHOW_ALL || (show == SHOW_MIB && !gbits) || (show == SHOW_GBIT && gbits);
}

static void report_columns(struct report *r, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;
	bool lat = s->bench->metric == METRIC_LAT;
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
	col_add_load(r, o, show, (lat ? r->method_col : r->ctr_first) - LAT_FIXED);
	r->shown_ctr_first = -1;
	r->nbase = r->ivl_first = r->nall;
	for (int i = 0; o->interval_s > 0 && i < (lat ? IVL_LAT_NCOLS : IVL_NCOLS); i++) {
		show[r->nall] = ivl_cols[i].show;
		col_add(r, &ivl_cols[i]);
	}
	interval_stats_init(&r->ivl, o->min_bw_bps);
	_Static_assert(BW_BIDIR_NCOLS + 2 + RB_MAX_COUNTERS + VAL_NCOLS + IVL_NCOLS <= REPORT_MAX_COLS,
		       "every -b column, -j's two, every counter, --validate's and the intervals' have a column");
	_Static_assert(LAT_FIXED + STATS_MAX_PCT - 1 + RB_MAX_COUNTERS + VAL_NCOLS + LOADC_COMPARE_NCOLS +
		       STATS_MAX_PCT + IVL_LAT_NCOLS <= REPORT_MAX_COLS,
		       "every percentile, every counter, --validate's, --load's and the intervals' have a column");
	_Static_assert(LAT_FIXED + STATS_MAX_PCT - 1 + RB_MAX_COUNTERS + VAL_NCOLS + IVL_LAT_NCOLS <= REPORT_MAX_COLS,
		       "every percentile, every counter, --validate's and the intervals' have a column");
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

void report_define(struct report *r, const struct rb_session *s)
{
	memset(r, 0, sizeof(*r));
	report_columns(r, s);
}

/* --csv=FILE: FILE's metadata and status go to FILE.meta.json. */
int report_sidecar(struct out *out, const char *csv_path)
{
	char side[4096];
	int err;

	if (!csv_path)
		return 0;
	err = out_sidecar(out, csv_path);
	if (err) {
		out_sidecar_path(csv_path, side, sizeof(side));
		log_err("cannot write the metadata file %s (the sidecar of %s): %s",
			side, csv_path, strerror(-err));
	}
	return err;
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
	report_columns(r, s);
	if (o->format == OUT_CSV && report_sidecar(r->out, o->out_file)) {
		report_close(r, "failed", "cannot write the metadata file");
		return -EIO;
	}
	return 0;
}

void report_meta_time(struct out *o)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	out_meta_str(o, "timestamp_utc", "Date (UTC)", buf);
}

static void meta_device(struct report *r, const struct rb_session *s)
{
	const struct rb_device *d = &s->conn.dev;
	char gid[64];

	out_meta_str(r->out, "device", "Device", d->name);
	out_meta_u64(r->out, "port", "Port", (uint64_t)d->port);
	out_meta_u64(r->out, "gid_index", "GID index", (uint64_t)d->gid.index);
	out_meta_str(r->out, "gid_type", "GID type", gid_type_name(d->gid.type));
	gid_format(d->gid.raw, gid, sizeof(gid));
	out_meta_str(r->out, "gid", "GID", gid);
	out_meta_str(r->out, "link_layer", "Link type", d->ib_link ? "IB" : "Ethernet");
	out_meta_u64(r->out, "mtu_bytes", "MTU[B]", (uint64_t)device_mtu_bytes(s->conn.q.mtu));
}

/* What the QPs run with, read back after connection (qps_read_attrs);
 * MTU[B] above is the path MTU read back too.  The SL is the one given at
 * RTR: rxe, for one, does not report it back. */
static void meta_qp(struct report *r, const struct rb_session *s)
{
	const struct rb_qp_attrs *a = &s->conn.q.attrs;
	char addr[64];

	out_meta_u64(r->out, "service_level", "Service level", a->sl_given);
	out_meta_u64(r->out, "traffic_class", "Traffic class", a->traffic_class);
	if (s->opt->transport == TR_RC)
		out_meta_u64(r->out, "qp_timeout", "QP ack timeout", a->timeout);
	if (s->opt->rdma_cm)
		out_meta_str(r->out, "source_address", "Source address", cm_local_addr(s, addr, sizeof(addr)));
}

static void meta_placement(struct report *r, const struct rb_session *s)
{
	const struct placement *p = &s->conn.place;

	if (p->node >= 0)
		out_meta_u64(r->out, "numa_node", "NUMA node", (uint64_t)p->node);
	else
		out_meta_str(r->out, "numa_node", "NUMA node", "none");
	if (s->conn.q.buf.node >= 0)
		out_meta_u64(r->out, "buffer_node", "Buffer node", (uint64_t)s->conn.q.buf.node);
	else
		out_meta_str(r->out, "buffer_node", "Buffer node", "unknown");
	if (p->cpu >= 0)
		out_meta_u64(r->out, "cpu", "CPU", (uint64_t)p->cpu);
	else
		out_meta_str(r->out, "cpu", "CPU", p->cpus);
	out_meta_str(r->out, "placement", "Placement", p->note);
}

/*
 * Without -Q, large messages run with fewer WRs per completion
 * (psched_cq_mod): the sizes of this run where that happens, as size:-Q
 * pairs (also each row's cq_mod column in CSV and JSON).
 */
static void meta_cq_mod(struct report *r, const struct rb_options *o)
{
	uint64_t first = o->all ? RB_SWEEP_MIN : o->size;
	uint64_t last = session_last_size(o, 0);
	char buf[320];
	size_t used = 0;

	for (uint64_t size = first; size <= last && used < sizeof(buf); size *= 2) {
		unsigned q = psched_cq_mod(o->cq_mod, o->cq_mod_given, size);

		if (q != o->cq_mod)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%llu:%u",
						 used ? " " : "", (unsigned long long)size, q);
	}
	if (used)
		out_meta_str(r->out, "cq_mod_by_size", "CQ Moderation by size[B:WRs]", buf);
}

/* What the checks cover: --validate's method (src/engine/validate.c), the
 * atomics' result check (src/engine/wr.c). */
static void meta_checks(struct report *r, const struct rb_session *s)
{
	if (s->opt->validate)
		out_meta_str(r->out, "validate_method", "Validation method", validate_method(s->bench));
	if (s->bench->verb == VERB_ATOMIC)
		out_meta_str(r->out, "atomic_check", "Atomic results checked", atomic_check_method(s));
}

/* Where the operations land (src/engine/wr.c loop_addr_slots): atomics' slots, the
 * other bandwidth tests' cycling through RB_CYCLE_BYTES (sizes up to half
 * of it; one address above, and in latency tests). */
static void meta_addresses(struct report *r, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;

	if (s->bench->verb == VERB_ATOMIC) {
		out_meta_u64(r->out, "atomic_slots", "Atomic slots",
			     o->atomic_same_address ? 1 : RB_CYCLE_BYTES / RB_LINE_BYTES);
		out_meta_u64(r->out, "atomic_stride_bytes", "Atomic slot stride[B]", RB_LINE_BYTES);
		return;
	}
	if (s->bench->metric == METRIC_LAT || (!o->all && o->size > RB_CYCLE_BYTES / 2)) {
		out_meta_str(r->out, "buffer_cycle_bytes", "Buffer cycle[B]", "fixed");
		return;
	}
	out_meta_u64(r->out, "buffer_cycle_bytes", "Buffer cycle[B]", RB_CYCLE_BYTES);
	out_meta_u64(r->out, "buffer_cycle_max_size_bytes", "Buffer cycle up to size[B]",
		     RB_CYCLE_BYTES / 2);
}

/* The test: the options' keys (options_meta, from the META rows of
 * src/cli/rows.c) and between them what the session and the engine chose. */
static void meta_test(struct report *r, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;
	char text[32];

	options_meta(r->out, o, s->bench, OPTIONS_META_QUEUES);
	if (s->bench->metric == METRIC_BW)
		meta_cq_mod(r, o);
	options_meta(r->out, o, s->bench, OPTIONS_META_POSTING);
	if (s->bench->verb == VERB_READ || s->bench->verb == VERB_ATOMIC)
		out_meta_u64(r->out, "outstanding", "Outstand reads", s->conn.q.outs);
	options_meta(r->out, o, s->bench, OPTIONS_META_ATOMIC);
	meta_addresses(r, s);
	meta_checks(r, s);
	out_meta_u64(r->out, "inline_bytes", "Max inline data[B]", s->conn.q.max_inline);
	out_meta_str(r->out, "inline", "Inline", qps_inline_text(&s->conn.q, text, sizeof(text)));
	out_meta_u64(r->out, "inline_granted", "Inline granted[B]", s->conn.q.inline_granted);
	out_meta_str(r->out, "relaxed_ordering", "PCIe relax order", qps_relaxed_text(&s->conn.q));
	options_meta(r->out, o, s->bench, OPTIONS_META_RUN);
	if (s->bench->metric == METRIC_LAT)
		out_meta_str(r->out, "latency", "Latency",
			     s->bench->lat_divisor == 2 ? "one-way = round trip / 2" : "round trip of one operation");
}

/* -j: how many threads, and each one's CPU. */
static void meta_threads(struct report *r, const struct rb_session *s)
{
	if (!s->team)
		return;
	out_meta_u64(r->out, "threads", "Threads", (uint64_t)s->team->n);
	out_meta_str(r->out, "thread_cpus", "Thread CPUs", s->team->cpus);
}

/* What ran where: also in a document that failed before it began. */
static void meta_identity(struct report *r, const struct rb_session *s)
{
	char host[128] = "";

	gethostname(host, sizeof(host) - 1);
	out_meta_str(r->out, "tool", "Tool", "rdmabench");
	out_meta_str(r->out, "version", "Version", PACKAGE_VERSION);
	out_meta_str(r->out, "commit", "Commit", rb_commit());
	out_meta_str(r->out, "test", "Test", s->bench->name);
	out_meta_str(r->out, "role", "Role", s->is_client ? "client" : "server");
	out_meta_str(r->out, "host", "Host", host);
	out_meta_str(r->out, "peer", "Peer", s->conn.peer);
}

void report_begin(struct report *r, const struct rb_session *s)
{
	/* -j: the threads' sessions hold the QPs; thread 0 speaks for all */
	const struct rb_session *q = s->team ? s->team->w[0].s : s;

	meta_identity(r, s);
	meta_device(r, q);
	meta_qp(r, q);
	meta_test(r, q);
	meta_placement(r, q);
	meta_threads(r, s);
	out_meta_str(r->out, "clock", "Clock", clock_source());
	report_meta_time(r->out);
	out_meta_str(r->out, "command_line", "Command", s->opt->cmdline);
	out_begin(r->out, s->bench->title, r->cols, r->ncols);
	r->begun = true;
}

static void rx_columns(union out_val *row, uint64_t msgs, uint64_t bytes, double secs)
{
	double bps = secs > 0 ? (double)bytes / secs : NAN;

	row[BW_RX_ITERS].u = msgs;
	row[BW_RX_WINDOW].d = secs;
	row[BW_RX_AVG_MIB].d = bps / 1048576.0;
	row[BW_RX_AVG_GB].d = bps * 8 / 1e9;
	row[BW_RX_RATE].d = secs > 0 ? (double)msgs / secs / 1e6 : NAN;
}

static void compute_bw(const struct rb_session *s, const struct rb_measure *m, union out_val *row)
{
	double secs = (double)(m->end_ns - m->start_ns) / 1e9;
	double bps = secs > 0 ? (double)m->bytes / secs : NAN;

	row[BW_SIZE].u = s->run.size;
	row[BW_ITERS].u = m->msgs;
	row[BW_BYTES].u = m->bytes;
	row[BW_WINDOW].d = secs;
	row[BW_PEAK_MIB].d = m->peak_bps / 1048576.0;
	row[BW_AVG_MIB].d = bps / 1048576.0;
	row[BW_PEAK_GB].d = m->peak_bps * 8 / 1e9;
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

static void compute_lat(const struct report *r, const struct rb_session *s, struct rb_measure *m,
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
		compute_lat(r, s, m, row);
	else
		compute_bw(s, m, row);
	for (int i = 0; i < s->opt->counters.n; i++)
		row[r->ctr_first + i].u = m->ctr_delta[i];
	sweep_progress(s);
}

void report_compute_thread(const struct report *r, const struct rb_worker *w, union out_val *row)
{
	compute_bw(w->s, &w->m, row);
	row[r->thread_col].u = 0;	/* the name is set locally: no pointer on the wire */
	row[r->thread_col + 1].d = w->cpu_seen >= 0 ? w->cpu_seen : NAN;
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
	free(parts);
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
	out_row(r->out, shown);
	if (r->method_col >= 0 && row[r->method_col].u != PCT_EXACT)
		report_histogram_note(r, row);
}

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
		compute_lat(r, s, im, row);
	else
		compute_bw(s, im, row);
	/* -b: the peer's half and the sums are not known per interval */
	for (int i = BW_NCOLS; s->opt->bidir && s->bench->metric != METRIC_LAT && i < BW_BIDIR_NCOLS; i++)
		if (r->all[i].type == OUT_DOUBLE && !(im->rx_measured && i <= BW_RX_RATE))
			row[i].d = NAN;
	for (int i = 0; i < s->opt->counters.n; i++)
		row[r->ctr_first + i].u = ctr_delta[i];
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

/* In a sweep, "hist.csv" becomes "hist-65536.csv". */
/* A -H or --raw file's path for this size (-a: PATH-SIZE.csv) and, with
 * --load-compare, this repetition (PATH-idle-1.csv, PATH-loaded-1.csv,
 * ...): one file each, none overwritten. */
static void size_path(const char *path, const struct rb_session *s, char *buf, size_t len)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	char sfx[64] = "";
	int n = 0;

	if (s->opt->all)
		n = snprintf(sfx, sizeof(sfx), "-%llu", (unsigned long long)s->run.size);
	if (s->opt->load.compare)
		snprintf(sfx + n, sizeof(sfx) - (size_t)n, "-%s-%u",
			 load_compare_loaded(s->run.load_rep) ? "loaded" : "idle", s->run.load_rep / 2 + 1);
	if (dot && (!slash || dot > slash))
		snprintf(buf, len, "%.*s%s%s", (int)(dot - path), path, sfx, dot);
	else
		snprintf(buf, len, "%s%s", path, sfx);
}

static const struct out_col raw_cols[] = {
	{ "sample", "sample number", OUT_U64, 0 },
	{ "latency_ns", "latency [ns]", OUT_DOUBLE, 1 },
};

static const struct out_col hist_cols[] = {
	{ "lower_ns", "bucket lower bound [ns]", OUT_DOUBLE, 1 },
	{ "upper_ns", "bucket upper bound [ns]", OUT_DOUBLE, 1 },
	{ "count", "samples in the bucket", OUT_U64, 0 },
	{ "cumulative_fraction", "fraction of samples up to upper_ns", OUT_DOUBLE, 9 },
};

/*
 * PATH.meta.json for a --raw or -H file: what it measured (test, size,
 * which latency, unit) and its columns, as the results CSV's sidecar.
 */
static int write_file_meta(const char *path, const struct rb_session *s, const char *kind,
			   const struct out_col *cols, int ncols, const struct samples *kept)
{
	struct out *o = out_open(OUT_CSV, NULL);
	char title[256];
	int err;

	if (!o)
		return -ENOMEM;
	err = report_sidecar(o, path);
	snprintf(title, sizeof(title), "%s, %s", s->bench->title, kind);
	out_meta_str(o, "kind", "Kind", kind);
	out_meta_str(o, "test", "Test", s->bench->name);
	out_meta_u64(o, "size_bytes", "Size", s->run.size);
	out_meta_str(o, "latency", "Latency", s->bench->lat_divisor == 2 ?
		     "one-way = round trip / 2" : "round trip of one operation");
	out_meta_str(o, "unit", "Unit", "ns");
	if (kept) {
		out_meta_u64(o, "samples", "Samples", kept->n);
		out_meta_u64(o, "samples_not_kept", "Samples not kept", kept->lost);
	}
	if (s->load)
		out_meta_str(o, "load_phase", "Load", s->run.load_on ? load_bench_name(s->opt->load_bench) : "none (idle)");
	out_begin(o, title, cols, ncols);
	out_end(o, "complete", NULL);
	return err;
}

static int write_raw(const char *path, const struct rb_session *s, const struct rb_measure *m)
{
	double div = s->bench->lat_divisor;
	FILE *f = fopen(path, "w");

	if (!f) {
		log_err("--raw: cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "sample,latency_ns\n");
	for (size_t i = 0; i < m->samples.n; i++)
		fprintf(f, "%zu,%.1f\n", i, (double)m->samples.v[i] / div);
	if (fclose(f))
		return -errno;
	if (m->samples.lost)
		log_warn("--raw at size %llu: the first %zu samples written; %llu more were not kept (at most %zu)",
			 (unsigned long long)s->run.size, m->samples.n,
			 (unsigned long long)m->samples.lost, SAMPLES_MAX_DURATION);
	return write_file_meta(path, s, "raw samples", raw_cols, 2, &m->samples);
}

static int write_hist(const char *path, const struct rb_session *s, const struct rb_measure *m)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f) {
		log_err("-H/--histogram: cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	err = histogram_write_csv(m->hist, f, s->bench->lat_divisor);
	if (fclose(f) && !err)
		err = -errno;
	return err ? err : write_file_meta(path, s, "latency histogram", hist_cols, 4, NULL);
}

int report_files(const struct rb_session *s, const struct rb_measure *m)
{
	char path[4096];
	int err = 0;

	if (s->opt->raw_file && m->measured) {
		size_path(s->opt->raw_file, s, path, sizeof(path));
		err = write_raw(path, s, m);
	}
	if (!err && s->opt->histogram_file && m->measured && m->hist) {
		size_path(s->opt->histogram_file, s, path, sizeof(path));
		err = write_hist(path, s, m);
	}
	return err;
}

void report_close(struct report *r, const char *status, const char *error)
{
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
		meta_identity(r, s);
		report_meta_time(r->out);
		out_meta_str(r->out, "command_line", "Command", s->opt->cmdline);
		out_begin(r->out, s->bench->title, NULL, 0);
	}
	report_close(r, status, error);
}

/* Can path be written?  A file that was not there is removed again. */
static int probe_file(const char *opt, const char *path)
{
	bool existed = access(path, F_OK) == 0;
	FILE *f = fopen(path, "a");

	if (!f) {
		int err = -errno;

		log_err("%s: cannot write %s: %s", opt, path, strerror(errno));
		return err;
	}
	fclose(f);
	if (!existed)
		unlink(path);
	return 0;
}

int report_check_files(const struct rb_session *s)
{
	struct rb_session first = *s;
	char path[4096];
	int err = 0;

	first.run.size = s->opt->all ? RB_SWEEP_MIN : s->opt->size;
	if (s->opt->raw_file) {
		size_path(s->opt->raw_file, &first, path, sizeof(path));
		err = probe_file("--raw", path);
	}
	if (!err && s->opt->histogram_file) {
		size_path(s->opt->histogram_file, &first, path, sizeof(path));
		err = probe_file("-H/--histogram", path);
	}
	return err;
}
