/*
 * From measures to figures: the result columns of a benchmark (bandwidth
 * or latency), the run metadata, and the -H/--raw files.  The human table
 * shows perftest's columns in the unit asked for; CSV and JSON carry every
 * column with its unit in its name.  The document itself is lib/output.h's.
 * Each file uses only those below it:
 *
 *   report.c     open, rows (-j's with their threads'), close; a document
 *                that never began
 *   metadata.c   the run's metadata and the header
 *   intervals.c  --interval: each interval's row, the whole run's summary
 *   figures.c    a row's figures from a measure; -b, -j, --validate, --load
 *   mcast.c      -g: the losses of multicast UD, its metadata
 *   files.c      the results CSV's sidecar; the -H and --raw files of each
 *                size, and theirs
 *   ptjson.c     --out_json: perftest's document, rewritten each row
 *   columns.c    which columns a run has and each format shows (pure:
 *                options and metric in, columns out; tests/unit/test_columns)
 *   internal.h   what these files share and no other module calls
 */
#ifndef RB_REPORT_H
#define RB_REPORT_H

#include "lib/interval.h"
#include "lib/output.h"
#include "session/session.h"

#define REPORT_MAX_COLS 72

/* How a latency row's percentiles were found (its lat_pct_method column):
 * from every sample, or (an interval's row, a -D run past the samples'
 * bound) the histogram's bucket upper bounds. */
enum pct_method { PCT_EXACT, PCT_HISTOGRAM };

struct report {
	struct out *out;
	FILE *file;                 /* owned when --csv=FILE / --json=FILE */
	struct out_col all[REPORT_MAX_COLS];
	int nall;
	int ctr_first;              /* all[ctr_first..]: the -W counters */
	int method_col;             /* latency: all[method_col], lat_pct_method; else -1 */
	int thread_col;             /* -j: all[thread_col], [+1]: thread, CPU; else -1 */
	int shown_ctr_first;        /* cols[shown_ctr_first..]: the counters */
	int nbase;                  /* the columns traded with the peer: all[..nbase) */
	int val_first;              /* --validate: all[val_first..+5), else -1 */
	int mc_first;               /* -g, bandwidth: all[mc_first..+MC_NCOLS), else -1 */
	int cpu_first;              /* --cpu_util: all[cpu_first..+3), else -1 */
	int pace_col;               /* --rate_limit=SW: the achieved rate, else -1 */
	int pt_blank, pt_tps;       /* --perftest-headers: the cells[] report_row fills
				     * (-b's peak, -D latency's tps average), else -1 */
	int ivl_first;              /* --interval: all[ivl_first..nall), else nall */
	int load_first;             /* --load: all[load_first..], else -1 */
	int load_nratio;            /* --load-compare: the ratio columns (p50's first, then each -p's) */
	int load_ratio_of[STATS_MAX_PCT]; /* each ratio's percentile column */
	double load_idle[STATS_MAX_PCT]; /* the last idle repetition's percentiles, NaN: none yet */
	struct interval_stats ivl;  /* --interval: this size's intervals so far */
	uint64_t ivl_below;         /* intervals under --min-bw, every size */
	int shown[REPORT_MAX_COLS]; /* indexes into all[] for this format */
	struct out_col cols[REPORT_MAX_COLS];
	int ncols;
	char names[REPORT_MAX_COLS][2][48];
	bool begun;
	/* --out_json (ptjson.c): perftest's "test_info" text, written with
	 * each row's "results" */
	char *pt_info;
	const struct rb_options *pt_opt;
	bool pt_lat;
};

/* --csv=FILE: open FILE's sidecar (FILE.meta.json) for out; says why not. */
int report_sidecar(struct out *out, const char *csv_path);
/* Open the output (stdout or the file, and a CSV file's sidecar) and define
 * the columns. */
int report_open(struct report *r, const struct rb_session *s);
/* Only define the columns (r->all, r->shown): for a driver that prints the
 * rows elsewhere (rb_mpi).  Nothing is opened; do not call report_close. */
void report_define(struct report *r, const struct rb_session *s);
/* The metadata item timestamp_utc: now. */
void report_meta_time(struct out *o);
/* -g, bandwidth (mcast.c): this side's counts into its row before the
 * trade (the sender's posted, the receiving QPs' totals); after it, both
 * sides' merged and the losses worked out, each receiving QP's said on
 * the receiving side's stderr (losses: always; all with -v). */
