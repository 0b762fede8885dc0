#include "prog/mpi/mpi_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/registry.h"
#include "config.h"
#include "driver/run.h"
#include "lib/commit.h"
#include "lib/log.h"
#include "lib/output.h"
#include "lib/units.h"
#include "prog/mpi/mpi_job.h"
#include "prog/mpi/mpi_plan.h"
#include "prog/mpi/mpi_steps.h"
#include "report/report.h"
#include "verbs/device.h"

/* What one link measured on the rail being run (rank 0). */
struct link_fig {
	struct check_run lat, bw;
	double p50, p99, mibps;
};

static struct {
	char dev[CHECK_MAX_RAILS][CHECK_DEV_LEN];  /* this rank's rails */
	int ndev, nrails;
	int rail;                   /* the rail being run */
	bool lat_pass;              /* its write_lat pass, else write_bw's */
	int col_p50, col_p99, col_bw;
	struct check_end *ends;     /* rank 0: nranks x nrails */
	struct link_fig *fig;       /* rank 0: nranks x nranks */
	struct check_thr thr;
	struct out *out;
	FILE *file;
	int links, failed;
} ck;

/* ---- options ---- */

static int usage_error(const char *opt, const char *val, const char *hint)
{
	log_err("%s %s: %s", opt, val, hint);
	return -EINVAL;
}

/* The benchmark words must mean one size each, and the same to both. */
static int check_words(const struct mpi_job *job)
{
	if (job->bench_given)
		return usage_error("--bench", job->bench_arg,
				   "is not taken with --check: it runs " CHECK_LAT_BENCH " and " CHECK_BW_BENCH);
	if (job->pattern != SCHED_ROUNDS)
		return usage_error("--pattern/--sequential", "", "are not taken with --check: it runs pairs in rounds");
	if (job->load.bench)
		return usage_error("--background", "", "is not taken with --check");
	if (job->opt.ib_dev)
		return usage_error("-d/--ib-dev", job->opt.ib_dev, "is not taken with --check: the rails choose the devices (--rails)");
	if (job->opt.all)
		return usage_error("-a/--all", "", "is not taken with --check: one size per benchmark (-s)");
	if (job->chk.gid_type && check_gid_type_parse(job->chk.gid_type) < 0)
		return usage_error("--check-gid-type", job->chk.gid_type, "is not v1, v2 or IB");
	if (job->chk.mtu && device_mtu_enum((int)job->chk.mtu) == 0)
		return usage_error("--check-mtu", "", "is not 256, 512, 1024, 2048 or 4096");
	return 0;
}

int mpi_check_parse(struct mpi_job *job, int nrest, char **rest)
{
	const struct rb_bench *lat = bench_find(CHECK_LAT_BENCH);
	int rc = check_words(job);

	if (!rc && options_parse(nrest, rest, lat, &job->chk.lat_opt))
		rc = -EINVAL;
	return rc;
}

/* ---- the thresholds (rank 0) ---- */

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
		return usage_error(where, key, "is not min-bw RATE, max-p99 US, mtu BYTES or gid-type v1|v2|IB with a valid value");
	return 0;
}

static int thr_file(struct check_thr *t, const char *path)
{
	char line[256], key[64], val[128], where[300];
	FILE *f = fopen(path, "r");
	int n = 0, err = 0;

	if (!f) {
		log_err("--check-thresholds %s: %s (each rank 0 host needs the file)", path, strerror(errno));
		return -EINVAL;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		n++;
		line[strcspn(line, "#\n")] = '\0';
		if (sscanf(line, "%63s %127s", key, val) < 1)
			continue;
		snprintf(where, sizeof(where), "%s line %d:", path, n);
		err = sscanf(line, "%63s %127s", key, val) == 2 ? thr_line(t, key, val, where) :
		      usage_error(where, key, "has no value");
	}
	fclose(f);
	return err;
}

/* The file first, then the options given on the command line. */
static int thr_load(const struct mpi_check_opt *c, struct check_thr *t)
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

