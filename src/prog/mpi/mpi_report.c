#include "prog/mpi/mpi_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/run.h"
#include "lib/commit.h"
#include "config.h"
#include "lib/log.h"
#include "prog/mpi/mpi_plan.h"

/* Rank 0's document: the link's ends, the single-pair columns, then where
 * and how the link ran (and its switches, with --topology). */
static const struct out_col link_cols[] = {
	{ "pattern", "pattern", OUT_STR, 0 },
	{ "src_host", "src host", OUT_STR, 0 },
	{ "dst_host", "dst host", OUT_STR, 0 },
	{ "src_rank", "src", OUT_U64, 0 },
	{ "dst_rank", "dst", OUT_U64, 0 },
};
static const struct out_col tail_cols[] = {
	{ "round", "round", OUT_U64, 0 },
	{ "link_status", "link", OUT_STR, 0 },
	{ "link_error", "error", OUT_STR, 0 },
	{ "src_switch", "src switch", OUT_STR, 0 },
	{ "dst_switch", "dst switch", OUT_STR, 0 },
};

/* Under load (--background): what the row is, and the background's figures. */
static const struct out_col load_cols[] = {
	{ "role", "role", OUT_STR, 0 },
	{ "load_links", "load links", OUT_U64, 0 },
	{ "load_bw_mibps", "load BW [MiB/s]", OUT_DOUBLE, 2 },
};

#define N_LINK_COLS ((int)(sizeof(link_cols) / sizeof(link_cols[0])))
#define N_TAIL_COLS ((int)(sizeof(tail_cols) / sizeof(tail_cols[0])))
#define N_LOAD_COLS ((int)(sizeof(load_cols) / sizeof(load_cols[0])))

/* What the outlier list needs of an ok row; the rows themselves are on disk. */
struct summary_rec {
	int src, dst;
	uint64_t size;
	double metric;
};

static struct {
	struct out *out;
	FILE *file;
	struct out_col cols[N_LINK_COLS + REPORT_MAX_COLS + N_TAIL_COLS + N_LOAD_COLS];
	int ncols, ntail, nload;
	int metric;                 /* index in the record's columns, -1: none */
	struct summary_rec *sum;
	size_t nsum, capsum;
} doc;

int mpi_report_col(const struct mpi_job *job, const char *key)
{
	for (int i = 0; i < job->cols.nall; i++)
		if (!strcmp(job->cols.all[i].key, key))
			return i;
	return -1;
}

static int max_ranks_per_host(const struct mpi_job *job)
{
	int most = 1;

	for (int i = 0; i < job->nranks; i++) {
		int same = 0;

		for (int j = 0; j < job->nranks && job->nranks <= 4096; j++)
			same += !strcmp(job->hosts[i], job->hosts[j]);
		most = same > most ? same : most;
	}
	return most;
}

static void meta_schedule(const struct mpi_job *job)
{
	out_meta_str(doc.out, "schedule", "Schedule",
		     job->pattern == SCHED_SEQUENTIAL ? "sequential (one link at a time)" :
		     job->pattern == SCHED_ROUNDS ? "rounds (disjoint links at once)" :
		     job->pattern == SCHED_LOAD ? "the latency pair idle, then under each load" :
		     "one round per step");
	mpi_plan_meta_extra(doc.out, job, &job->sched);
	if (job->pattern == SCHED_LOAD)
		out_meta_str(doc.out, "load_window", "Load runs",
			     "each background link from its loop's start (before the pair connects) until the pair's client stops it (after the pair's last sample); its bandwidth over that time");
	out_meta_u64(doc.out, "rounds", "Rounds", (uint64_t)job->sched.nrounds);
	out_meta_u64(doc.out, "links_at_once", "Links at once (most)", (uint64_t)sched_max_links(&job->sched));
	out_meta_u64(doc.out, "ranks_per_host", "Ranks per host (most)", (uint64_t)max_ranks_per_host(job));
	out_meta_str(doc.out, "topology", "Topology", job->topology ? job->topology : "none");
}

