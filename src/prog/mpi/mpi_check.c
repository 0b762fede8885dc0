#include "prog/mpi/mpi_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/registry.h"
#include "driver/run.h"
#include "lib/log.h"
#include "prog/mpi/mpi_checkdoc.h"
#include "prog/mpi/mpi_job.h"
#include "prog/mpi/mpi_load.h"
#include "prog/mpi/mpi_plan.h"
#include "prog/mpi/mpi_report.h"
#include "prog/mpi/mpi_steps.h"
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
	struct check_thr thr;       /* rank 0 */
	int links, failed;
} ck;

/* ---- options ---- */

/* The benchmark words must mean one size each, and the same to both. */
static int check_words(const struct mpi_job *job)
{
	if (job->bench_given)
		return mpi_usage_error("--bench", job->bench_arg,
				   "is not taken with --check: it runs " CHECK_LAT_BENCH " and " CHECK_BW_BENCH);
	if (job->pattern != SCHED_ROUNDS)
		return mpi_usage_error("--pattern/--sequential", "", "are not taken with --check: it runs pairs in rounds");
	if (job->load.bench)
		return mpi_usage_error("--background", "", "is not taken with --check");
	if (job->opt.ib_dev)
		return mpi_usage_error("-d/--ib-dev", job->opt.ib_dev, "is not taken with --check: the rails choose the devices (--rails)");
	if (job->opt.all)
		return mpi_usage_error("-a/--all", "", "is not taken with --check: one size per benchmark (-s)");
	if (job->chk.gid_type && check_gid_type_parse(job->chk.gid_type) < 0)
		return mpi_usage_error("--check-gid-type", job->chk.gid_type, "is not v1, v2 or IB");
	if (job->chk.mtu && device_mtu_enum((int)job->chk.mtu) == 0)
		return mpi_usage_error("--check-mtu", "", "is not 256, 512, 1024, 2048 or 4096");
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
 * to buf ("rail K HOST DEV: WHY; ") and logged; how many. */
static int rail_odd(const struct mpi_job *job, int k, char *buf, size_t len)
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
		log_err("rail %d: %s %s is the odd end (%d of %d ends agree): %s", k, job->hosts[r],
				e[r].dev, job->nranks - n, job->nranks, why);
	}
	free(e);
	free(odd);
	return n;
}

/* Every rail's odd ends, said on stderr and into buf (the document's
 * metadata) once, before the rails run. */
static void odd_all(const struct mpi_job *job, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int k = 0; k < ck.nrails; k++)
		rail_odd(job, k, buf, len);
	if (!*buf)
		snprintf(buf, len, "none (every rail's ends alike, or no majority among them)");
}

/* Rank 0's document, its metadata with the odd ends. */
static int doc_open(const struct mpi_job *job)
{
	char odd[2048];

	odd_all(job, odd, sizeof(odd));
	return checkdoc_open(job, &ck.thr, ck.nrails, odd);
}

/* ---- the links' records (rank 0) ---- */

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
	union out_val v[CHECKDOC_COLS];

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
	checkdoc_row(v);
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
	ck.col_p50 = mpi_report_col(job, "lat_p50_us");
	ck.col_p99 = mpi_report_col(job, "lat_p99_us");
	ck.col_bw = mpi_report_col(job, "bw_avg_mibps");
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
		err = checkdoc_thresholds(&job->chk, &ck.thr);
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

	job->take_rows = mpi_check_take;
	if (!err && job->rank == 0)
		err = doc_open(job);
	MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!err)
		err = rails_run(job);
	if (job->rank == 0) {
		checkdoc_close(err && err != -EINTR ? "see the messages on stderr" : NULL);
		if (!err)
			log_info("%d links on %d rail%s: %d pass, %d fail", ck.links, ck.nrails,
				 ck.nrails == 1 ? "" : "s", ck.links - ck.failed, ck.failed);
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