/* ---- the rails and their ends ---- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* --rails' names, in their order. */
static void rails_given(const char *rails)
{
	char list[CHECK_MAX_RAILS * CHECK_DEV_LEN], *save = NULL;

	snprintf(list, sizeof(list), "%s", rails);
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (ck.ndev == CHECK_MAX_RAILS) {
			log_warn("--rails: more than %d devices; the rest are not checked", CHECK_MAX_RAILS);
			break;
		}
		snprintf(ck.dev[ck.ndev++], CHECK_DEV_LEN, "%s", t);
	}
}

/* Every device of this host, sorted by name. */
static void rails_all(void)
{
	char (*names)[CHECK_DEV_LEN];
	struct ibv_device **devs;
	int n = 0;

	devs = device_list(&n, "rb_mpi --check");
	names = devs && n > 0 ? calloc((size_t)n, CHECK_DEV_LEN) : NULL;
	for (int i = 0; names && i < n; i++)
		snprintf(names[i], CHECK_DEV_LEN, "%s", ibv_get_device_name(devs[i]));
	if (names)
		qsort(names, (size_t)n, CHECK_DEV_LEN, cmp_name);
	if (n > CHECK_MAX_RAILS)
		log_warn("%d RDMA devices: the check takes the first %d by name (--rails names others)",
			 n, CHECK_MAX_RAILS);
	for (int i = 0; names && i < n && ck.ndev < CHECK_MAX_RAILS; i++)
		memcpy(ck.dev[ck.ndev++], names[i], CHECK_DEV_LEN);
	free(names);
	if (devs)
		ibv_free_device_list(devs);
}

/* This rank's rails: --rails' names, else every device, sorted by name. */
static void rails_mine(const struct mpi_check_opt *c)
{
	ck.ndev = 0;
	if (c->rails)
		rails_given(c->rails);
	else
		rails_all();
}

/* Rail k's end on this rank: its device opened as the benchmarks open it. */
static void end_of(const struct rb_options *o, int k, struct check_end *e)
{
	struct rb_device d;

	memset(e, 0, sizeof(*e));
	if (k >= ck.ndev) {
		snprintf(e->dev, sizeof(e->dev), "-");
		snprintf(e->why, sizeof(e->why), "no device for rail %d (the host has %d)", k, ck.ndev);
		return;
	}
	snprintf(e->dev, sizeof(e->dev), "%s", ck.dev[k]);
	log_clear_last_err();
	if (device_open(ck.dev[k], o->ib_port, o->gid_index, &d)) {
		snprintf(e->why, sizeof(e->why), "%s", *log_last_err() ? log_last_err() : "cannot be opened");
		return;
	}
	e->ok = true;
	e->active_mtu = device_mtu_bytes(d.port_attr.active_mtu);
	e->gid_type = d.gid.type;
	e->ib_link = d.ib_link;
	device_close(&d);
}

