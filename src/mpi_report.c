#include "mpi_job.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

/* Rank 0's document: the single-pair columns after the link's ends. */
static const struct out_col link_cols[] = {
	{ "pattern", "pattern", OUT_STR, 0 },
	{ "src_host", "src host", OUT_STR, 0 },
	{ "dst_host", "dst host", OUT_STR, 0 },
	{ "src_rank", "src", OUT_U64, 0 },
	{ "dst_rank", "dst", OUT_U64, 0 },
};

#define N_LINK_COLS ((int)(sizeof(link_cols) / sizeof(link_cols[0])))

static struct {
	struct out *out;
	FILE *file;
	struct out_col cols[N_LINK_COLS + REPORT_MAX_COLS];
	int ncols;
} doc;

const char *mpi_pattern_name(enum mpi_pattern p)
{
	return p == PATTERN_RING ? "ring" : p == PATTERN_BISECTION ? "bisection" : "pairs";
}

static void meta_job(const struct mpi_job *job)
{
	const struct rb_options *o = &job->opt;

	out_meta_str(doc.out, "tool", "Tool", "rdmabench");
	out_meta_str(doc.out, "version", "Version", PACKAGE_VERSION);
	out_meta_str(doc.out, "test", "Test", job->bench->name);
	out_meta_str(doc.out, "pattern", "Pattern", mpi_pattern_name(job->pattern));
	out_meta_u64(doc.out, "ranks", "Ranks", (uint64_t)job->nranks);
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

int mpi_report_open(struct mpi_job *job)
{
	const struct rb_options *o = &job->opt;

	doc.file = stdout;
	if (o->out_file && !(doc.file = fopen(o->out_file, "w"))) {
		log_err("cannot write the results file %s: %s", o->out_file, strerror(errno));
		return -errno;
	}
	doc.out = out_open(o->format, doc.file);
	if (!doc.out)
		return -ENOMEM;
	if (o->format == OUT_CSV && report_sidecar(doc.out, o->out_file))
		return -EIO;
	memcpy(doc.cols, link_cols, sizeof(link_cols));
	memcpy(doc.cols + N_LINK_COLS, job->cols.cols, (size_t)job->cols.ncols * sizeof(doc.cols[0]));
	doc.ncols = N_LINK_COLS + job->cols.ncols;
	meta_job(job);
	out_begin(doc.out, job->bench->title, doc.cols, doc.ncols);
	return 0;
}

void mpi_report_rows(struct mpi_job *job, const uint64_t *recs, int n)
{
	int len = MPI_REC_LEN(job);

	for (int i = 0; i < n; i++) {
		const uint64_t *rec = recs + (size_t)i * (size_t)len;
		union out_val v[N_LINK_COLS + REPORT_MAX_COLS];
		int src = (int)rec[0], dst = (int)rec[1];

		if (src < 0 || src >= job->nranks || dst < 0 || dst >= job->nranks)
			continue;
		v[0].s = mpi_pattern_name(job->pattern);
		v[1].s = job->hosts[src];
		v[2].s = job->hosts[dst];
		v[3].u = (uint64_t)src;
		v[4].u = (uint64_t)dst;
		for (int c = 0; c < job->cols.ncols; c++)
			v[N_LINK_COLS + c].u = rec[2 + job->cols.shown[c]];
		out_row(doc.out, v);
		if (mpi_rows_add(&job->all_rows, rec, len))
			log_warn("out of memory: the outlier list will miss rows");
	}
}

void mpi_report_close(struct mpi_job *job, const char *error)
{
	if (!doc.out)
		return;
	out_end(doc.out, error ? "failed" : rb_stop ? "partial" : "complete", error);
	doc.out = NULL;
	if (doc.file != stdout)
		fclose(doc.file);
	free(job->all_rows.v);
	job->all_rows.v = NULL;
}

/* ---- outliers ---- */

static int col_index(const struct mpi_job *job, const char *key)
{
	for (int i = 0; i < job->cols.nall; i++)
		if (!strcmp(job->cols.all[i].key, key))
			return i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Over one size's links: bandwidth below the median, latency above it. */
static void outliers_of_size(const struct mpi_job *job, uint64_t size, int metric, bool lat)
{
	int len = MPI_REC_LEN(job), nrec = job->all_rows.n / len, n = 0;
	double *v = calloc((size_t)nrec + 1, sizeof(*v)), median;

	if (!v)
		return;
	for (int i = 0; i < nrec; i++) {
		const uint64_t *rec = job->all_rows.v + (size_t)i * (size_t)len;
		union out_val x = { .u = rec[2 + metric] };

		if (rec[2] == size && !isnan(x.d))
			v[n++] = x.d;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	median = n % 2 ? v[n / 2] : n ? (v[n / 2 - 1] + v[n / 2]) / 2 : NAN;
	for (int i = 0; i < nrec && n >= 3 && median > 0; i++) {
		const uint64_t *rec = job->all_rows.v + (size_t)i * (size_t)len;
		union out_val x = { .u = rec[2 + metric] };
		double off = (lat ? x.d - median : median - x.d) / median * 100;

		if (rec[2] != size || isnan(x.d) || off < job->outlier_pct)
			continue;
		fprintf(stderr, "rb_mpi: outlier: %s (rank %d) -> %s (rank %d): %.0f %% %s the median link at %llu bytes (%.2f vs %.2f %s)\n",
			job->hosts[rec[0]], (int)rec[0], job->hosts[rec[1]], (int)rec[1], off,
			lat ? "above" : "below", (unsigned long long)size, x.d, median,
			lat ? "usec p50" : "MiB/s");
	}
	free(v);
}

void mpi_report_outliers(const struct mpi_job *job)
{
	bool lat = job->bench->metric == METRIC_LAT;
	int metric = col_index(job, lat ? "lat_p50_us" : "bw_avg_mibps");
	int len = MPI_REC_LEN(job), nrec = job->all_rows.n / len;
	uint64_t last = 0;

	if (metric < 0)
		return;
	/* sizes come in the same order on every link: each once */
	for (int i = 0; i < nrec; i++) {
		uint64_t size = job->all_rows.v[(size_t)i * (size_t)len + 2];

		if (i && size <= last)
			break;
		outliers_of_size(job, size, metric, lat);
		last = size;
	}
}
