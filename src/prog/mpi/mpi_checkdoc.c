/* rb_mpi --check's rank 0 side: the thresholds and the document (see
 * mpi_checkdoc.h). */
#include "prog/mpi/mpi_checkdoc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "lib/commit.h"
#include "lib/log.h"
#include "lib/units.h"
#include "prog/mpi/mpi_job.h"
#include "prog/mpi/mpi_load.h"
#include "prog/mpi/mpi_report.h"
#include "report/report.h"
#include "verbs/device.h"

static struct {
	struct out *out;
	FILE *file;
} doc;

/* ---- the thresholds ---- */

static int thr_line(struct check_thr *t, const char *key, const char *val, const char *where)
{
	double x;

	if (!strcmp(key, "min-bw") && !units_parse_rate(val, 1, 1e15, &x))
		t->min_bw_mibps = x / (1 << 20);
	else if (!strcmp(key, "max-p99") && !units_parse_double(val, 0, 1e9, &x))
		t->max_p99_us = x;
	else if (!strcmp(key, "mtu") && !units_parse_double(val, 256, 4096, &x) && device_mtu_enum((int)x))
		t->mtu = (int)x;
	else if (!strcmp(key, "gid-type") && check_gid_type_parse(val) > 0)
		t->gid_type = check_gid_type_parse(val);
	else
		return mpi_usage_error(where, key, "is not min-bw RATE, max-p99 US, mtu BYTES or gid-type v1|v2|IB with a valid value");
	return 0;
}

static int thr_file(struct check_thr *t, const char *path)
{
	char line[256], key[64], val[128], where[300];
	FILE *f = fopen(path, "r");
	int n = 0, err = 0, words;

	if (!f) {
		log_err("--check-thresholds %s: %s (rank 0's host reads it)", path, strerror(errno));
		return -EINVAL;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "#\n")] = '\0';
		snprintf(where, sizeof(where), "%s line %d", path, ++n);
		if ((words = sscanf(line, "%63s %127s", key, val)) == 2)
			err = thr_line(t, key, val, where);
		else if (words == 1)
			err = mpi_usage_error(where, key, "has no value");
	}
	fclose(f);
	return err;
}

int checkdoc_thresholds(const struct mpi_check_opt *c, struct check_thr *t)
{
	int err = c->thr_file ? thr_file(t, c->thr_file) : 0;

	if (c->min_bw_bps > 0)
		t->min_bw_mibps = c->min_bw_bps / (1 << 20);
	if (c->max_p99_us > 0)
		t->max_p99_us = c->max_p99_us;
	if (c->mtu > 0)
		t->mtu = (int)c->mtu;
	if (c->gid_type)
		t->gid_type = check_gid_type_parse(c->gid_type);
	return err;
}

/* ---- the document ---- */

static const struct out_col check_cols[] = {
	{ "rail", "rail", OUT_U64, 0 },
	{ "src_host", "src host", OUT_STR, 0 },
	{ "dst_host", "dst host", OUT_STR, 0 },
	{ "src_rank", "src", OUT_U64, 0 },
	{ "dst_rank", "dst", OUT_U64, 0 },
	{ "src_dev", "src dev", OUT_STR, 0 },
	{ "dst_dev", "dst dev", OUT_STR, 0 },
	{ "mtu_bytes", "MTU", OUT_U64, 0 },
	{ "gid_type", "GID type", OUT_STR, 0 },
	{ "lat_p50_us", "t_typical[usec]", OUT_DOUBLE, 2 },
	{ "lat_p99_us", "99%[usec]", OUT_DOUBLE, 2 },
	{ "bw_avg_mibps", "BW average[MiB/sec]", OUT_DOUBLE, 2 },
	{ "verdict", "verdict", OUT_STR, 0 },
	{ "reason", "reason", OUT_STR, 0 },
};
_Static_assert(sizeof(check_cols) / sizeof(check_cols[0]) == CHECKDOC_COLS, "CHECKDOC_COLS");

static void meta_thr(const struct check_thr *t)
{
	char bw[32] = "none", p99[32] = "none", mtu[32] = "the ends alike", buf[200];

	if (t->min_bw_mibps > 0)
		snprintf(bw, sizeof(bw), "%.2f MiB/s", t->min_bw_mibps);
	if (t->max_p99_us > 0)
		snprintf(p99, sizeof(p99), "%.2f us", t->max_p99_us);
	if (t->mtu)
		snprintf(mtu, sizeof(mtu), "%d", t->mtu);
	snprintf(buf, sizeof(buf), "min-bw %s, max-p99 %s, MTU %s, GID type %s", bw, p99, mtu,
		 t->gid_type ? gid_type_name((enum gid_type)(t->gid_type - 1)) : "the ends alike");
	out_meta_str(doc.out, "thresholds", "Thresholds", buf);
}

static void meta_bench(const char *key, const char *label, const struct rb_options *o)
{
	char buf[120];

	if (o->duration_s > 0)
		snprintf(buf, sizeof(buf), "%llu bytes, %.3f s", (unsigned long long)o->size, o->duration_s);
	else
		snprintf(buf, sizeof(buf), "%llu bytes, %llu iterations", (unsigned long long)o->size,
			 (unsigned long long)o->iters);
	out_meta_str(doc.out, key, label, buf);
}

int checkdoc_open(const struct mpi_job *job, const struct check_thr *t, int nrails, const char *odd)
{
	const struct rb_options *o = &job->opt;
	int err = mpi_doc_open(o, &doc.file, &doc.out);

	if (err)
		return err;
	out_meta_str(doc.out, "tool", "Tool", "rdmabench");
	out_meta_str(doc.out, "version", "Version", PACKAGE_VERSION);
	out_meta_str(doc.out, "commit", "Commit", rb_commit());
	out_meta_str(doc.out, "test", "Test", "rb_mesh check");
	out_meta_u64(doc.out, "ranks", "Ranks", (uint64_t)job->nranks);
	out_meta_u64(doc.out, "rails", "Rails", (uint64_t)nrails);
	out_meta_str(doc.out, "rail_devices", "Rail devices", job->chk.rails ? job->chk.rails : "each host's devices, sorted by name");
	meta_bench("latency_test", "Latency: " CHECK_LAT_BENCH, &job->chk.lat_opt);
	meta_bench("bandwidth_test", "Bandwidth: " CHECK_BW_BENCH, o);
	out_meta_str(doc.out, "schedule", "Schedule", "rounds (disjoint links at once), rail after rail, write_lat then write_bw");
	meta_thr(t);
	out_meta_str(doc.out, "odd_ends", "Odd ends (unlike their rail's majority)", odd);
	report_meta_time(doc.out);
	out_meta_str(doc.out, "command_line", "Command", job->cmdline);
	out_begin(doc.out, "rb_mesh check: every rail, link by link", check_cols, CHECKDOC_COLS);
	return 0;
}

void checkdoc_row(const union out_val *v)
{
	if (doc.out)
		out_row(doc.out, v);
}

void checkdoc_close(const char *error)
{
	mpi_doc_end(&doc.out, doc.file, error);
}
