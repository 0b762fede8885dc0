/*
 * The size loop: every size of a run, each once or (--load-compare) idle
 * and loaded in turn.  One size, on 1..N measuring loops alike (the
 * session's own, or -j's threads': its workers, session.h):
 *
 *   prepare each worker -> (--load) start the load -> READY both ways ->
 *   the loops, with the port's -W counters read around them -> the load
 *   halted, DONE traded -> the row from the workers' measures (their
 *   total under -j) -> rows traded -> (-j) each thread's row -> the row
 *   out (the report, or an embedding driver)
 */
#include "driver/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/loadrun.h"
#include "driver/threads.h"
#include "engine/loops.h"
#include "engine/postsched.h"
#include "lib/log.h"
#include "verbs/mcast.h"

static int measure_init(struct rb_measure *m, const struct rb_session *s)
{
	memset(m, 0, sizeof(*m));
	m->peak_bps = NAN;
	if (s->bench->metric != METRIC_LAT)
		return 0;
	m->hist = histogram_new();
	if (!m->hist)
		return -ENOMEM;
	/* -n: room for every sample; -D: grown as the run goes, to a bound */
	if (s->run.iters)
		return samples_init(&m->samples, s->run.iters, s->run.iters);
	return samples_init(&m->samples, SAMPLES_FIRST_CAP, SAMPLES_MAX_DURATION);
}

static void measure_free(struct rb_measure *m)
{
	samples_free(&m->samples);
	histogram_free(m->hist);
}

static rb_loop_fn pick_loop(const struct rb_session *s)
{
	const struct rb_bench *b = s->bench;

	if (s->opt->bidir)
		return s->is_client ? b->client_bidir : b->server_bidir;
	if (s->conn.q.mc && s->conn.q.mc->receiving && b->server == loop_bw_recv && !s->is_client)
		return loop_bw_recv_mc;     /* -g: each receiving QP counted */
	return s->is_client ? b->client : b->server;
}

/* The measuring loops of a size: the session itself, or (-j) its threads. */
struct workers {
	struct rb_worker *w, one;
	int n;
};

static void workers_of(struct rb_session *s, struct workers *ws)
{
	ws->one = (struct rb_worker){ .s = s, .cpu_seen = -1 };
	ws->w = s->team ? s->team->w : &ws->one;
	ws->n = s->team ? s->team->n : 1;
}

static int workers_prepare(struct rb_session *s, struct workers *ws)
{
	int err = 0;

	for (int i = 0; i < ws->n && !err; i++) {
		struct rb_session *ts = ws->w[i].s;

		ts->run.size = s->run.size;
		ts->run.cq_mod = s->run.cq_mod;
		err = measure_init(&ws->w[i].m, ts);
		if (!err)
			err = loop_prepare(ts);
	}
	return err;
}

