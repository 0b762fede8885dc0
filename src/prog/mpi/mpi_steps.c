#include "prog/mpi/mpi_steps.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "prog/mpi/mpi_chan.h"
#include "prog/mpi/mpi_load.h"
#include "prog/mpi/mpi_report.h"
#include "driver/run.h"

/* ---- one link's session ---- */

struct link_run {
	struct mpi_job *job;
	struct sched_link ends;
	int round;
	bool is_client;
	struct mpi_chan *chan;
	int rc;
	int nrows;                  /* rows the client handed over */
	/* under load (SCHED_LOAD) */
	const struct sched_link *all; /* the round's links */
	int nall;
	bool background;            /* a background link, not the pair's */
	bool announced;             /* a background client told the pair it runs */
	int load_up;                /* the pair: background links running when it started */
	const volatile int *halt;   /* a background client's stop */
};

/* A record with no figures: its cause; the size, the rest NaN or 0. */
static void link_rec_empty(const struct link_run *lr, uint64_t *rec, enum link_status st,
			   const char *cause)
{
	const struct mpi_job *job = lr->job;

	mpi_rec_head(rec, lr->ends.src, lr->ends.dst, lr->round, st, cause);
	for (int i = 0; i < job->cols.nall; i++) {
		union out_val nan = { .d = NAN };

		rec[REC_COLS + i] = job->cols.all[i].type == OUT_DOUBLE ? nan.u : 0;
	}
	rec[REC_COLS] = lr->background ? job->load.size : job->opt.all ? 0 : job->opt.size;
}

static void link_keep(const struct link_run *lr, const uint64_t *rec)
{
	if (mpi_rows_add(&lr->job->step_rows, rec, MPI_REC_LEN(lr->job)))
		log_err("out of memory keeping the results of link %d -> %d", lr->ends.src,
			lr->ends.dst);
}

/* The client's row of one size: kept until the round ends. */
static void link_row(void *arg, const union out_val *row, int ncols)
{
	struct link_run *lr = arg;
	uint64_t rec[REC_COLS + REPORT_MAX_COLS];

	mpi_rec_head(rec, lr->ends.src, lr->ends.dst, lr->round, LINK_OK, NULL);
	rec[REC_LOAD_UP] = (uint64_t)lr->load_up;
	for (int i = 0; i < ncols; i++)
		rec[REC_COLS + i] = row[i].u;
	link_keep(lr, rec);
	lr->nrows++;
}

/* A background link's row: its message size and achieved bandwidth. */
static void link_row_background(void *arg, const union out_val *row, int ncols)
{
	struct link_run *lr = arg;
	uint64_t rec[REC_COLS + REPORT_MAX_COLS];
	int bw = lr->job->load.bw_col;

	link_rec_empty(lr, rec, LINK_OK, NULL);
	if (bw >= 0 && bw < ncols)
		rec[REC_LOAD_BW] = row[bw].u;
	link_keep(lr, rec);
	lr->nrows++;
}

/* A failed link's record (client side): its cause, no figures. */
static void link_failed(struct link_run *lr, enum link_status st, const char *cause)
{
	uint64_t rec[REC_COLS + REPORT_MAX_COLS];

	link_rec_empty(lr, rec, st, *cause ? cause : "failed (see the ranks' messages on stderr)");
	link_keep(lr, rec);
}

/* A background client's loop starts: the pair may go. */
static void link_started(void *arg)
{
	struct link_run *lr = arg;

	lr->announced = true;
	mpi_load_announce(lr->job, lr->round, true);
}

/* RB_TEST_BREAK_LINK="S>D" in the test build (rb_mpi_faults): link S -> D fails. */
static bool link_broken_for_test(const struct link_run *lr)
{
#ifdef RB_TEST_FAULTS
	const char *e = getenv("RB_TEST_BREAK_LINK");
	int s, d;

	return lr->is_client && e && sscanf(e, "%d>%d", &s, &d) == 2 && s == lr->ends.src &&
	       d == lr->ends.dst;
#else
	(void)lr;
	return false;
#endif
}

/* What the session is given: its channel, where rows go, the load's hooks. */
static struct rb_link link_of(struct link_run *lr, const char *name)
{
	struct rb_link l = { .chan = &lr->chan->chan, .peer = name, .is_client = lr->is_client,
			     .row = link_row, .arg = lr, .test_break_qp = link_broken_for_test(lr) };

	if (lr->background && lr->is_client) {
		l.row = link_row_background;
		l.started = link_started;
		l.halt = lr->halt;
	}
	return l;
}

