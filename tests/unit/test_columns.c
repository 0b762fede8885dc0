#include "report/columns.h"
#include "tap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * report_columns(): the column set of a run, for option combinations
 * against fixed lists (the columns before the report was split, measured
 * on its code).  Built from columns.c alone, without the harness: the
 * column logic is pure.  Human cases list the labels shown, machine
 * formats (CSV, JSON) the keys; "prec" is each shown column's decimals.
 */

struct col_case {
	const char *what;
	enum rb_metric metric;
	enum out_format fmt;
	bool bidir, gbits, validate, compare, thread_rows, cpu_util, pt_headers;
	double duration_s;
	enum pt_output output;      /* --output: fmt OUT_VALUE */
	unsigned threads;
	const char *counters;       /* names, comma-separated */
	double interval_s;
	enum load_bench load;
	const char *pcts;           /* NULL: 50,90,99,99.9,99.99 (the default) */
	const char *want;           /* the shown columns, '|'-separated */
	const char *prec;           /* their precisions, a digit each (9: 9 or more) */
	/* nall ctr_first method_col thread_col shown_ctr_first nbase val_first
	 * ivl_first load_first load_nratio */
	int at[10];
	int ratio_of[STATS_MAX_PCT];
};

#define BW_KEYS "size_bytes|iterations|bytes|window_s|bw_peak_mibps|bw_avg_mibps|bw_peak_gbps|" \
	"bw_avg_gbps|msg_rate_mpps|cq_mod|wrs_per_cqe"
#define BW_HUMAN "#bytes|#iterations|BW peak[MiB/sec]|BW average[MiB/sec]|MsgRate[Mpps]"
#define BIDIR_KEYS "rx_iterations|rx_window_s|bw_rx_avg_mibps|bw_rx_avg_gbps|msg_rate_rx_mpps|" \
	"sum_iterations|bw_sum_avg_mibps|bw_sum_avg_gbps|msg_rate_sum_mpps"
#define LAT_KEYS "size_bytes|iterations|window_s|lat_min_us|lat_max_us|lat_p50_us|lat_avg_us|" \
	"lat_stdev_us"
#define LAT_HUMAN "#bytes|#iterations|t_min[usec]|t_max[usec]|t_typical[usec]|t_avg[usec]|" \
	"t_stdev[usec]"
#define PCT_HUMAN "|90%[usec]|99%[usec]|99.9%[usec]|99.99%[usec]"
#define PCT_KEYS "|lat_p90_us|lat_p99_us|lat_p99_9_us|lat_p99_99_us|lat_pct_method"
#define VAL_KEYS "validated_msgs|validate_errors|validate_first_msg|validate_first_qp|" \
	"validate_first_offset"
#define VAL_HUMAN "#checked|#wrong|1st wrong msg|1st wrong byte"
#define LOAD_KEYS "load|load_size|load_qps|load_bw_mibps|load_bytes|load_msgs|load_cpu|" \
	"load_run_s|load_run_bytes"