static void workers_free(struct workers *ws)
{
	for (int i = 0; i < ws->n; i++)
		measure_free(&ws->w[i].m);
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void measure_add(struct rb_measure *sum, const struct rb_measure *m)
{
	sum->msgs += m->msgs;
	sum->bytes += m->bytes;
	sum->start_ns = min_u64(sum->start_ns, m->start_ns);
	sum->end_ns = max_u64(sum->end_ns, m->end_ns);
	sum->wrs_posted += m->wrs_posted;
	sum->wrs_signaled += m->wrs_signaled;
	sum->rx_msgs += m->rx_msgs;
	sum->rx_start_ns = min_u64(sum->rx_start_ns, m->rx_start_ns);
	sum->rx_end_ns = max_u64(sum->rx_end_ns, m->rx_end_ns);
	sum->rx_measured |= m->rx_measured;
	sum->measured |= m->measured;
	sum->partial |= m->partial;
	cpu_use_add(&sum->cpu, &m->cpu);
}

/*
 * The size's measure: one worker's own; -j's total, every thread's
 * messages and bytes, summed, exactly; its window from the earliest
 * thread's start to the latest thread's end (so its rate is at most the
 * sum of the threads' rates: the threads' windows differ a little).  No
 * peak: the threads' peaks need not coincide.
 */
struct rb_measure *workers_sum(struct rb_worker *w, int n, struct rb_measure *sum)
{
	if (n == 1)
		return &w[0].m;
	memset(sum, 0, sizeof(*sum));
	sum->start_ns = sum->rx_start_ns = UINT64_MAX;
	sum->peak_bps = NAN;
	for (int i = 0; i < n; i++)
		measure_add(sum, &w[i].m);
	if (sum->start_ns == UINT64_MAX)
		sum->start_ns = sum->end_ns;
	if (sum->rx_start_ns == UINT64_MAX)
		sum->rx_start_ns = sum->rx_end_ns;
	return sum;
}

/* -j: a thread's work for one size, its loop and DONE through its own
 * channel (a sibling failed: the run ends, no DONE is awaited). */
static int thread_body(struct rb_session *s, struct rb_measure *m)
{
	int err = pick_loop(s)(s, m);

	if (!err && !*s->halt)
		err = exchange_done(s);
	return err;
}

/* --interval: what the loop hands over at each interval's end, with the
 * -W counters' change since the last one (read once per interval). */
struct interval_sink {
	struct rb_interval_sink sink;
	struct report *r;
	uint64_t ctr[RB_MAX_COUNTERS];
};

static void interval_row(void *arg, struct rb_session *s, const struct rb_measure *im,
			 uint64_t origin_ns)
{
	struct interval_sink *k = arg;
	uint64_t now[RB_MAX_COUNTERS], delta[RB_MAX_COUNTERS] = { 0 };
	struct rb_measure m = *im;

	if (!counters_now(s, now)) {
		counters_delta(&s->opt->counters, k->ctr, now, delta);
		memcpy(k->ctr, now, sizeof(now));
	}
	report_interval(k->r, s, &m, origin_ns, delta);
}

/* Where the session's intervals go: the report's rows, or the embedding
 * driver's hook; NULL: none. */
static const struct rb_interval_sink *interval_sink(struct rb_session *s,
						    struct interval_sink *k)
{
	if (s->opt->interval_s > 0 && !s->link) {
		k->sink = (struct rb_interval_sink){ interval_row, k };
		return &k->sink;
	}
	if (s->link && s->link->on_interval) {
		k->sink = (struct rb_interval_sink){ s->link->on_interval, s->link->arg };
		return &k->sink;
	}
	return NULL;
}

/* The loops: here, or (-j) each in its thread while this one carries
 * their frames.  The port's counters are read around them: their change
 * is the loops' (the warm-up included), as close to them as the OOB
 * exchange allows. */
static int workers_run(struct rb_session *s, struct report *r, struct workers *ws,
		       uint64_t *ctr_delta)
{
	uint64_t before[RB_MAX_COUNTERS], after[RB_MAX_COUNTERS];
	struct interval_sink k = { .r = r };
	int err = counters_now(s, before);

	memcpy(k.ctr, before, sizeof(before));
	s->intervals = interval_sink(s, &k);
	if (!err && s->team)
		err = threads_run(s->team->run, s->conn.chan, thread_body);
	else if (!err)
		err = pick_loop(s)(s, &ws->w[0].m);
	s->intervals = NULL;
	if (!err)
		err = counters_now(s, after);
	if (!err)
		counters_delta(&s->opt->counters, before, after, ctr_delta);
	return err;
}

/*
 * A run that went to its end yet counted nothing has no figures: a -D
 * window that a stall (a descheduled process, a loaded host) spanned
 * from end to end.  Saying "complete" with 0 messages would pass a
 * script's check of the status; it is a failure.
 */
static int check_counted(const struct rb_session *s, const union out_val *row)
{
	if (report_row_count(row) > 0)
		return 0;
	if (s->opt->run_infinitely)
		log_err("size %llu: no message completed in the %.3f s measured (stopped that soon after the warm-up, or a stall as long)",
			(unsigned long long)s->run.size, report_row_window(s, row));
	else if (s->run.duration_ns)
		log_err("size %llu: no message completed in the %.3f s measuring window (a stall as long as the window; run it again, or longer with -D)",
			(unsigned long long)s->run.size, report_row_window(s, row));
	else
		log_err("size %llu: no message was counted", (unsigned long long)s->run.size);
	return -ENODATA;
}

/* -j: each thread's row, traded with the peer's thread of the same index. */
static int thread_rows(struct rb_session *s, struct report *r, struct workers *ws,
		       union out_val (*trows)[REPORT_MAX_COLS], bool measured)
{
	union out_val peer[REPORT_MAX_COLS];
	int err = 0;

	for (int i = 0; s->team && i < ws->n && !err; i++) {
		if (measured)
			report_compute_thread(r, &ws->w[i], trows[i]);
		err = exchange_rows(s, r, trows[i], peer, measured);
		if (!err && measured)
			report_bidir(ws->w[i].s, trows[i], peer);
	}
	return err;
}

/* The row goes to the report (-j: with its threads'), or to the embedding
 * driver (the client's). */
static void session_row(struct rb_session *s, struct report *r, union out_val *row,
			union out_val (*trows)[REPORT_MAX_COLS])
{
	report_interval_total(r, s, row);
	if (s->link) {
		if (s->is_client && !s->team)
			s->link->row(s->link->arg, row, r->nall);
		return;
	}
	if (s->team)
		report_row_threads(r, row, trows, s->team, s->opt->thread_rows);
	else
		report_row(r, row);
	report_interval_done(r, s);
}

/* This side's row and the peer's, traded: the columns of the measure m
 * and of each feature (--validate, --load, -b's sums). */
static int size_row(struct rb_session *s, struct report *r, struct rb_measure *m,
		    union out_val *row)
{
	union out_val peer[REPORT_MAX_COLS] = { 0 };
	int err = report_files(s, m);

	if (!err && m->measured)
		report_compute(r, s, m, row);
	report_pace_check(s, m);
	report_validate(r, s, row);
	report_mcast(r, s, m, row);
	if (s->load)
		report_load(r, s, loadrun_figures(s->load), row, NULL);
	if (!err)
		err = exchange_rows(s, r, row, peer, m->measured);
	if (!err)
		report_validate_merge(r, s, row, peer);
	if (!err)
		report_mcast_merge(r, s, row, peer);
	if (!err && s->load)
		report_load(r, s, loadrun_figures(s->load), row, peer);
	if (!err && m->measured)
		report_bidir(s, row, peer);
	report_cpu(r, m, row);
	report_pace(r, s, m, row);
	return err;
}

/* The loops, from the barrier to the peer's DONE (-j: each thread's,
 * traded in its thread). */
static int size_loops(struct rb_session *s, struct report *r, struct workers *ws,
		      uint64_t *ctr_delta)
{
	int err = s->load ? loadrun_start(s) : 0;

	if (!err)
		err = barrier(s, "starting the measurement");
	if (!err && s->link && s->link->started)
		s->link->started(s->link->arg);
	if (!err)
		err = workers_run(s, r, ws, ctr_delta);
	if (!s->team && s->load && loadrun_stop(s, ws->w[0].m.start_ns, ws->w[0].m.end_ns) && !err)
		err = -EIO;
	if (!err && !s->team)
		err = exchange_done(s);
	return err;
}

static int run_size(struct rb_session *s, struct report *r, bool *partial)
{
	union out_val row[REPORT_MAX_COLS] = { 0 };
	union out_val (*trows)[REPORT_MAX_COLS] = NULL;
	uint64_t ctr_delta[RB_MAX_COUNTERS] = { 0 };
	struct rb_measure sum, *m = NULL;
	struct workers ws;
	int err;

	workers_of(s, &ws);
	trows = s->team ? calloc((size_t)ws.n, sizeof(*trows)) : NULL;
	err = s->team && !trows ? -ENOMEM : workers_prepare(s, &ws);
	if (!err)
		err = size_loops(s, r, &ws, ctr_delta);
	if (!err && (s->opt->validate || s->opt->bounce))
		validate_after(s);
	if (!err) {
		m = workers_sum(ws.w, ws.n, &sum);
		memcpy(m->ctr_delta, ctr_delta, sizeof(ctr_delta));
		err = size_row(s, r, m, row);
	}
	if (!err)
		err = thread_rows(s, r, &ws, trows, m->measured);
	/* --run_infinitely: SIGINT/SIGTERM (here or at the peer) is its end */
	*partial = !s->opt->run_infinitely && ((m && m->partial) || *s->stop);
	if (!err && !*partial)
		err = check_counted(s, row);
	if (!err)
		session_row(s, r, row, trows);
	if (!err)
		err = report_validate_verdict(r, s, row);
	workers_free(&ws);
	free(trows);
	return err;
}

/* One size: once, or (--load-compare) idle and loaded in turn. */
static int run_reps(struct rb_session *s, struct report *r, bool *partial)
{
	unsigned reps = s->opt->load.compare ? LOAD_COMPARE_REPS : 1;
	int err = 0;

	for (unsigned k = 0; k < reps && !err && !*partial; k++) {
		s->run.load_on = s->load && (!s->opt->load.compare || load_compare_loaded(k));
		s->run.load_rep = k;
		err = run_size(s, r, partial);
	}
	return err;
}

/* UD: the path MTU in bytes (the QPs': thread 0's under -j), else 0. */
static uint64_t ud_mtu(const struct rb_session *s)
{
	const struct rb_qps *q = s->team ? &s->team->w[0].s->conn.q : &s->conn.q;

	return s->opt->transport == TR_UD ? (uint64_t)device_mtu_bytes(q->mtu) : 0;
}

int run_sizes(struct rb_session *s, struct report *r, bool *partial)
{
	const struct rb_options *o = s->opt;
	uint64_t mtu = ud_mtu(s), first = o->all ? RB_SWEEP_MIN : o->size;
	uint64_t last = session_last_size(o, mtu);
	int err = 0;

	if (mtu && !o->all && o->size > mtu) {
		log_err("-s/--size %llu is larger than the path MTU %llu: UD messages must fit one MTU",
			(unsigned long long)o->size, (unsigned long long)mtu);
		return -EINVAL;
	}
	for (uint64_t size = first; size <= last && !err && !*partial; size *= 2) {
		s->run.size = size;
		s->run.cq_mod = psched_cq_mod(o->cq_mod, o->cq_mod_given, size);
		err = run_reps(s, r, partial);
	}
	return err;
}