static void link_report(struct link_run *lr)
{
	const struct mpi_job *job = lr->job;

	if (lr->rc && rb_stop && lr->is_client) {
		link_failed(lr, LINK_UNMEASURED, "interrupted (the job was stopped)");
	} else if (lr->rc) {
		char cause[MPI_CAUSE_WORDS * sizeof(uint64_t)];

		/* the session's own message, before this one replaces it */
		snprintf(cause, sizeof(cause), "%s", log_last_err());
		log_err("rank %d (%s): link %d -> %d (%s -> %s) failed; the job goes on", job->rank,
			job->hosts[job->rank], lr->ends.src, lr->ends.dst, job->hosts[lr->ends.src],
			job->hosts[lr->ends.dst]);
		if (lr->is_client)
			link_failed(lr, LINK_FAILED, cause);
	}
}

static void *link_main(void *arg)
{
	struct link_run *lr = arg;
	const struct mpi_job *job = lr->job;
	int peer = lr->is_client ? lr->ends.dst : lr->ends.src;
	bool loaded = job->pattern == SCHED_LOAD && !lr->background && lr->round > 0;
	char name[96];
	struct rb_link l = link_of(lr, name);

	snprintf(name, sizeof(name), "rank %d (%s)", peer, job->hosts[peer]);
	log_clear_last_err();
	mpi_chan_init(lr->chan, MPI_COMM_WORLD, peer,
		      lr->ends.src < lr->ends.dst ? TAG_LINK_UP : TAG_LINK_DOWN);
	if (loaded)
		lr->load_up = mpi_load_await(job, lr->round, lr->nall - 1);
	lr->rc = run_link(lr->background ? job->load.bench : job->bench,
			  lr->background ? &job->load.opt : &job->opt, &l);
	if (mpi_chan_close(lr->chan, (int)(job->opt.timeout_s * 1000)) && !lr->rc) {
		log_err("rank %d: the last frames to %s were not taken within --timeout", job->rank, name);
		lr->rc = RB_EXIT_RUNTIME;
	}
	if (lr->background && lr->is_client && !lr->announced)
		mpi_load_announce(job, lr->round, false);
	if (loaded && lr->is_client)
		mpi_load_stop(job, lr->round, lr->all, lr->nall);
	link_report(lr);
	return NULL;
}

/* This rank's links of the round into runs; how many. */
static int round_mine(struct mpi_job *job, int round, const struct sched_link *l, int nl,
		      struct link_run *runs, struct mpi_chan *chans, const volatile int *halt)
{
	int n = 0;

	for (int i = 0; i < nl; i++) {
		if (l[i].src != job->rank && l[i].dst != job->rank)
			continue;
		runs[n] = (struct link_run){ .job = job, .ends = l[i], .round = round,
					     .is_client = l[i].src == job->rank, .chan = &chans[n],
					     .all = l, .nall = nl,
					     .background = sched_is_background(&job->sched, &l[i]),
					     .halt = halt };
		n++;
	}
	return n;
}

/* The background clients among runs: each waits for the pair's stop. */
static int round_stops(const struct link_run *runs, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += runs[i].background && runs[i].is_client;
	return k;
}

/*
 * This rank's part of one round: its links (a client link, server links;
 * ring and shift two, incast's destination N-1, a load's more), all but
 * the first in threads of their own; under load all in threads, and this
 * thread stops the background when the pair says so.  A failed link is a
 * record; only a thread or memory failure is an error.
 */
static int round_sessions(struct mpi_job *job, int round, const struct sched_link *l, int nl)
{
	struct link_run *runs = calloc((size_t)nl + 1, sizeof(*runs));
	struct mpi_chan *chans = calloc((size_t)nl + 1, sizeof(*chans));
	pthread_t *th = calloc((size_t)nl + 1, sizeof(*th));
	volatile int halt = 0;
	int n = 0, first = job->pattern == SCHED_LOAD ? 0 : 1, made = first, err = 0;

	if (runs && chans && th)
		n = round_mine(job, round, l, nl, runs, chans, &halt);
	else
		err = ENOMEM;
	while (made < n && !err && !(err = pthread_create(&th[made], NULL, link_main, &runs[made])))
		made++;
	if (err) {
		log_err("starting a link's thread: %s", strerror(err));
		halt = 1;
	}
	if (!err && first == 1 && n >= 1)
		link_main(&runs[0]);
	if (!err && round_stops(runs, n))
		mpi_load_stop_wait(job, round, round_stops(runs, n), &halt);
	for (int i = first; i < made; i++)
		pthread_join(th[i], NULL);
	free(th);
	free(chans);
	free(runs);
	return -err;
}

/* ---- the end of a round: rows to rank 0, then everyone goes on together ---- */

static uint64_t deadline_of(const struct mpi_job *job)
{
	return clock_now_ns() + (uint64_t)(job->step_timeout_s * 1e9);
}

