#include "mpi_job.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "log.h"
#include "mpi_chan.h"
#include "run.h"

/* ---- the patterns ---- */

static int pattern_nsteps(const struct mpi_job *job)
{
	return job->pattern == PATTERN_PAIRS ? job->nranks * (job->nranks - 1) : 1;
}

/* Step k's links into l (room for nranks); returns how many. */
static int step_links(const struct mpi_job *job, int k, struct mpi_link_ends *l)
{
	int n = job->nranks, half = n / 2, count = 0;

	switch (job->pattern) {
	case PATTERN_PAIRS:         /* every ordered pair, one at a time */
		l[0].src = k / (n - 1);
		l[0].dst = k % (n - 1) < l[0].src ? k % (n - 1) : k % (n - 1) + 1;
		return 1;
	case PATTERN_RING:          /* each rank to the next, at once */
		for (int i = 0; i < n; i++)
			l[count++] = (struct mpi_link_ends){ i, (i + 1) % n };
		return count;
	case PATTERN_BISECTION:     /* the first half to the second, at once */
		for (int i = 0; i < half; i++)
			l[count++] = (struct mpi_link_ends){ i, i + half };
		return count;
	}
	return 0;
}

/* ---- one link's session ---- */

struct link_run {
	struct mpi_job *job;
	struct mpi_link_ends ends;
	bool is_client;
	struct mpi_chan *chan;
	int rc;
};

int mpi_rows_add(struct mpi_rows *r, const uint64_t *rec, int len)
{
	if (r->n + len > r->cap) {
		int cap = r->cap ? r->cap * 2 : 256;
		uint64_t *v;

		while (cap < r->n + len)
			cap *= 2;
		v = realloc(r->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	memcpy(r->v + r->n, rec, (size_t)len * sizeof(*rec));
	r->n += len;
	return 0;
}

/* The client's row of one size: kept until the step ends. */
static void link_row(void *arg, const union out_val *row, int ncols)
{
	struct link_run *lr = arg;
	uint64_t rec[2 + REPORT_MAX_COLS];

	rec[0] = (uint64_t)lr->ends.src;
	rec[1] = (uint64_t)lr->ends.dst;
	for (int i = 0; i < ncols; i++)
		rec[2 + i] = row[i].u;
	if (mpi_rows_add(&lr->job->step_rows, rec, 2 + ncols))
		log_err("out of memory keeping the results of link %d -> %d", lr->ends.src,
			lr->ends.dst);
}

static void *link_main(void *arg)
{
	struct link_run *lr = arg;
	const struct mpi_job *job = lr->job;
	int peer = lr->is_client ? lr->ends.dst : lr->ends.src;
	char name[96];
	struct rb_link l = { .chan = &lr->chan->chan, .peer = name, .is_client = lr->is_client,
			     .row = link_row, .arg = lr };

	snprintf(name, sizeof(name), "rank %d (%s)", peer, job->hosts[peer]);
	mpi_chan_init(lr->chan, MPI_COMM_WORLD, peer,
		      lr->ends.src < lr->ends.dst ? TAG_LINK_UP : TAG_LINK_DOWN);
	lr->rc = run_link(job->bench, &job->opt, &l);
	if (mpi_chan_close(lr->chan, (int)(job->opt.timeout_s * 1000)) && !lr->rc)
		lr->rc = RB_EXIT_RUNTIME;
	if (lr->rc)
		log_err("rank %d (%s): link %d -> %d (%s -> %s) failed", job->rank,
			job->hosts[job->rank], lr->ends.src, lr->ends.dst, job->hosts[lr->ends.src],
			job->hosts[lr->ends.dst]);
	return NULL;
}

/*
 * This rank's part of one step: its client link, its server link, or both
 * at once (a ring), the server's in a second thread.
 */
static int step_sessions(struct mpi_job *job, const struct mpi_link_ends *l, int nl)
{
	struct link_run runs[2] = { { .rc = 0 }, { .rc = 0 } };
	struct mpi_chan *chans = calloc(2, sizeof(*chans));
	pthread_t server;
	int n = 0, err = 0;

	if (!chans)
		return -ENOMEM;
	for (int i = 0; i < nl; i++) {
		if (l[i].src != job->rank && l[i].dst != job->rank)
			continue;
		runs[n] = (struct link_run){ job, l[i], l[i].src == job->rank, &chans[n], 0 };
		n++;
	}
	if (n == 2 && (err = pthread_create(&server, NULL, link_main, &runs[1]))) {
		log_err("starting the second link's thread: %s", strerror(err));
		free(chans);
		return -err;
	}
	if (n >= 1)
		link_main(&runs[0]);
	if (n == 2)
		pthread_join(server, NULL);
	free(chans);
	return runs[0].rc || runs[1].rc ? -EIO : 0;
}

/* ---- the end of a step: rows to rank 0, then everyone goes on together ---- */

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
		log_err("rank %d (%s): rank 0 did not end the step within %g s (--step-timeout)",
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
		if (clock_now_ns() >= deadline) {
			log_err("rank %d (%s) did not finish the step within %g s (stalled or gone; --step-timeout)",
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
	mpi_report_rows(job, v, count / MPI_REC_LEN(job));
	free(v);
	return 0;
}

static int rows_gather(struct mpi_job *job)
{
	uint64_t deadline = deadline_of(job);
	MPI_Request *reqs;
	int err;

	mpi_report_rows(job, job->step_rows.v, job->step_rows.n / MPI_REC_LEN(job));
	for (int r = 1; r < job->nranks; r++) {
		err = rows_recv_one(job, r, deadline);
		if (err)
			return err;
	}
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

int mpi_steps_run(struct mpi_job *job)
{
	struct mpi_link_ends *l = calloc((size_t)job->nranks, sizeof(*l));
	int nsteps = pattern_nsteps(job), err = 0;

	if (!l)
		return -ENOMEM;
	for (int k = 0; k < nsteps && !err && !rb_stop; k++) {
		int nl = step_links(job, k, l);

		if (job->rank == 0 && job->pattern == PATTERN_PAIRS)
			log_verbose("step %d of %d: rank %d -> rank %d", k + 1, nsteps, l[0].src,
				    l[0].dst);
		job->step_rows.n = 0;
		err = step_sessions(job, l, nl);
		if (!err)
			err = job->rank ? rows_send(job) : rows_gather(job);
	}
	free(l);
	free(job->step_rows.v);
	return err;
}
