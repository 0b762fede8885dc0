/* Files beside the results: the results CSV's sidecar, the -H and --raw files
 * of each size and theirs (report.h). */
#include "report/report.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/load.h"
#include "engine/loops.h"
#include "lib/log.h"

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
