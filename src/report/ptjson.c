/*
 * --out_json: the document perftest 6.29 writes (perftest_parameters.c:
 * write_test_info_to_file, write_bw_report_to_file,
 * write_report_lat_to_file, write_report_lat_duration_to_file), its keys,
 * nesting and units: {"test_info": {...}, "results": {...}}.  As perftest,
 * the file is rewritten at each size (a sweep leaves its last), BW_* are
 * MiB/s (Gb/s with --report_gbits), latencies usec, MsgRate Mpps; a peak
 * not measured is 0.00 (perftest's), another missing value null.  Where
 * perftest writes invalid JSON (--output with a bandwidth test: a comma
 * before "}") this writes it valid.  Our own --json is report.c's.
 */
#include "report/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "report/columns.h"

/* "RDMA_Write_Bidirectional_BW_Test", "Atomic_FETCH_AND_ADD_BW_Test" */
static void pt_test_name(FILE *f, const struct rb_session *s)
{
	static const char *const verbs[] = { [VERB_SEND] = "Send", [VERB_WRITE] = "RDMA_Write",
					     [VERB_READ] = "RDMA_Read", [VERB_ATOMIC] = "Atomic" };
	const struct rb_options *o = s->opt;
	bool bw = s->bench->metric != METRIC_LAT;

	fprintf(f, "\"test\": \"%s_", verbs[s->bench->verb]);
	if (s->bench->verb == VERB_ATOMIC)
		fprintf(f, "%s_", options_atomic_name(o->atomic_op));
	fprintf(f, "%s%s%s", bw && o->bidir ? "Bidirectional_" : "",
		bw && o->post_list > 1 ? "Post_List_" : "", bw ? "BW_" : "Latency_");
	fputs("Test\",\n", f);
}

static void pt_test_depths(FILE *f, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;

	if (s->is_client || o->bidir)
		fprintf(f, "\"TX_depth\": %u,\n", o->tx_depth);
	if (o->post_list > 1)
		fprintf(f, "\"Post_List\": %u,\n", o->post_list);
	if (s->bench->verb == VERB_SEND && (!s->is_client || o->bidir))
		fprintf(f, "\"RX_depth\": %u,\n", o->rx_depth);
	if (s->bench->metric != METRIC_LAT)
		fprintf(f, "\"CQ_Moderation\": %u,\n", s->run.cq_mod ? s->run.cq_mod : o->cq_mod);
}

static void pt_test_info(FILE *f, const struct rb_session *s)
{
	const struct rb_options *o = s->opt;
	const struct rb_device *d = &s->conn.dev;

	fputs("\"test_info\": {\n", f);
	pt_test_name(f, s);
	if (o->events)
		fprintf(f, "\"Test with events\": \"Using_%s_comp0\",\n", d->name);
	fprintf(f, "\"Dual_port\": \"OFF\",\n\"Device\": \"%s\",\n", d->name);
	fprintf(f, "\"Number_of_qps\": %u,\n\"Transport_type\": \"IB\",\n", o->qps);
	fprintf(f, "\"Connection_type\": \"%s\",\n\"Using_SRQ\": \"OFF\",\n",
		options_transport_name(o->transport));
	fprintf(f, "\"PCIe_relax_order\": \"%s\",\n", s->conn.q.relaxed == RO_OFF ? "OFF" : "ON");
	fputs("\"ibv_wr_API\": \"ON\",\n", f);
	pt_test_depths(f, s);
	fprintf(f, "\"Mtu\": %u,\n", (unsigned)device_mtu_bytes(s->conn.q.mtu));
	fprintf(f, "\"Link_type\": \"%s\",\n", d->ib_link ? "IB" : "Ethernet");
	fprintf(f, "\"GID_index\": %d,\n", d->gid.index);
	if (s->bench->verb == VERB_READ || s->bench->verb == VERB_ATOMIC)
		fprintf(f, "\"Outstand_reads\": %u,\n", (unsigned)s->conn.q.outs);
	else
		fprintf(f, "\"Max_inline_data\": %u,\n", (unsigned)s->conn.q.max_inline);
	fprintf(f, "\"rdma_cm_QPs\": \"%s\",\n", o->rdma_cm ? "ON" : "OFF");
	fputs("\"Use_ROCm_memory\": \"OFF\",\n\"Use_MUSA_memory\": \"OFF\",\n", f);
	fprintf(f, "\"Data_ex_method\": \"%s\"", o->rdma_cm ? "rdma_cm" : "Ethernet");
	if (o->rdma_cm && o->tclass >= 0)
		fprintf(f, ",\n\"TOS\": %d", o->tclass);
	fputs("\n},\n", f);
}

static const char *pt_path(const struct rb_options *o)
{
	return o->pt_json_file ? o->pt_json_file : PT_JSON_DEFAULT_FILE;
}