/* Every rank's ends, rail by rail, to rank 0. */
static int ends_gather(struct mpi_job *job)
{
	struct check_end *mine = calloc((size_t)ck.nrails, sizeof(*mine));
	int len = ck.nrails * (int)sizeof(*mine);

	if (!mine)
		return -ENOMEM;
	for (int k = 0; k < ck.nrails; k++)
		end_of(&job->opt, k, &mine[k]);
	if (job->rank == 0 && !(ck.ends = calloc((size_t)job->nranks * (size_t)ck.nrails, sizeof(*ck.ends)))) {
		free(mine);
		return -ENOMEM;
	}
	MPI_Gather(mine, len, MPI_BYTE, ck.ends, len, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(mine);
	return 0;
}

/* ---- rank 0's document ---- */

/* Rail k's ends that differ from the rest (mpi_verdict.h), each appended
 * to buf ("HOST DEV: WHY; ") and, with say, logged; how many. */
static int rail_odd(const struct mpi_job *job, int k, char *buf, size_t len, bool say)
{
	struct check_end *e = calloc((size_t)job->nranks, sizeof(*e)), common;
	bool *odd = calloc((size_t)job->nranks, sizeof(*odd));
	char why[256];
	int n = 0;

	for (int r = 0; e && odd && r < job->nranks; r++)
		e[r] = ck.ends[r * ck.nrails + k];
	if (e && odd)
		n = check_odd_ends(e, job->nranks, odd, &common);
	for (int r = 0; n && r < job->nranks; r++) {
		if (!odd[r])
			continue;
		check_odd_why(&e[r], &common, why, sizeof(why));
		snprintf(buf + strlen(buf), len - strlen(buf), "%srail %d %s %s: %s", *buf ? "; " : "", k,
			 job->hosts[r], e[r].dev, why);
		if (say)
			log_err("rail %d: %s %s is the odd end (%d of %d ends agree): %s", k, job->hosts[r],
				e[r].dev, job->nranks - n, job->nranks, why);
	}
	free(e);
	free(odd);
	return n;
}

/* Every rail's odd ends: the document's metadata, or (say) stderr. */
static void odd_all(const struct mpi_job *job, char *buf, size_t len, bool say)
{
	buf[0] = '\0';
	for (int k = 0; k < ck.nrails; k++)
		rail_odd(job, k, buf, len, say);
	if (!*buf)
		snprintf(buf, len, "none (every rail's ends alike, or no majority among them)");
}

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
#define N_CHECK_COLS ((int)(sizeof(check_cols) / sizeof(check_cols[0])))

static void meta_thr(void)
{
	char bw[32] = "none", p99[32] = "none", mtu[32] = "the ends alike", buf[200];

	if (ck.thr.min_bw_mibps > 0)
		snprintf(bw, sizeof(bw), "%.2f MiB/s", ck.thr.min_bw_mibps);
	if (ck.thr.max_p99_us > 0)
		snprintf(p99, sizeof(p99), "%.2f us", ck.thr.max_p99_us);
	if (ck.thr.mtu)
		snprintf(mtu, sizeof(mtu), "%d", ck.thr.mtu);
	snprintf(buf, sizeof(buf), "min-bw %s, max-p99 %s, MTU %s, GID type %s", bw, p99, mtu,
		 ck.thr.gid_type ? gid_type_name((enum gid_type)(ck.thr.gid_type - 1)) : "the ends alike");
	out_meta_str(ck.out, "thresholds", "Thresholds", buf);
}

static void meta_bench(const char *key, const char *label, const struct rb_options *o)
{
	char buf[120];

	if (o->duration_s > 0)
		snprintf(buf, sizeof(buf), "%llu bytes, %.3f s", (unsigned long long)o->size, o->duration_s);
	else
		snprintf(buf, sizeof(buf), "%llu bytes, %llu iterations", (unsigned long long)o->size,
			 (unsigned long long)o->iters);
	out_meta_str(ck.out, key, label, buf);
}

static int doc_open(const struct mpi_job *job)
{
	const struct rb_options *o = &job->opt;
	char odd[2048];

	ck.file = stdout;
	if (o->out_file && !(ck.file = fopen(o->out_file, "w"))) {
		log_err("cannot write the results file %s: %s", o->out_file, strerror(errno));
		return -errno;
	}
	if (!(ck.out = out_open(o->format, ck.file)))
		return -ENOMEM;
	if (o->format == OUT_CSV && report_sidecar(ck.out, o->out_file))
		return -EIO;
	out_meta_str(ck.out, "tool", "Tool", "rdmabench");
	out_meta_str(ck.out, "version", "Version", PACKAGE_VERSION);
	out_meta_str(ck.out, "commit", "Commit", rb_commit());
	out_meta_str(ck.out, "test", "Test", "rb_mesh check");
	out_meta_u64(ck.out, "ranks", "Ranks", (uint64_t)job->nranks);
	out_meta_u64(ck.out, "rails", "Rails", (uint64_t)ck.nrails);
	out_meta_str(ck.out, "rail_devices", "Rail devices", job->chk.rails ? job->chk.rails : "each host's devices, sorted by name");
	meta_bench("latency_test", "Latency: " CHECK_LAT_BENCH, &job->chk.lat_opt);
	meta_bench("bandwidth_test", "Bandwidth: " CHECK_BW_BENCH, o);
	out_meta_str(ck.out, "schedule", "Schedule", "rounds (disjoint links at once), rail after rail, write_lat then write_bw");
	meta_thr();
	odd_all(job, odd, sizeof(odd), false);
	out_meta_str(ck.out, "odd_ends", "Odd ends (unlike their rail's majority)", odd);
	report_meta_time(ck.out);
	out_meta_str(ck.out, "command_line", "Command", job->cmdline);
	out_begin(ck.out, "rb_mesh check: every rail, link by link", check_cols, N_CHECK_COLS);
	return 0;
}

static void doc_close(const char *error)
{
	if (!ck.out)
		return;
	out_end(ck.out, error ? "failed" : rb_stop ? "partial" : "complete", error);
	ck.out = NULL;
	if (ck.file != stdout)
		fclose(ck.file);
}

/* ---- the links' records (rank 0) ---- */

static int col_of(const struct mpi_job *job, const char *key)
{
	for (int i = 0; i < job->cols.nall; i++)
		if (!strcmp(job->cols.all[i].key, key))
			return i;
	return -1;
}

static double rec_double(const uint64_t *rec, int col)
{
	union out_val v;

	if (col < 0)
		return NAN;
	v.u = rec[REC_COLS + col];
	return v.d;
}

static void run_take(struct check_run *r, const uint64_t *rec)
{
	const char *cause = (const char *)(rec + REC_CAUSE);

	free((char *)r->cause);
	r->ran = rec[REC_STATUS] != LINK_UNMEASURED;
	r->ok = rec[REC_STATUS] == LINK_OK;
	r->cause = r->ok ? NULL : strndup(cause, MPI_CAUSE_WORDS * sizeof(uint64_t));
}

void mpi_check_take(struct mpi_job *job, const uint64_t *recs, int n)
{
	int len = MPI_REC_LEN(job);

	for (int i = 0; i < n && ck.fig; i++) {
		const uint64_t *rec = recs + (size_t)i * (size_t)len;
		struct link_fig *f;

		if (rec[REC_SRC] >= (uint64_t)job->nranks || rec[REC_DST] >= (uint64_t)job->nranks)
			continue;
		f = &ck.fig[rec[REC_SRC] * (uint64_t)job->nranks + rec[REC_DST]];
		if (ck.lat_pass) {
			run_take(&f->lat, rec);
			f->p50 = rec_double(rec, ck.col_p50);
			f->p99 = rec_double(rec, ck.col_p99);
		} else {
			run_take(&f->bw, rec);
			f->mibps = rec_double(rec, ck.col_bw);
		}
	}
}

/* One link's row of rail k, and its line on stderr when it fails. */
static void link_row(const struct mpi_job *job, int k, int s, int d)
{
	const struct check_end *es = &ck.ends[s * ck.nrails + k], *ed = &ck.ends[d * ck.nrails + k];
	struct link_fig *f = &ck.fig[s * job->nranks + d];
	struct check_link l = { f->lat, f->bw, f->p50, f->p99, f->mibps };
	char why[512];
	bool pass = check_verdict(&ck.thr, es, ed, &l, why, sizeof(why));
	union out_val v[N_CHECK_COLS];

	v[0].u = (uint64_t)k;
	v[1].s = job->hosts[s];
	v[2].s = job->hosts[d];
	v[3].u = (uint64_t)s;
	v[4].u = (uint64_t)d;
	v[5].s = es->dev;
	v[6].s = ed->dev;
	v[7].u = es->ok ? (uint64_t)es->active_mtu : 0;
	v[8].s = es->ok ? gid_type_name(es->gid_type) : "";
	v[9].d = f->lat.ok ? f->p50 : NAN;
	v[10].d = f->lat.ok ? f->p99 : NAN;
	v[11].d = f->bw.ok ? f->mibps : NAN;
	v[12].s = pass ? "pass" : "fail";
	v[13].s = why;
	out_row(ck.out, v);
	ck.links++;
	if (!pass) {
		ck.failed++;
		log_err("FAIL rail %d: %s %s -> %s %s: %s", k, job->hosts[s], es->dev, job->hosts[d], ed->dev, why);
	}
}

static void fig_reset(int n)
{
	for (int i = 0; i < n * n; i++) {
		free((char *)ck.fig[i].lat.cause);
		free((char *)ck.fig[i].bw.cause);
		ck.fig[i] = (struct link_fig){ .p50 = NAN, .p99 = NAN, .mibps = NAN };
	}
}

static void rail_rows(const struct mpi_job *job, int k)
{
	for (int s = 0; s < job->nranks; s++)
		for (int d = 0; d < job->nranks; d++)
			if (s != d)
				link_row(job, k, s, d);
	fig_reset(job->nranks);
}

/* ---- the run ---- */

/* One benchmark over rail k: the pairs schedule, rows to mpi_check_take. */
static int rail_pass(struct mpi_job *job, int k, bool lat, const struct rb_options *o)
{
	struct rb_session cols_of = { 0 };

	job->bench = bench_find(lat ? CHECK_LAT_BENCH : CHECK_BW_BENCH);
	job->opt = *o;
	job->opt.ib_dev = k < ck.ndev ? ck.dev[k] : "(no device for this rail)";
	cols_of.bench = job->bench;
	cols_of.opt = &job->opt;
	report_define(&job->cols, &cols_of);
	ck.rail = k;
	ck.lat_pass = lat;
	ck.col_p50 = col_of(job, "lat_p50_us");
	ck.col_p99 = col_of(job, "lat_p99_us");
	ck.col_bw = col_of(job, "bw_avg_mibps");
	if (job->rank == 0)
		log_info("rail %d: %s", k, lat ? CHECK_LAT_BENCH : CHECK_BW_BENCH);
	return mpi_steps_run(job);
}

static int rails_run(struct mpi_job *job)
{
	struct rb_options bw = job->opt;
	int err = 0;

	for (int k = 0; k < ck.nrails && !err; k++) {
		err = rail_pass(job, k, true, &job->chk.lat_opt);
		if (!err)
			err = rail_pass(job, k, false, &bw);
		if (!err && job->rank == 0)
			rail_rows(job, k);
	}
	job->opt = bw;
	return err;
}

static int check_setup(struct mpi_job *job)
{
	int err = 0;

	rails_mine(&job->chk);
	MPI_Allreduce(&ck.ndev, &ck.nrails, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (ck.nrails == 0) {
		if (job->rank == 0)
			log_err("no rank has an RDMA device: nothing to check (rb_devices lists them)");
		return -ENODEV;
	}
	if (job->rank == 0) {
		err = thr_load(&job->chk, &ck.thr);
		if (!err && !(ck.fig = calloc((size_t)job->nranks * (size_t)job->nranks, sizeof(*ck.fig))))
			err = -ENOMEM;
		if (!err)
			fig_reset(job->nranks);
	}
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!err)
		err = ends_gather(job);
	if (!err)
		err = mpi_plan_sched(job, job->nranks, &job->sched, job->rank == 0);
	return err;
}

int mpi_check_run(struct mpi_job *job)
{
	int err = check_setup(job);

	if (!err && job->rank == 0)
		err = doc_open(job);
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!err)
		err = rails_run(job);
	if (job->rank == 0) {
		doc_close(err && err != -EINTR ? "see the messages on stderr" : NULL);
		if (!err) {
			char odd[2048];

			odd_all(job, odd, sizeof(odd), true);
			log_info("%d links on %d rails: %d pass, %d fail", ck.links, ck.nrails,
				 ck.links - ck.failed, ck.failed);
		}
	}
	if (!err)
		MPI_Bcast(&ck.failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
	job->chk.failed = ck.failed;
	if (ck.fig)
		fig_reset(job->nranks);
	free(ck.fig);
	free(ck.ends);
	sched_free(&job->sched);
	return err;
}