void report_mcast(const struct report *r, const struct rb_session *s, const struct rb_measure *m,
		  union out_val *row);
void report_mcast_merge(const struct report *r, const struct rb_session *s, union out_val *row,
			const union out_val *peer);
/* Metadata and header; call once the session is connected. */
void report_begin(struct report *r, const struct rb_session *s);
/* Compute a full row (r->nall values) from a measure. */
void report_compute(const struct report *r, const struct rb_session *s,
		    struct rb_measure *m, union out_val *row);
/* --cpu_util: this side's CPU columns of row from m (NaN: m measured
 * nothing); after the trade, which never carries them. */
void report_cpu(const struct report *r, const struct rb_measure *m, union out_val *row);
/* --rate_limit=SW: a size paced at under 90 % of the rate asked says so
 * on stderr (the side that posted). */
void report_pace_check(const struct rb_session *s, const struct rb_measure *m);
/* --rate_limit=SW: this side's achieved rate, in --rate_units, into its row. */
void report_pace(const struct report *r, const struct rb_session *s, const struct rb_measure *m,
		 union out_val *row);
/* --load: the load's columns of row: this side's figures before the trade
 * (peer NULL), then after it (the server takes the client's figures; each
 * side its own ratios to its last idle row). */
void report_load(struct report *r, const struct rb_session *s, const struct load_figures *f,
		 union out_val *row, const union out_val *peer);
/* -b: fill the rx and sum columns of row, with the peer's row. */
void report_bidir(const struct rb_session *s, union out_val *row, const union out_val *peer);
void report_row(struct report *r, const union out_val *row);
/* "exact" or "histogram" (enum pct_method), "unknown" for another code. */
const char *report_pct_method_name(uint64_t code);
/* A cell of all[i] as printed: the method column's name for its code, any
 * other value as is (a traded row holds codes, never pointers). */
union out_val report_cell_text(const struct report *r, int i, union out_val v);
/* --validate's columns: this side's checks, then merged with the peer's,
 * and -EIO (logged) when any message was wrong. */
void report_validate(const struct report *r, const struct rb_session *s, union out_val *row);
void report_validate_merge(const struct report *r, const struct rb_session *s, union out_val *row,
			   const union out_val *peer);
int report_validate_verdict(const struct report *r, const struct rb_session *s,
			    const union out_val *row);
bool report_traded_always(const struct report *r, int i);
/* -j: a thread's row (its bandwidth columns, its name and CPU; no -W
 * counters: they are the port's); the total's row with the n threads'
 * (JSON: inside it; human and CSV: after it, with rows). */
void report_compute_thread(const struct report *r, const struct rb_worker *w, union out_val *row);
void report_row_threads(struct report *r, union out_val *row,
			union out_val (*trows)[REPORT_MAX_COLS], const struct rb_team *T, bool rows);
/* --interval: one interval's row (offsets from origin_ns, the window's
 * start), streamed; its figures join this size's interval summary. */
void report_interval(struct report *r, const struct rb_session *s, struct rb_measure *im,
		     uint64_t origin_ns, const uint64_t *ctr_delta);
/* --interval: the whole-run row's interval columns (from this size's
 * intervals), then a new size's summary begins.  Human: a line saying
 * what the intervals show; --min-bw: names those under it on stderr. */
void report_interval_total(struct report *r, const struct rb_session *s, union out_val *row);
void report_interval_done(struct report *r, const struct rb_session *s);
/* Messages (bandwidth) or samples (latency) a computed row counts. */
uint64_t report_row_count(const union out_val *row);
/* Its measured window in seconds (NaN: none). */
double report_row_window(const struct rb_session *s, const union out_val *row);
/* Write -H and --raw for this size (m's samples are dumped before sorting). */
int report_files(const struct rb_session *s, const struct rb_measure *m);
void report_close(struct report *r, const char *status, const char *error);
/* report_close, and a document that never began (a failure before the
 * peer was reached) still says what ran: tool, test, role, host, peer. */
void report_finish(struct report *r, const struct rb_session *s, const char *status,
		   const char *error);
/* Before any peer is reached: can -H and --raw be written?  0, or -errno
 * after naming the option and the file. */
int report_check_files(const struct rb_session *s);

#endif