static void meta_job(const struct mpi_job *job)
{
	const struct rb_options *o = &job->opt;

	out_meta_str(doc.out, "tool", "Tool", "rdmabench");
	out_meta_str(doc.out, "version", "Version", PACKAGE_VERSION);
	out_meta_str(doc.out, "commit", "Commit", rb_commit());
	out_meta_str(doc.out, "test", "Test", job->bench->name);
	out_meta_str(doc.out, "pattern", "Pattern", sched_name(job->pattern));
	out_meta_u64(doc.out, "ranks", "Ranks", (uint64_t)job->nranks);
	meta_schedule(job);
	out_meta_str(doc.out, "device", "Device", o->ib_dev ? o->ib_dev : "each rank's first");
	out_meta_str(doc.out, "transport", "Connection type", options_transport_name(o->transport));
	out_meta_u64(doc.out, "qps", "Number of qps", o->qps);
	out_meta_str(doc.out, "connect", "Connection setup", "manual (MPI exchange)");
	if (o->duration_s > 0) {
		out_meta_double(doc.out, "duration_s", "Duration[s]", o->duration_s, 3);
		out_meta_double(doc.out, "warmup_s", "Warm-up[s]", o->warmup_s, 3);
	} else {
		out_meta_u64(doc.out, "iterations", "Iterations", o->iters);
		out_meta_u64(doc.out, "warmup_iterations", "Warm-up iterations", o->warmup_iters);
	}
	if (job->bench->metric == METRIC_LAT)
		out_meta_str(doc.out, "latency", "Latency", job->bench->lat_divisor == 2 ?
			     "one-way = round trip / 2" : "round trip of one operation");
	report_meta_time(doc.out);
	out_meta_str(doc.out, "command_line", "Command", job->cmdline);
}

int mpi_doc_open(const struct rb_options *o, FILE **file, struct out **out)
{
	*file = stdout;
	if (o->out_file && !(*file = fopen(o->out_file, "w"))) {
		log_err("cannot write the results file %s: %s", o->out_file, strerror(errno));
		return -errno;
	}
	*out = out_open(o->format, *file);
	if (!*out)
		return -ENOMEM;
	if (o->format == OUT_CSV && report_sidecar(*out, o->out_file))
		return -EIO;
	return 0;
}

void mpi_doc_end(struct out **out, FILE *file, const char *error)
{
	if (!*out)
		return;
	out_end(*out, error ? "failed" : rb_stop ? "partial" : "complete", error);
	*out = NULL;
	if (file != stdout)
		fclose(file);
}

int mpi_report_open(struct mpi_job *job)
{
	bool lat = job->bench->metric == METRIC_LAT;
	int err = mpi_doc_open(&job->opt, &doc.file, &doc.out);

	if (err)
		return err;
	doc.ntail = job->group ? N_TAIL_COLS : N_TAIL_COLS - 2;
	doc.nload = job->pattern == SCHED_LOAD ? N_LOAD_COLS : 0;
	memcpy(doc.cols, link_cols, sizeof(link_cols));
	memcpy(doc.cols + N_LINK_COLS, job->cols.cols, (size_t)job->cols.ncols * sizeof(doc.cols[0]));
	memcpy(doc.cols + N_LINK_COLS + job->cols.ncols, tail_cols, (size_t)doc.ntail * sizeof(doc.cols[0]));
	doc.ncols = N_LINK_COLS + job->cols.ncols + doc.ntail;
	memcpy(doc.cols + doc.ncols, load_cols, (size_t)doc.nload * sizeof(doc.cols[0]));
	doc.ncols += doc.nload;
	doc.metric = mpi_report_col(job, lat ? "lat_p50_us" : "bw_avg_mibps");
	meta_job(job);
	out_begin(doc.out, job->bench->title, doc.cols, doc.ncols);
	return 0;
}