static int rows_send(struct mpi_job *job)
{
	MPI_Request req;
	int rc;

	MPI_Isend(job->step_rows.v, job->step_rows.n, MPI_UINT64_T, 0, TAG_ROWS, MPI_COMM_WORLD,
		  &req);
	rc = mpi_wait_until(&req, NULL, deadline_of(job));
	if (!rc) {
		MPI_Irecv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, &req);
		rc = mpi_wait_until(&req, NULL, deadline_of(job));
	}
	if (rc)
		log_err("rank %d (%s): rank 0 did not end the round within %g s (--step-timeout)",
			job->rank, job->hosts[job->rank], job->step_timeout_s);
	return rc;
}

static int rows_recv_one(struct mpi_job *job, int from, uint64_t deadline)
{
	MPI_Status st;
	int flag = 0, count;
	uint64_t *v;

	for (;;) {
		if (MPI_Iprobe(from, TAG_ROWS, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
			return -EIO;
		if (flag)
			break;
		if (rb_stop)
			return -EINTR;
		if (clock_now_ns() >= deadline) {
			log_err("rank %d (%s) did not finish the round within %g s (stalled or gone; --step-timeout)",
				from, job->hosts[from], job->step_timeout_s);
			return -ETIMEDOUT;
		}
		mpi_nap();
	}
	MPI_Get_count(&st, MPI_UINT64_T, &count);
	v = malloc((size_t)(count ? count : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	MPI_Recv(v, count, MPI_UINT64_T, from, TAG_ROWS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	job->take_rows(job, v, count / MPI_REC_LEN(job));
	free(v);
	return 0;
}

/* Rank 0: every rank's rows of the round (got[r]: rank r's arrived), then the go-ahead. */
static int rows_gather(struct mpi_job *job, bool *got)
{
	uint64_t deadline = deadline_of(job);
	MPI_Request *reqs;
	int err = 0;

	job->take_rows(job, job->step_rows.v, job->step_rows.n / MPI_REC_LEN(job));
	got[0] = true;
	for (int r = 1; r < job->nranks && !err; r++)
		got[r] = !(err = rows_recv_one(job, r, deadline));
	if (err)
		return err;
	reqs = calloc((size_t)job->nranks, sizeof(*reqs));
	if (!reqs)
		return -ENOMEM;
	for (int r = 1; r < job->nranks; r++)
		MPI_Isend(NULL, 0, MPI_BYTE, r, TAG_GO, MPI_COMM_WORLD, &reqs[r]);
	for (int r = 1; r < job->nranks && !err; r++)
		err = mpi_wait_until(&reqs[r], NULL, deadline);
	free(reqs);
	return err;
}

static void round_log(const struct mpi_job *job, int r, const struct sched_link *l, int nl)
{
	if (job->rank != 0 || !log_verbose_enabled())
		return;
	if (nl == 1)
		log_verbose("round %d of %d: rank %d -> rank %d", r + 1, job->sched.nrounds, l[0].src,
			    l[0].dst);
	else
		log_verbose("round %d of %d: %d links at once", r + 1, job->sched.nrounds, nl);
}

int mpi_steps_run(struct mpi_job *job)
{
	struct sched_link *l = calloc((size_t)job->nranks, sizeof(*l));
	bool *got = calloc((size_t)job->nranks, sizeof(*got));
	uint64_t t0 = clock_now_ns();
	int done = 0, last = -1, err = l && got ? 0 : -ENOMEM;

	for (int r = 0; r < job->sched.nrounds && !err && !rb_stop; r++) {
		int nl = sched_round(&job->sched, r, l);

		last = r;
		round_log(job, r, l, nl);
		job->step_rows.n = 0;
		memset(got, 0, (size_t)job->nranks * sizeof(*got));
		err = round_sessions(job, r, l, nl);
		if (!err)
			err = job->rank ? rows_send(job) : rows_gather(job, got);
		if (!err)
			done = r + 1;
	}
	/* the round in progress: the links whose rows did not come */
	if (job->rank == 0 && done < job->sched.nrounds)
		mpi_report_unmeasured(job, done, last == done ? got : NULL);
	else if (job->rank == 0)
		log_info("%d rounds in %.1f s (%.2f s a round)", job->sched.nrounds,
			 (double)(clock_now_ns() - t0) / 1e9,
			 (double)(clock_now_ns() - t0) / 1e9 / job->sched.nrounds);
	free(l);
	free(got);
	free(job->step_rows.v);
	job->step_rows = (struct mpi_rows){ 0 };    /* --check runs the steps again */
	return err ? err : done < job->sched.nrounds ? -EINTR : 0;
}