int ptjson_check(const struct rb_options *o)
{
	FILE *f;

	if (!o->pt_json)
		return 0;
	f = fopen(pt_path(o), "a");
	if (!f) {
		int err = -errno;

		log_err("--out_json: cannot write %s: %s", pt_path(o), strerror(errno));
		return err;
	}
	fclose(f);
	return 0;
}

int ptjson_begin(struct report *r, const struct rb_session *s)
{
	size_t len = 0;
	FILE *f;

	if (!s->opt->pt_json)
		return 0;
	f = open_memstream(&r->pt_info, &len);
	if (!f)
		return -ENOMEM;
	pt_test_info(f, s);
	fclose(f);
	r->pt_opt = s->opt;
	r->pt_lat = s->bench->metric == METRIC_LAT;
	return 0;
}

/* "key": value with perftest's decimals; NaN: null (a peak: 0.00). */
static void pt_num(FILE *f, const char *key, double v, int prec, bool last)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.*f%s\n", key, prec, v, last ? "" : ",");
	else
		fprintf(f, "\"%s\": null%s\n", key, last ? "" : ",");
}

static double pt_col(const struct report *r, const union out_val *row, const char *key)
{
	for (int i = 0; i < r->nall; i++)
		if (!strcmp(r->all[i].key, key))
			return row[i].d;
	return NAN;
}

static void pt_results_bw(const struct report *r, FILE *f, const union out_val *row)
{
	const struct rb_options *o = r->pt_opt;
	bool g = o->report_gbits, b = o->bidir;
	double peak = b ? NAN : row[g ? BW_PEAK_GB : BW_PEAK_MIB].d;
	double avg = row[b ? (g ? BW_SUM_AVG_GB : BW_SUM_AVG_MIB) : (g ? BW_AVG_GB : BW_AVG_MIB)].d;
	double rate = row[b ? BW_SUM_RATE : BW_RATE].d;
	int prec = g && avg < 0.1 ? 6 : 2;	/* perftest's REPORT_FMT_EXT_JSON */

	if (o->pt_output) {
		pt_num(f, o->pt_output == PT_OUT_MR ? "msgRate_avg" : "bw_avg",
		       o->pt_output == PT_OUT_MR ? rate : avg, 6, true);
		return;
	}
	fprintf(f, "\"MsgSize\": %llu,\n\"n_iterations\": %llu,\n",
		(unsigned long long)row[BW_SIZE].u, (unsigned long long)row[BW_ITERS].u);
	pt_num(f, "BW_peak", isfinite(peak) ? peak : 0, prec, false);
	pt_num(f, "BW_average", avg, prec, false);
	pt_num(f, "MsgRate", rate, 6, !o->cpu_util);
}

static void pt_results_lat(const struct report *r, FILE *f, const union out_val *row)
{
	const struct rb_options *o = r->pt_opt;
	bool dur = o->duration_s > 0 || o->run_infinitely;
	double win = row[LAT_WINDOW].d;

	if (o->pt_output) {
		pt_num(f, dur ? "t_avg" : "avg_lat", row[LAT_AVG].d, 6, true);
		return;
	}
	fprintf(f, "\"MsgSize\": %llu,\n\"n_iterations\": %llu,\n",
		(unsigned long long)row[LAT_SIZE].u, (unsigned long long)row[LAT_ITERS].u);
	if (dur) {
		pt_num(f, "t_avg", row[LAT_AVG].d, 2, false);
		pt_num(f, "tps_average", win > 0 ? (double)row[LAT_ITERS].u / win : NAN, 2, !o->cpu_util);
		return;
	}
	pt_num(f, "t_min", row[LAT_MIN].d, 2, false);
	pt_num(f, "t_max", row[LAT_MAX].d, 2, false);
	pt_num(f, "t_typical", row[LAT_P50].d, 2, false);
	pt_num(f, "t_avg", row[LAT_AVG].d, 2, false);
	pt_num(f, "t_stdev", row[LAT_STDEV].d, 2, false);
	pt_num(f, "percentile_99", pt_col(r, row, "lat_p99_us"), 2, false);
	pt_num(f, "percentile_99.9", pt_col(r, row, "lat_p99_9_us"), 2, !o->cpu_util);
}

void ptjson_row(const struct report *r, const union out_val *row)
{
	const struct rb_options *o = r->pt_opt;
	const char *path;
	FILE *f;

	if (!r->pt_info)
		return;
	path = pt_path(o);
	f = fopen(path, "w");
	if (!f) {
		log_err("--out_json: cannot write %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "{\n%s\"results\": {\n", r->pt_info);
	if (r->pt_lat)
		pt_results_lat(r, f, row);
	else
		pt_results_bw(r, f, row);
	if (o->cpu_util && !o->pt_output)
		pt_num(f, "CPU_util", row[r->cpu_first + CPU_UTIL].d, 2, true);
	fputs("}\n}\n", f);
	if (fclose(f))
		log_err("--out_json: writing %s failed: %s", path, strerror(errno));
}

void ptjson_end(struct report *r)
{
	free(r->pt_info);
	r->pt_info = NULL;
}