static void summary_add(const uint64_t *rec)
{
	union out_val x;

	if (doc.metric < 0 || rec[REC_STATUS] != LINK_OK)
		return;
	x.u = rec[REC_COLS + doc.metric];
	if (isnan(x.d))
		return;
	if (doc.nsum == doc.capsum) {
		size_t cap = doc.capsum ? 2 * doc.capsum : 1024;
		struct summary_rec *v = realloc(doc.sum, cap * sizeof(*v));

		if (!v) {
			log_warn("out of memory: the outlier list will miss rows");
			return;
		}
		doc.sum = v;
		doc.capsum = cap;
	}
	doc.sum[doc.nsum++] = (struct summary_rec){ (int)rec[REC_SRC], (int)rec[REC_DST],
						    rec[REC_COLS], x.d };
}

/* Under load: the row's role, the background links running, its bandwidth. */
static void row_load(const struct mpi_job *job, const uint64_t *rec, union out_val *v)
{
	struct sched_link l = { (int)rec[REC_SRC], (int)rec[REC_DST] };
	bool bg = sched_is_background(&job->sched, &l);

	v[0].s = bg ? "background" : rec[REC_ROUND] ? "loaded" : "idle";
	v[1].u = bg ? 0 : rec[REC_LOAD_UP];
	v[2].u = rec[REC_LOAD_BW];
}

/* A record's row: failed and unmeasured links have no figures (NaN, 0). */
static void row_of(const struct mpi_job *job, const uint64_t *rec, union out_val *v)
{
	int src = (int)rec[REC_SRC], dst = (int)rec[REC_DST], t = N_LINK_COLS + job->cols.ncols;
	bool ok = rec[REC_STATUS] == LINK_OK;

	v[0].s = sched_round_name(&job->sched, (int)rec[REC_ROUND]);
	v[1].s = job->hosts[src];
	v[2].s = job->hosts[dst];
	v[3].u = (uint64_t)src;
	v[4].u = (uint64_t)dst;
	for (int c = 0; c < job->cols.ncols; c++) {
		int i = job->cols.shown[c];

		v[N_LINK_COLS + c] = report_cell_text(&job->cols, i, (union out_val){ .u = rec[REC_COLS + i] });
		if (!ok && job->cols.cols[c].type == OUT_DOUBLE)
			v[N_LINK_COLS + c].d = NAN;
		if (!ok && job->cols.cols[c].type == OUT_STR)
			v[N_LINK_COLS + c].s = "";
	}
	v[t].u = rec[REC_ROUND];
	v[t + 1].s = link_status_name((enum link_status)rec[REC_STATUS]);
	v[t + 2].s = (const char *)(rec + REC_CAUSE);
	if (job->group) {
		v[t + 3].s = job->group_names[job->group[src]];
		v[t + 4].s = job->group_names[job->group[dst]];
	}
	if (doc.nload)
		row_load(job, rec, v + t + doc.ntail);
}

void mpi_report_rows(struct mpi_job *job, const uint64_t *recs, int n)
{
	int len = MPI_REC_LEN(job);


	for (int i = 0; i < n && doc.out; i++) {
		const uint64_t *rec = recs + (size_t)i * (size_t)len;
		union out_val v[N_LINK_COLS + REPORT_MAX_COLS + N_TAIL_COLS + N_LOAD_COLS];
		char *cause = (char *)(rec + REC_CAUSE);

		if (rec[REC_SRC] >= (uint64_t)job->nranks || rec[REC_DST] >= (uint64_t)job->nranks ||
		    rec[REC_STATUS] > LINK_UNMEASURED)
			continue;
		cause[MPI_CAUSE_WORDS * sizeof(uint64_t) - 1] = '\0';
		row_of(job, rec, v);
		out_row(doc.out, v);
		summary_add(rec);
	}
}

static void unmeasured_one(struct mpi_job *job, const struct sched_link *l, int r, uint64_t *rec)
{
	memset(rec, 0, (size_t)MPI_REC_LEN(job) * sizeof(*rec));
	mpi_rec_head(rec, l->src, l->dst, r, LINK_UNMEASURED, "the job ended before this link ran");
	rec[REC_COLS] = job->opt.all ? 0 : job->opt.size;
	job->take_rows(job, rec, 1);
}