static const struct col_case cases[] = {
	{ "bw, human", METRIC_BW, OUT_HUMAN,
	  .want = BW_HUMAN, .prec = "00226", .at = { 11, 11, -1, -1, 5, 11, -1, 11, -1, 0 } },
	{ "bw, CSV", METRIC_BW, OUT_CSV,
	  .want = BW_KEYS, .prec = "09999999999", .at = { 11, 11, -1, -1, 11, 11, -1, 11, -1, 0 } },
	{ "-b, human", METRIC_BW, OUT_HUMAN, .bidir = true,
	  .want = BW_HUMAN "|BW rx average[MiB/sec]|BW sum average[MiB/sec]|MsgRate sum[Mpps]",
	  .prec = "00226226", .at = { 20, 20, -1, -1, 8, 20, -1, 20, -1, 0 } },
	{ "-b --report-gbits, human", METRIC_BW, OUT_HUMAN, .bidir = true, .gbits = true,
	  .want = "#bytes|#iterations|BW peak[Gb/sec]|BW average[Gb/sec]|MsgRate[Mpps]|"
		  "BW rx average[Gb/sec]|BW sum average[Gb/sec]|MsgRate sum[Mpps]",
	  .prec = "00226226", .at = { 20, 20, -1, -1, 8, 20, -1, 20, -1, 0 } },
	{ "-b, JSON", METRIC_BW, OUT_JSON, .bidir = true,
	  .want = BW_KEYS "|" BIDIR_KEYS, .prec = "09999999999999999999",
	  .at = { 20, 20, -1, -1, 20, 20, -1, 20, -1, 0 } },
	{ "-j 2 --thread-rows, human", METRIC_BW, OUT_HUMAN, .threads = 2, .thread_rows = true,
	  .want = BW_HUMAN "|thread|CPU", .prec = "0022600",
	  .at = { 13, 13, -1, 11, 7, 13, -1, 13, -1, 0 } },
	{ "-j 2, human", METRIC_BW, OUT_HUMAN, .threads = 2,
	  .want = BW_HUMAN "|thread|CPU", .prec = "0022600",
	  .at = { 13, 13, -1, 11, 7, 13, -1, 13, -1, 0 } },
	{ "-j 2 --thread-rows, JSON: the CPU without decimals", METRIC_BW, OUT_JSON, .threads = 2,
	  .thread_rows = true, .want = BW_KEYS "|thread|cpu", .prec = "9999999999990",
	  .at = { 13, 13, -1, 11, 13, 13, -1, 13, -1, 0 } },
	{ "-W two counters, human", METRIC_BW, OUT_HUMAN,
	  .counters = "rx_write_requests,port_xmit_data",
	  .want = BW_HUMAN "|rx_write_requests|port_xmit_data", .prec = "0022600",
	  .at = { 13, 11, -1, -1, 5, 13, -1, 13, -1, 0 } },
	{ "-W two counters, CSV", METRIC_BW, OUT_CSV, .counters = "rx_write_requests,port_xmit_data",
	  .want = BW_KEYS "|ctr_rx_write_requests|ctr_port_xmit_data", .prec = "0999999999999",
	  .at = { 13, 11, -1, -1, 11, 13, -1, 13, -1, 0 } },
	{ "--validate, human", METRIC_BW, OUT_HUMAN, .validate = true,
	  .want = BW_HUMAN "|" VAL_HUMAN, .prec = "002260000",
	  .at = { 16, 11, -1, -1, 5, 16, 11, 16, -1, 0 } },
	{ "--interval, human", METRIC_BW, OUT_HUMAN, .interval_s = 0.5,
	  .want = BW_HUMAN "|from[s]|to[s]|partial", .prec = "00226330",
	  .at = { 22, 11, -1, -1, 8, 11, -1, 11, -1, 0 } },
	{ "--interval, CSV", METRIC_BW, OUT_CSV, .interval_s = 0.5,
	  .want = BW_KEYS "|row_kind|t_start_s|t_end_s|interval_count|ivl_partial|ivl_bw_min_mibps|"
		  "ivl_bw_min_at_s|ivl_bw_max_mibps|ivl_bw_max_at_s|ivl_bw_cv|ivl_below_min_bw",
	  .prec = "0999999999999999999999", .at = { 22, 11, -1, -1, 11, 11, -1, 11, -1, 0 } },
	{ "-b -j 3 -W, CSV", METRIC_BW, OUT_CSV, .bidir = true, .threads = 3,
	  .counters = "rx_write_requests",
	  .want = BW_KEYS "|" BIDIR_KEYS "|thread|cpu|ctr_rx_write_requests",
	  .prec = "99999999999999999999909", .at = { 23, 22, -1, 20, 22, 23, -1, 23, -1, 0 } },
	{ "latency, human", METRIC_LAT, OUT_HUMAN,
	  .want = LAT_HUMAN PCT_HUMAN, .prec = "00222222222",
	  .at = { 13, 13, 12, -1, 11, 13, -1, 13, -1, 0 } },
	{ "latency, CSV", METRIC_LAT, OUT_CSV,
	  .want = LAT_KEYS PCT_KEYS, .prec = "0999999999999",
	  .at = { 13, 13, 12, -1, 13, 13, -1, 13, -1, 0 } },
	{ "-p 99.999,50,90: given order, no p50 twice", METRIC_LAT, OUT_CSV, .pcts = "99.999,50,90",
	  .want = LAT_KEYS "|lat_p99_999_us|lat_p90_us|lat_pct_method", .prec = "09999999999",
	  .at = { 11, 11, 10, -1, 11, 11, -1, 11, -1, 0 } },
	{ "--load, human", METRIC_LAT, OUT_HUMAN, .load = LOAD_WRITE_BW,
	  .want = LAT_HUMAN PCT_HUMAN "|load|load BW[MiB/sec]", .prec = "0022222222202",
	  .at = { 22, 13, 12, -1, 11, 22, -1, 22, 13, 0 } },
	{ "--load-compare, CSV", METRIC_LAT, OUT_CSV, .load = LOAD_WRITE_BW, .compare = true,
	  .want = LAT_KEYS PCT_KEYS "|" LOAD_KEYS "|phase|ratio_p50|ratio_p90|ratio_p99|ratio_p99_9|"
		  "ratio_p99_99",
	  .prec = "0999999999999999999999999999", .at = { 28, 13, 12, -1, 13, 28, -1, 28, 13, 5 },
	  .ratio_of = { 5, 8, 9, 10, 11 } },
	{ "--load-compare -p 99,99.9 -W --interval, human", METRIC_LAT, OUT_HUMAN,
	  .load = LOAD_SEND_BW, .compare = true, .pcts = "99,99.9", .counters = "port_rcv_data",
	  .interval_s = 0.25,
	  .want = LAT_HUMAN "|99%[usec]|99.9%[usec]|port_rcv_data|load|load BW[MiB/sec]|phase|"
		  "ratio_p50|ratio_p99|ratio_p99_9|from[s]|to[s]|partial",
	  .prec = "0022222220020333330", .at = { 30, 11, 10, -1, 9, 25, -1, 25, 12, 3 },
	  .ratio_of = { 5, 8, 9 } },
	{ "--load-compare -p 99,99.9 -W --interval, JSON", METRIC_LAT, OUT_JSON,
	  .load = LOAD_SEND_BW, .compare = true, .pcts = "99,99.9", .counters = "port_rcv_data",
	  .interval_s = 0.25,
	  .want = LAT_KEYS "|lat_p99_us|lat_p99_9_us|lat_pct_method|ctr_port_rcv_data|" LOAD_KEYS
		  "|phase|ratio_p50|ratio_p99|ratio_p99_9|row_kind|t_start_s|t_end_s|interval_count|"
		  "ivl_partial",
	  .prec = "099999999999999999999999999999", .at = { 30, 11, 10, -1, 11, 25, -1, 25, 12, 3 },
	  .ratio_of = { 5, 8, 9 } },
	{ "latency --validate, human", METRIC_LAT, OUT_HUMAN, .validate = true,
	  .want = LAT_HUMAN PCT_HUMAN "|" VAL_HUMAN, .prec = "002222222220000",
	  .at = { 18, 13, 12, -1, 11, 18, 13, 18, -1, 0 } },
	{ "latency --interval, human", METRIC_LAT, OUT_HUMAN, .interval_s = 0.5,
	  .want = LAT_HUMAN PCT_HUMAN "|from[s]|to[s]|partial", .prec = "00222222222330",
	  .at = { 18, 13, 12, -1, 14, 13, -1, 13, -1, 0 } },
	{ "latency --interval, CSV", METRIC_LAT, OUT_CSV, .interval_s = 0.5,
	  .want = LAT_KEYS PCT_KEYS "|row_kind|t_start_s|t_end_s|interval_count|ivl_partial",
	  .prec = "099999999999999999", .at = { 18, 13, 12, -1, 13, 13, -1, 13, -1, 0 } },
	/* --cpu_util: this side's three, after the traded ones, before the intervals */
	{ "--cpu_util, human: CPU_Util[%] sixth, as perftest's", METRIC_BW, OUT_HUMAN, .cpu_util = true,
	  .want = BW_HUMAN "|CPU_Util[%]|user CPU[%]|sys CPU[%]", .prec = "00226222",
	  .at = { 14, 11, -1, -1, 5, 11, -1, 14, -1, 0 } },
	{ "latency --cpu_util --interval, CSV", METRIC_LAT, OUT_CSV, .cpu_util = true, .interval_s = 0.5,
	  .want = LAT_KEYS PCT_KEYS "|cpu_util_pct|cpu_user_pct|cpu_sys_pct|row_kind|t_start_s|t_end_s|"
		  "interval_count|ivl_partial",
	  .prec = "099999999999999999999", .at = { 21, 13, 12, -1, 13, 13, -1, 16, -1, 0 } },
	/* --perftest-headers: perftest 6.29's human table, its words */
	{ "--perftest-headers, bw", METRIC_BW, OUT_HUMAN, .pt_headers = true,
	  .want = BW_HUMAN, .prec = "00226", .at = { 11, 11, -1, -1, 5, 11, -1, 11, -1, 0 } },
	{ "--perftest-headers -b --report_gbits --cpu_util: the sums under perftest's words", METRIC_BW,
	  OUT_HUMAN, .pt_headers = true, .bidir = true, .gbits = true, .cpu_util = true,
	  .want = "#bytes|#iterations|BW peak[Gb/sec]|BW average[Gb/sec]|MsgRate[Mpps]|CPU_Util[%]",
	  .prec = "002262", .at = { 23, 20, -1, -1, 6, 20, -1, 23, -1, 0 } },
	{ "--perftest-headers, latency", METRIC_LAT, OUT_HUMAN, .pt_headers = true,
	  .want = LAT_HUMAN "|99% percentile[usec]|99.9% percentile[usec]", .prec = "002222222",
	  .at = { 13, 13, 12, -1, 9, 13, -1, 13, -1, 0 } },
	{ "--perftest-headers -D, latency", METRIC_LAT, OUT_HUMAN, .pt_headers = true, .duration_s = 2,
	  .want = "#bytes|#iterations|t_avg[usec]|tps average", .prec = "0022",
	  .at = { 13, 13, 12, -1, 4, 13, -1, 13, -1, 0 } },
	{ "--perftest-headers, CSV: no effect", METRIC_BW, OUT_CSV, .pt_headers = true,
	  .want = BW_KEYS, .prec = "09999999999", .at = { 11, 11, -1, -1, 11, 11, -1, 11, -1, 0 } },
	/* --output: one column, perftest's "%lf" */
	{ "--output=bandwidth -b --report_gbits: the sum in Gb/s", METRIC_BW, OUT_VALUE, .bidir = true,
	  .gbits = true, .output = PT_OUT_BW, .want = "bw_sum_avg_gbps", .prec = "6",
	  .at = { 20, 20, -1, -1, 1, 20, -1, 20, -1, 0 } },
	{ "--output=bandwidth: MiB/s", METRIC_BW, OUT_VALUE, .output = PT_OUT_BW,
	  .want = "bw_avg_mibps", .prec = "6", .at = { 11, 11, -1, -1, 1, 11, -1, 11, -1, 0 } },
	{ "--output=message_rate --cpu_util", METRIC_BW, OUT_VALUE, .output = PT_OUT_MR, .cpu_util = true,
	  .want = "msg_rate_mpps", .prec = "6", .at = { 14, 11, -1, -1, 1, 11, -1, 14, -1, 0 } },
	{ "--output=latency: t_avg", METRIC_LAT, OUT_VALUE, .output = PT_OUT_LAT,
	  .want = "lat_avg_us", .prec = "6", .at = { 13, 13, 12, -1, 1, 13, -1, 13, -1, 0 } },
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

static void case_options(const struct col_case *c, struct rb_options *o)
{
	static const double default_pcts[] = { 50, 90, 99, 99.9, 99.99 };
	char list[256], *save = NULL;

	memset(o, 0, sizeof(*o));
	o->format = c->fmt;
	o->bidir = c->bidir;
	o->report_gbits = c->gbits;
	o->validate = c->validate;
	o->threads = c->threads ? c->threads : 1;
	o->thread_rows = c->thread_rows;
	o->cpu_util = c->cpu_util;
	o->perftest_headers = c->pt_headers;
	o->duration_s = c->duration_s;
	o->pt_output = c->output;
	o->interval_s = c->interval_s;
	o->load_bench = c->load;
	o->load.compare = c->compare;
	snprintf(list, sizeof(list), "%s", c->pcts ? c->pcts : "");
	for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
		o->pcts[o->npct++] = strtod(p, NULL);
	if (!c->pcts) {
		o->npct = (int)(sizeof(default_pcts) / sizeof(default_pcts[0]));
		memcpy(o->pcts, default_pcts, sizeof(default_pcts));
	}
	snprintf(list, sizeof(list), "%s", c->counters ? c->counters : "");
	for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		struct rb_counter *k = &o->counters.c[o->counters.n++];

		snprintf(k->name, sizeof(k->name), "%s", p);
		snprintf(k->key, sizeof(k->key), "ctr_%s", p);
		snprintf(k->label, sizeof(k->label), "%s", p);
	}
}

