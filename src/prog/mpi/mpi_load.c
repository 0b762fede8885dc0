#include "prog/mpi/mpi_load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/registry.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "prog/mpi/mpi_chan.h"
#include "driver/run.h"
#include "lib/units.h"

#define DEFAULT_LOAD_SIZE (64u << 10)

int mpi_usage_error(const char *what, const char *val, const char *hint)
{
	if (val && *val)
		log_err("%s: '%s' %s", what, val, hint);
	else
		log_err("%s %s", what, hint);
	log_info("try '--help'");
	return -EINVAL;
}

/* ---- the options ---- */

void mpi_bench_names(char *buf, size_t n, enum rb_metric metric, const char *last)
{
	size_t count = 0, k = 0, len = 0;

	for (size_t i = 0; i < bench_count(); i++)
		count += bench_at(i)->metric == metric;
	buf[0] = '\0';
	for (size_t i = 0; i < bench_count() && len < n; i++) {
		if (bench_at(i)->metric != metric)
			continue;
		k++;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", k == 1 ? "" : k == count ? last : ", ",
					bench_at(i)->name + 3);
	}
}

/* "pairs,ring,incast": each once. */
int mpi_opt_patterns(const struct opt_row *r, const char *s, void *dst)
{
	struct mpi_load *ld = &((struct mpi_job *)dst)->load;
	static const enum sched_kind kinds[] = { SCHED_ROUNDS, SCHED_RING, SCHED_INCAST };
	char buf[64], *save = NULL;

	(void)r;
	snprintf(buf, sizeof(buf), "%s", s ? s : "");
	ld->npatterns = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = 0;

		while (k < 3 && strcmp(t, sched_name(kinds[k])))
			k++;
		if (k == 3 || ld->npatterns == SCHED_MAX_LOADS)
			return mpi_usage_error("--background-pattern", s,
					       "is not a list of load patterns (pairs, ring, incast; each once)");
		for (int j = 0; j < ld->npatterns; j++)
			if (ld->patterns[j] == kinds[k])
				return mpi_usage_error("--background-pattern", s, "names a pattern twice");
		ld->patterns[ld->npatterns++] = kinds[k];
	}
	if (!ld->npatterns)
		return mpi_usage_error("--background-pattern", s, "needs pairs, ring or incast (a comma list)");
	return 0;
}

/* "S:D", two ranks (checked against the job's size with the schedule). */
int mpi_opt_pair(const struct opt_row *r, const char *s, void *dst)
{
	struct mpi_load *ld = &((struct mpi_job *)dst)->load;
	char end;

	(void)r;
	if (!s || sscanf(s, "%d:%d%c", &ld->src, &ld->dst, &end) != 2 || ld->src < 0 || ld->dst < 0 ||
	    ld->src == ld->dst)
		return mpi_usage_error("--latency-pair", s, "is not two ranks SRC:DST (e.g. 0:1)");
	ld->pair_given = true;
	return 0;
}

int mpi_opt_background_size(const struct opt_row *r, const char *v, void *dst)
{
	(void)r;
	return units_parse_size(v ? v : "", 1, RB_SWEEP_MAX, &((struct mpi_job *)dst)->load.size) ?
	       mpi_usage_error("--background-size", v, "is not a size from 1 to 8M (e.g. 64K)") : 0;
}

int mpi_opt_background(const struct opt_row *r, const char *v, void *dst)
{
	struct mpi_load *ld = &((struct mpi_job *)dst)->load;
	char names[160], hint[200];

	(void)r;
	ld->bench = bench_find(v ? v : "");
	if (ld->bench && ld->bench->metric == METRIC_BW)
		return 0;
	mpi_bench_names(names, sizeof(names), METRIC_BW, ", ");
	snprintf(hint, sizeof(hint), "is not a bandwidth benchmark (%s)", names);
	return mpi_usage_error("--background", v, hint);
}

int mpi_opt_incast_dst(const struct opt_row *r, const char *v, void *dst)
{
	uint64_t n;

	(void)r;
	if (units_parse_uint(v ? v : "", 0, 1 << 20, &n))
		return mpi_usage_error("--incast-dst", v, "is not a rank (a whole number from 0)");
	((struct mpi_job *)dst)->incast_dst = (int)n;
	return 0;
}

/* What --background does not go with (in buf, n bytes, or a constant); NULL: nothing. */
static const char *load_conflict(const struct mpi_job *job, bool sequential, char *buf, size_t n)
{
	char names[160];

	if (job->bench->metric != METRIC_LAT) {
		mpi_bench_names(names, sizeof(names), METRIC_LAT, " or ");
		snprintf(buf, n, "is a load under a latency benchmark: give --bench %s", names);
		return buf;
	}
	if (job->pattern != SCHED_ROUNDS || sequential)
		return "sets the rounds itself: drop --pattern and --sequential (the load's is --background-pattern)";
	if (job->topology)
		return "does not take --topology yet";
	if (job->opt.run_infinitely)
		return "needs the latency run to end: drop --run_infinitely";
	return NULL;
}

/* The background links: BENCH at --background-size until stopped, on the
 * pair's device settings (and -e: on a shared CPU a busy-polling load
 * starves the pair), its window from its loop's start. */