void mpi_report_unmeasured(struct mpi_job *job, int r, const bool *got)
{
	struct sched_link *l = calloc((size_t)job->nranks, sizeof(*l));
	uint64_t *rec = calloc((size_t)MPI_REC_LEN(job), sizeof(*rec));
	long long n = 0;

	if (!l || !rec) {
		log_err("out of memory: the links not measured are not listed");
		goto out;
	}
	for (; r < job->sched.nrounds; r++, got = NULL) {
		int nl = sched_round(&job->sched, r, l);

		for (int i = 0; i < nl; i++, n++)
			if (!got || !got[l[i].src])
				unmeasured_one(job, &l[i], r, rec);
			else
				n--;
	}
	if (n)
		log_err("%lld links not measured: rows with link_status \"unmeasured\" in the results", n);
out:
	free(l);
	free(rec);
}

void mpi_report_close(struct mpi_job *job, const char *error)
{
	(void)job;
	if (!doc.out)
		return;
	mpi_doc_end(&doc.out, doc.file, error);
	free(doc.sum);
	doc.sum = NULL;
}

/* ---- outliers ---- */

#define OUTLIERS_SHOWN 20

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of_size(uint64_t size)
{
	double *v = calloc(doc.nsum + 1, sizeof(*v)), median;
	size_t n = 0;

	if (!v)
		return NAN;
	for (size_t i = 0; i < doc.nsum; i++)
		if (doc.sum[i].size == size)
			v[n++] = doc.sum[i].metric;
	qsort(v, n, sizeof(*v), cmp_double);
	median = n < 3 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return median;
}

/* How far a link is from the median, worse side positive (%). */
static double off_of(double x, double median, bool lat)
{
	return (lat ? x - median : median - x) / median * 100;
}

static int cmp_worst(const void *a, const void *b, void *arg)
{
	const bool *lat = arg;
	const struct summary_rec *x = a, *y = b;

	return *lat ? cmp_double(&y->metric, &x->metric) : cmp_double(&x->metric, &y->metric);
}

/* Over one size's links: bandwidth below the median, latency above it; the worst first. */
static void outliers_of_size(const struct mpi_job *job, uint64_t size, bool lat)
{
	double median = median_of_size(size);
	struct summary_rec *w = calloc(doc.nsum + 1, sizeof(*w));
	size_t n = 0;

	for (size_t i = 0; w && median > 0 && i < doc.nsum; i++)
		if (doc.sum[i].size == size && off_of(doc.sum[i].metric, median, lat) >= job->outlier_pct)
			w[n++] = doc.sum[i];
	if (n)
		qsort_r(w, n, sizeof(*w), cmp_worst, &lat);
	for (size_t i = 0; i < n && i < OUTLIERS_SHOWN; i++)
		fprintf(stderr, "rb_mpi: outlier: %s (rank %d) -> %s (rank %d): %.0f %% %s the median link at %llu bytes (%.2f vs %.2f %s)\n",
			job->hosts[w[i].src], w[i].src, job->hosts[w[i].dst], w[i].dst,
			off_of(w[i].metric, median, lat), lat ? "above" : "below",
			(unsigned long long)size, w[i].metric, median, lat ? "usec p50" : "MiB/s");
	if (n > OUTLIERS_SHOWN)
		fprintf(stderr, "rb_mpi: outlier: %zu more links at %llu bytes are %g %% or more off the median (the %d worst shown; all rows are in the results)\n",
			n - OUTLIERS_SHOWN, (unsigned long long)size, job->outlier_pct, OUTLIERS_SHOWN);
	free(w);
}

void mpi_report_outliers(const struct mpi_job *job)
{
	bool lat = job->bench->metric == METRIC_LAT;
	uint64_t last = 0;

	/* sizes come in the same order on every link: each once */
	for (size_t i = 0; i < doc.nsum; i++) {
		if (i && doc.sum[i].size <= last)
			break;
		outliers_of_size(job, doc.sum[i].size, lat);
		last = doc.sum[i].size;
	}
}