/* The shown columns as the case lists them: labels or keys, and decimals. */
static void shown_text(const struct report *r, bool human, char *names, char *prec, size_t len)
{
	size_t n = 0;

	names[0] = '\0';
	for (int i = 0; i < r->ncols && n < len; i++)
		n += (size_t)snprintf(names + n, len - n, "%s%s", i ? "|" : "",
				      human ? r->cols[i].label : r->cols[i].key);
	for (int i = 0; i < r->ncols && i + 1 < (int)len; i++)
		prec[i] = (char)('0' + (r->cols[i].precision > 9 ? 9 : r->cols[i].precision));
	prec[r->ncols < (int)len ? r->ncols : 0] = '\0';
}

static void check_case(const struct col_case *c)
{
	static struct report r;
	struct rb_options o;
	char names[4096], prec[REPORT_MAX_COLS + 1];
	int got[10];
	bool human = c->fmt == OUT_HUMAN, same = true;

	case_options(c, &o);
	memset(&r, 0, sizeof(r));
	report_columns(&r, &o, c->metric);
	shown_text(&r, human, names, prec, sizeof(names));
	is_str(names, c->want, c->what);
	is_str(prec, c->prec, "  its precisions");
	memcpy(got, (int[10]){ r.nall, r.ctr_first, r.method_col, r.thread_col, r.shown_ctr_first,
			       r.nbase, r.val_first, r.ivl_first, r.load_first, r.load_nratio },
	       sizeof(got));
	for (int i = 0; i < 10; i++)
		same = same && got[i] == c->at[i];
	ok(same, "  its groups: nall %d, counters %d, method %d, thread %d, shown counters %d, "
	   "traded %d, validate %d, intervals %d, load %d, ratios %d", got[0], got[1], got[2],
	   got[3], got[4], got[5], got[6], got[7], got[8], got[9]);
	same = true;
	for (int k = 0; k < r.load_nratio; k++)
		same = same && r.load_ratio_of[k] == c->ratio_of[k];
	ok(same, "  each ratio's percentile column");
	if (c->pt_headers && human)
		ok(r.pt_blank == (c->bidir ? 2 : -1) && r.pt_tps == (c->duration_s > 0 ? 3 : -1),
		   "  the cells report_row fills: peak %d, tps %d", r.pt_blank, r.pt_tps);
	same = true;
	for (int i = 0; i < r.ncols; i++)
		same = same && r.shown[i] >= 0 && r.shown[i] < r.nall &&
		       (c->pt_headers || !strcmp(r.cols[i].key, r.all[r.shown[i]].key));
	ok(same && (human || c->fmt == OUT_VALUE || r.ncols == r.nall), "  shown columns index all[]%s",
	   human ? "" : c->fmt == OUT_VALUE ? ", one shown" : ", every one shown");
	if (c->cpu_util)
		ok(r.cpu_first == r.nbase && !strcmp(r.all[r.cpu_first].key, "cpu_util_pct"),
		   "  --cpu_util's columns at all[%d], never traded (nbase %d)", r.cpu_first, r.nbase);
}