static int load_options(struct mpi_job *job)
{
	struct mpi_load *ld = &job->load;
	const struct rb_options *o = &job->opt;
	struct rb_session cols_of = { .bench = ld->bench, .opt = &ld->opt };

	options_init_defaults(ld->bench, &ld->opt);
	snprintf(ld->opt.cmdline, sizeof(ld->opt.cmdline), "rb_mpi (--background %s)", ld->bench->name);
	ld->opt.size = ld->size;
	ld->opt.run_infinitely = true;
	if (options_finish(ld->bench, &ld->opt))
		return mpi_usage_error("--background", ld->bench->name, "cannot run with these options");
	options_inherit(&ld->opt, o);
	ld->opt.events = o->events;
	report_define(&ld->cols, &cols_of);
	ld->bw_col = -1;
	for (int i = 0; i < ld->cols.nall; i++)
		if (!strcmp(ld->cols.all[i].key, "bw_avg_mibps"))
			ld->bw_col = i;
	return 0;
}

static bool load_has_incast(const struct mpi_load *ld)
{
	for (int i = 0; i < ld->npatterns; i++)
		if (ld->patterns[i] == SCHED_INCAST)
			return true;
	return false;
}

/* The load options without --background, --incast-dst without an incast. */
static int load_orphans(const struct mpi_job *job)
{
	const struct mpi_load *ld = &job->load;

	if (!ld->bench && (ld->npatterns || ld->size || ld->pair_given))
		return mpi_usage_error(ld->npatterns ? "--background-pattern" :
				       ld->size ? "--background-size" : "--latency-pair",
				       "", "goes with --background BENCH (latency under load)");
	if (job->incast_dst >= 0 && job->pattern != SCHED_INCAST && !load_has_incast(ld))
		return mpi_usage_error("--incast-dst", "",
				       "goes with --pattern incast or --background-pattern incast");
	return 0;
}

int mpi_load_check(struct mpi_job *job, bool sequential)
{
	struct mpi_load *ld = &job->load;
	const char *why;
	char text[240];

	if (load_orphans(job))
		return -EINVAL;
	if (!ld->bench)
		return 0;
	if ((why = load_conflict(job, sequential, text, sizeof(text))))
		return mpi_usage_error("--background", ld->bench->name + 3, why);
	if (!ld->npatterns)
		ld->patterns[ld->npatterns++] = SCHED_ROUNDS;
	if (!ld->size)
		ld->size = DEFAULT_LOAD_SIZE;
	if (!ld->pair_given)
		ld->dst = 1;
	job->pattern = SCHED_LOAD;
	return load_options(job);
}

/* ---- the background's start and stop ---- */

/* A short message of one int under tag to rank to, waited for until the
 * deadline (MPI only reads the constant). */
static void load_send(const struct mpi_job *job, int to, int tag, bool yes)
{
	static const int values[2] = { 0, 1 };
	MPI_Request req;

	MPI_Isend(&values[yes], 1, MPI_INT, to, tag, MPI_COMM_WORLD, &req);
	if (mpi_wait_until(&req, NULL, clock_now_ns() + (uint64_t)(job->opt.timeout_s * 1e9))) {
		log_err("rank %d: rank %d did not take the load's word within --timeout", job->rank, to);
		MPI_Request_free(&req);
	}
}

void mpi_load_announce(const struct mpi_job *job, int round, bool running)
{
	load_send(job, job->sched.lat_src, TAG_LOAD + 2 * round, running);
	load_send(job, job->sched.lat_dst, TAG_LOAD + 2 * round, running);
}

/* One message of tag from anyone, until the deadline: its value, or -1. */
static int load_recv(int from, int tag, uint64_t deadline)
{
	MPI_Request req;
	int v = -1;

	MPI_Irecv(&v, 1, MPI_INT, from, tag, MPI_COMM_WORLD, &req);
	if (!mpi_wait_until(&req, NULL, deadline))
		return v;
	MPI_Cancel(&req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	return -1;
}

static uint64_t load_deadline(const struct mpi_job *job)
{
	return clock_now_ns() + (uint64_t)(job->step_timeout_s * 1e9);
}

int mpi_load_await(const struct mpi_job *job, int round, int nbg)
{
	uint64_t deadline = load_deadline(job);
	int running = 0, heard = 0;

	for (; heard < nbg && !rb_stop; heard++) {
		int v = load_recv(MPI_ANY_SOURCE, TAG_LOAD + 2 * round, deadline);

		if (v < 0)
			break;
		running += v;
	}
	if (heard < nbg)
		log_err("rank %d: %d of %d background links did not say whether they run (within --step-timeout); measuring under what runs",
			job->rank, nbg - heard, nbg);
	else if (running < nbg)
		log_warn("rank %d: %d of %d background links failed to start; measuring under the %d that run",
			 job->rank, nbg - running, nbg, running);
	return running;
}

void mpi_load_stop(const struct mpi_job *job, int round, const struct sched_link *l, int nl)
{
	for (int i = 0; i < nl; i++)
		if (sched_is_background(&job->sched, &l[i]))
			load_send(job, l[i].src, TAG_LOAD + 2 * round + 1, true);
}

void mpi_load_stop_wait(const struct mpi_job *job, int round, int n, volatile int *halt)
{
	uint64_t deadline = load_deadline(job);
	int got = 0;

	while (got < n && !rb_stop && load_recv(job->sched.lat_src, TAG_LOAD + 2 * round + 1, deadline) >= 0)
		got++;
	if (got < n && !rb_stop)
		log_err("rank %d: the latency pair's client (rank %d) did not stop the background within --step-timeout; stopping it",
			job->rank, job->sched.lat_src);
	__atomic_store_n(halt, 1, __ATOMIC_SEQ_CST);
}