/* A run's labels, keys and types do not depend on the format. */
static void check_formats_agree(void)
{
	static struct report h, j;
	struct rb_options o;
	bool same = true;

	case_options(&cases[19], &o);   /* every group but -j's and --validate's */
	report_columns(&h, &o, METRIC_LAT);
	o.format = OUT_JSON;
	report_columns(&j, &o, METRIC_LAT);
	same = h.nall == j.nall;
	for (int i = 0; same && i < h.nall; i++)
		same = !strcmp(h.all[i].key, j.all[i].key) && !strcmp(h.all[i].label, j.all[i].label) &&
		       h.all[i].type == j.all[i].type && h.all[i].precision == j.all[i].precision;
	ok(same, "all[] the same for human and JSON (%d columns)", h.nall);
}

static void check_method_names(void)
{
	static struct report r;
	struct rb_options o;
	union out_val v = { .u = PCT_HISTOGRAM };

	is_str(report_pct_method_name(PCT_EXACT), "exact", "method 0: exact");
	is_str(report_pct_method_name(PCT_HISTOGRAM), "histogram", "method 1: histogram");
	is_str(report_pct_method_name(7), "unknown", "another code: unknown");
	case_options(&cases[15], &o);   /* latency, CSV */
	report_columns(&r, &o, METRIC_LAT);
	is_str(report_cell_text(&r, r.method_col, v).s, "histogram", "the method cell as its name");
	is_int(report_cell_text(&r, 1, (union out_val){ .u = 42 }).u, 42, "another cell as it is");
}

int main(void)
{
	for (int i = 0; i < NCASES; i++)
		check_case(&cases[i]);
	check_formats_agree();
	check_method_names();
	return tap_done();
}
