#include "session/run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "verbs/cm.h"
#include "config.h"
#include "lib/log.h"
#include "driver/loadrun.h"
#include "driver/loopback.h"
#include "engine/loops.h"
#include "session/hello.h"
#include "lib/oob.h"
#include "engine/postsched.h"
#include "report/report.h"
#include "driver/threads.h"
#include "lib/wire.h"

volatile sig_atomic_t rb_stop;

static void on_signal(int sig)
{
	(void)sig;
	rb_stop = 1;
}

static void signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	oob_set_stop_flag(&rb_stop);
}

static int oob_timeout_ms(const struct rb_session *s)
{
	return (int)(s->opt->timeout_s * 1000);
}

/* ---- the parameters both sides must agree on (hello.h) ---- */

/* -o and the device's read/atomic limits (0 under -R: rdma_cm has not
 * picked the device yet), offers that may differ between the sides. */
static void hello_put_offer(const struct rb_session *s, struct wire_hello *h)
{
	const struct rb_device *d = &s->dev;

	h->params[h->nparams++] = (struct wire_param){ WIRE_P_OUTS_ASKED, s->opt->outs };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_RD_ATOM,
		d->ctx ? (uint64_t)d->attr.max_qp_rd_atom : 0 };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_INIT_RD_ATOM,
		d->ctx ? (uint64_t)d->attr.max_qp_init_rd_atom : 0 };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_LOAD_PORT, loadrun_port(s->load) };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_MTU_ASKED, (uint64_t)s->opt->mtu };
}

static void hello_build(const struct rb_session *s, struct wire_hello *h)
{
	hello_params(s->opt, s->bench, h);
	hello_put_offer(s, h);
}

static const struct wire_param *param_find(const struct wire_hello *h, uint16_t id)
{
	for (int i = 0; i < h->nparams; i++)
		if (h->params[i].id == id)
			return &h->params[i];
	return NULL;
}

static int exchange_hello(struct rb_session *s)
{
	struct wire_hello mine, peer;
	uint8_t buf[WIRE_MAX_PAYLOAD];
	uint32_t len;
	int n, err;

	hello_build(s, &mine);
	n = wire_hello_encode(&mine, buf, sizeof(buf));
	if (n < 0)
		return n;
	err = oob_chan_send(s->chan, WIRE_HELLO, buf, (uint32_t)n, oob_timeout_ms(s));
	if (!err)
		err = oob_chan_expect(s->chan, WIRE_HELLO, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (!err && wire_hello_decode(buf, len, &peer)) {
		log_err("OOB: the peer's HELLO message is malformed");
		err = -EPROTO;
	}
	if (err)
		log_err("exchanging the test parameters (HELLO) with %s failed", s->peer);
	if (!err)
		err = hello_compare(&mine, &peer, s->is_client);
	if (!err)
		wire_hello_offer(&peer, &s->peer_rd);
	if (!err && param_find(&peer, WIRE_P_MTU_ASKED))
		s->peer_mtu = param_find(&peer, WIRE_P_MTU_ASKED)->value;
	if (!err && s->is_client && param_find(&peer, WIRE_P_LOAD_PORT))
		loadrun_peer_port(s->load, param_find(&peer, WIRE_P_LOAD_PORT)->value);
	return err;
}

/* What the peer says about its QPs goes into ibv_modify_qp: check it first. */
static int qps_remote_check(const struct rb_session *s)
{
	for (int i = 0; i < s->q.n; i++) {
		const struct wire_qp *r = &s->q.remote[i];

		if (r->qpn > 0xffffff || r->psn > 0xffffff || !device_mtu_enum((int)r->mtu)) {
			log_err("OOB: the peer's QP %d is invalid (QPN 0x%x, PSN 0x%x: 24 bits; MTU %u: 256..4096)",
				i, r->qpn, r->psn, r->mtu);
			return -EPROTO;
		}
	}
	return 0;
}

static int exchange_qps(struct rb_session *s)
{
	uint8_t buf[WIRE_MAX_PAYLOAD];
	uint32_t len;
	int n, got, err;

	n = wire_qp_encode(s->q.local, s->q.n, buf, sizeof(buf));
	if (n < 0)
		return n;
	err = oob_chan_send(s->chan, WIRE_QP, buf, (uint32_t)n, oob_timeout_ms(s));
	if (!err)
		err = oob_chan_expect(s->chan, WIRE_QP, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (!err && (wire_qp_decode(buf, len, s->q.remote, s->q.n, &got) || got != s->q.n)) {
		log_err("OOB: the peer sent a malformed QP list (%d QPs expected)", s->q.n);
		err = -EPROTO;
	}
	if (!err)
		err = qps_remote_check(s);
	if (err)
		log_err("exchanging the QP attributes with %s failed", s->peer);
	return err;
}

static int barrier(struct rb_session *s, const char *phase)
{
	uint8_t buf[16];
	uint32_t len;
	int err = oob_chan_send(s->chan, WIRE_READY, NULL, 0, oob_timeout_ms(s));

	if (!err)
		err = oob_chan_expect(s->chan, WIRE_READY, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (err)
		log_err("%s: the peer did not get ready (it failed or is gone)", phase);
	return err;
}

/* ---- one size ---- */

/* The peer's DONE, within --timeout; a heartbeat (READY) it sent before
 * it is skipped: a side halted by its driver (--load) may end its loop
 * while its active peer still runs and beats. */
static int expect_done(struct rb_session *s)
{
	uint64_t deadline = clock_now_ns() + (uint64_t)(s->opt->timeout_s * 1e9);
	uint8_t buf[16];
	uint32_t len;
	uint16_t type;
	int err;

	do
		err = oob_chan_recv(s->chan, &type, buf, sizeof(buf), &len, oob_timeout_ms(s));
	while (!err && type == WIRE_READY && clock_now_ns() < deadline);
	if (!err && type != WIRE_DONE) {
		log_err("OOB: expected a DONE message from %s, got %s", s->peer, wire_type_name(type));
		err = -EPROTO;
	}
	return err;
}

/* Each side says DONE when its loop ends and waits for the peer's. */
static int exchange_done(struct rb_session *s)
{
	int err = s->done_sent ? 0 : oob_chan_send(s->chan, WIRE_DONE, NULL, 0, oob_timeout_ms(s));

	if (!err && !s->peer_done)
		err = expect_done(s);
	if (err)
		log_err("finishing size %llu: the peer did not finish (it failed or is gone)",
			(unsigned long long)s->size);
	return err;
}

/* Trade rows (the peer's goes to peer): a side that only served the peer
 * prints the peer's row. */
static int exchange_rows(struct rb_session *s, const struct report *r, union out_val *row,
			 union out_val *peer, bool measured)
{
	struct wire_param p[REPORT_MAX_COLS];
	uint8_t buf[1024];
	uint32_t len;
	int n = 0, err;

	for (int i = 0; i < r->nbase; i++)
		p[i] = (struct wire_param){ (uint16_t)i,
			measured || report_traded_always(r, i) ? row[i].u : 0 };
	n = wire_params_encode(p, r->nbase, buf, sizeof(buf));
	err = n < 0 ? n : oob_chan_send(s->chan, WIRE_RESULT, buf, (uint32_t)n, oob_timeout_ms(s));
	if (!err)
		err = oob_chan_expect(s->chan, WIRE_RESULT, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (!err && (wire_params_decode(buf, len, p, REPORT_MAX_COLS, &n) || n != r->nbase)) {
		log_err("OOB: the peer sent a malformed result");
		err = -EPROTO;
	}
	if (err)
		log_err("exchanging the results of size %llu with %s failed",
			(unsigned long long)s->size, s->peer);
	for (int i = 0; !err && i < n; i++)
		peer[p[i].id < r->nbase ? p[i].id : 0].u = p[i].value;
	for (int i = 0; !err && !measured && i < n; i++)
		row[i] = peer[i];
	return err;
}

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
	if (s->iters)
		return samples_init(&m->samples, s->iters, s->iters);
	return samples_init(&m->samples, SAMPLES_FIRST_CAP, SAMPLES_MAX_DURATION);
	return 0;
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
	return s->is_client ? b->client : b->server;
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
			(unsigned long long)s->size, report_row_window(s, row));
	else if (s->duration_ns)
		log_err("size %llu: no message completed in the %.3f s measuring window (a stall as long as the window; run it again, or longer with -D)",
			(unsigned long long)s->size, report_row_window(s, row));
	else
		log_err("size %llu: no message was counted", (unsigned long long)s->size);
	return -ENODATA;
}

/* The row goes to the report, or to the embedding driver (the client's). */
static void session_row(struct rb_session *s, struct report *r, union out_val *row)
{
	report_interval_total(r, s, row);
	if (!s->link) {
		report_row(r, row);
		report_interval_done(r, s);
	}
	else if (s->is_client)
		s->link->row(s->link->arg, row, r->nall);
}

/* -W: the local port's counters, now. */
static int counters_now(const struct rb_session *s, uint64_t *val)
{
	return counters_read("", s->dev.name, s->dev.port, &s->opt->counters, val);
}

/* --interval: what the loop hands over at each interval's end, with the
 * -W counters' change since the last one (read once per interval). */
struct interval_sink {
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

/* The loop with the counters read around it: their change is the loop's
 * (the warm-up included), as close to it as the OOB exchange allows. */
static int run_loop(struct rb_session *s, struct report *r, struct rb_measure *m)
{
	uint64_t before[RB_MAX_COUNTERS], after[RB_MAX_COUNTERS];
	struct interval_sink sink = { .r = r };
	int err = counters_now(s, before);

	memcpy(sink.ctr, before, sizeof(before));
	if (s->opt->interval_s > 0 && !s->link) {
		s->on_interval = interval_row;
		s->interval_arg = &sink;
	} else if (s->link && s->link->on_interval) {
		s->on_interval = s->link->on_interval;
		s->interval_arg = s->link->arg;
	}
	if (!err)
		err = pick_loop(s)(s, m);
	s->on_interval = NULL;
	if (!err)
		err = counters_now(s, after);
	if (!err)
		counters_delta(&s->opt->counters, before, after, m->ctr_delta);
	return err;
}

static int run_size(struct rb_session *s, struct report *r, bool *partial)
{
	union out_val row[REPORT_MAX_COLS] = { 0 }, peer[REPORT_MAX_COLS] = { 0 };
	struct rb_measure m;
	int err = measure_init(&m, s);

	if (!err)
		err = loop_prepare(s);
	if (!err && s->load)
		err = loadrun_start(s);
	if (!err)
		err = barrier(s, "starting the measurement");
	if (!err && s->link && s->link->started)
		s->link->started(s->link->arg);
	if (!err)
		err = run_loop(s, r, &m);
	if (s->load && loadrun_stop(s, m.start_ns, m.end_ns) && !err)
		err = -EIO;
	if (!err)
		err = exchange_done(s);
	if (!err && s->opt->validate)
		validate_after(s);
	if (!err)
		err = report_files(s, &m);
	if (!err && m.measured)
		report_compute(r, s, &m, row);
	report_validate(r, s, row);
	if (s->load)
		report_load(r, s, loadrun_figures(s->load), row, NULL);
	if (!err)
		err = exchange_rows(s, r, row, peer, m.measured);
	if (!err)
		report_validate_merge(r, s, row, peer);
	if (!err && s->load)
		report_load(r, s, loadrun_figures(s->load), row, peer);
	if (!err && m.measured)
		report_bidir(s, row, peer);
	/* --run_infinitely: SIGINT/SIGTERM (here or at the peer) is its end */
	*partial = !s->opt->run_infinitely && (m.partial || rb_stop);
	if (!err && !*partial)
		err = check_counted(s, row);
	if (!err)
		session_row(s, r, row);
	if (!err)
		err = report_validate_verdict(r, s, row);
	measure_free(&m);
	return err;
}

/* -j: a thread's work for one size (the main thread carries its frames). */
static int thread_body(struct rb_session *s, struct rb_measure *m)
{
	int err = pick_loop(s)(s, m);

	/* a sibling failed: the run ends, no DONE is awaited */
	if (!err && !*s->halt)
		err = exchange_done(s);
	return err;
}

static int threads_prepare(struct rb_session *s)
{
	struct rb_threads *T = s->threads;
	int err = 0;

	for (int i = 0; i < T->n && !err; i++) {
		struct rb_thread *t = &T->t[i];

		t->s.size = s->size;
		t->s.cq_mod = s->cq_mod;
		err = measure_init(&t->m, &t->s);
		if (!err)
			err = loop_prepare(&t->s);
	}
	return err;
}

/* The threads' loops, with the port's counters read around them all. */
static int threads_loops(struct rb_session *s, struct rb_measure *sum)
{
	uint64_t before[RB_MAX_COUNTERS], after[RB_MAX_COUNTERS];
	int err = counters_now(s, before);

	if (!err)
		err = barrier(s, "starting the measurement");
	if (!err)
		err = threads_run(s->threads, s->chan, thread_body);
	if (!err)
		err = counters_now(s, after);
	if (!err)
		counters_delta(&s->opt->counters, before, after, sum->ctr_delta);
	if (!err)
		threads_sum(s->threads, sum);
	return err;
}

/* -j: each thread's row, traded with the peer's thread of the same index. */
static int threads_rows(struct rb_session *s, struct report *r,
			union out_val (*trows)[REPORT_MAX_COLS], bool measured)
{
	union out_val peer[REPORT_MAX_COLS];
	int err = 0;

	for (int i = 0; i < s->threads->n && !err; i++) {
		struct rb_thread *t = &s->threads->t[i];

		if (measured)
			report_compute_thread(r, t, trows[i]);
		err = exchange_rows(s, r, trows[i], peer, measured);
		if (!err && measured)
			report_bidir(&t->s, trows[i], peer);
	}
	return err;
}

static int run_size_threads(struct rb_session *s, struct report *r, bool *partial)
{
	union out_val row[REPORT_MAX_COLS] = { 0 }, peer[REPORT_MAX_COLS] = { 0 };
	union out_val (*trows)[REPORT_MAX_COLS] = calloc((size_t)s->threads->n, sizeof(*trows));
	struct rb_measure sum = { 0 };
	int err = trows ? threads_prepare(s) : -ENOMEM;

	if (!err)
		err = threads_loops(s, &sum);
	if (!err && sum.measured)
		report_compute(r, s, &sum, row);
	if (!err)
		err = exchange_rows(s, r, row, peer, sum.measured);
	if (!err && sum.measured)
		report_bidir(s, row, peer);
	if (!err)
		err = threads_rows(s, r, trows, sum.measured);
	*partial = sum.partial || rb_stop;
	if (!err && !*partial)
		err = check_counted(s, row);
	if (!err && !s->link)
		report_row_threads(r, row, trows, s->threads, s->opt->thread_rows);
	for (int i = 0; i < s->threads->n; i++)
		measure_free(&s->threads->t[i].m);
	free(trows);
	return err;
}

/* One size: once, or (--load-compare) idle and loaded in turn. */
static int run_reps(struct rb_session *s, struct report *r, bool *partial)
{
	unsigned reps = s->opt->load.compare ? LOAD_COMPARE_REPS : 1;
	int err = 0;

	for (unsigned k = 0; k < reps && !err && !*partial; k++) {
		s->load_on = s->load && (!s->opt->load.compare || load_compare_loaded(k));
		s->load_rep = k;
		err = run_size(s, r, partial);
	}
	return err;
}

/* UD messages fit in one MTU. */
static uint64_t size_limit(const struct rb_session *s)
{
	const struct rb_qps *q = s->threads ? &s->threads->t[0].s.q : &s->q;

	return s->opt->transport == TR_UD ? (uint64_t)device_mtu_bytes(q->mtu) : RB_SWEEP_MAX;
}

static int run_sizes(struct rb_session *s, struct report *r, bool *partial)
{
	const struct rb_options *o = s->opt;
	uint64_t first = o->all ? RB_SWEEP_MIN : o->size, last = o->all ? size_limit(s) : o->size;
	int err = 0;

	if (o->transport == TR_UD && o->size > size_limit(s) && !o->all) {
		log_err("-s/--size %llu is larger than the path MTU %llu: UD messages must fit one MTU",
			(unsigned long long)o->size, (unsigned long long)size_limit(s));
		return -EINVAL;
	}
	for (uint64_t size = first; size <= last && !err && !*partial; size *= 2) {
		s->size = size;
		s->cq_mod = psched_cq_mod(o->cq_mod, o->cq_mod_given, size);
		err = s->threads ? run_size_threads(s, r, partial) : run_reps(s, r, partial);
	}
	return err;
}

/* ---- setup and teardown ---- */

static uint64_t max_size(const struct rb_options *o)
{
	return o->all ? (o->transport == TR_UD ? 4096 : RB_SWEEP_MAX) : o->size;
}

static void session_timing(struct rb_session *s)
{
	const struct rb_options *o = s->opt;

	bool timed = o->duration_s > 0 || o->run_infinitely;

	s->iters = timed ? 0 : o->iters;
	s->warmup_iters = timed ? 0 : o->warmup_iters;
	s->duration_ns = o->run_infinitely ? UINT64_MAX / 2 : (uint64_t)(o->duration_s * 1e9);
	s->warmup_ns = (uint64_t)(o->warmup_s * 1e9);
#ifdef RB_TEST_DELAY
	if (getenv("RB_TEST_DELAY_NS"))
		s->test_delay_ns = strtoull(getenv("RB_TEST_DELAY_NS"), NULL, 10);
	if (getenv("RB_TEST_START_DELAY_NS"))
		s->test_start_delay_ns = strtoull(getenv("RB_TEST_START_DELAY_NS"), NULL, 10);
	if (getenv("RB_TEST_REPOST_DELAY_NS"))
		s->test_repost_delay_ns = strtoull(getenv("RB_TEST_REPOST_DELAY_NS"), NULL, 10);
	if (getenv("RB_TEST_HEARTBEAT_DELAY_NS"))
		s->test_heartbeat_delay_ns = strtoull(getenv("RB_TEST_HEARTBEAT_DELAY_NS"), NULL, 10);
#endif
}

static struct wire_rd_offer rd_offer_mine(const struct rb_session *s)
{
	return (struct wire_rd_offer){ .asked = s->opt->outs,
				       .rd_atom = (uint64_t)s->dev.attr.max_qp_rd_atom,
				       .init_rd_atom = (uint64_t)s->dev.attr.max_qp_init_rd_atom };
}

/*
 * Outstanding reads/atomics: the smallest of both sides' -o and device
 * limits (under -R the peer's device is not known yet: rdma_cm's connect
 * request and reply carry the rest, see cm.c).  Nothing lowered in silence.
 */
static void session_outs(struct rb_session *s)
{
	const struct wire_rd_offer mine = rd_offer_mine(s), *peer = &s->peer_rd;

	s->q.outs = wire_rd_depth(&mine, peer);
	log_verbose("outstanding reads/atomics: %u (-o %llu/%llu, max_qp_rd_atom %llu/%llu, max_qp_init_rd_atom %llu/%llu: this side/the peer, 0: none or not known)",
		    s->q.outs, (unsigned long long)mine.asked, (unsigned long long)peer->asked,
		    (unsigned long long)mine.rd_atom, (unsigned long long)peer->rd_atom,
		    (unsigned long long)mine.init_rd_atom, (unsigned long long)peer->init_rd_atom);
	if (s->opt->outs > s->q.outs)
		log_warn("-o/--outs %u is more than both sides allow (this device: max_qp_rd_atom %llu, max_qp_init_rd_atom %llu; the peer: -o %llu, %llu, %llu); using %u",
			 s->opt->outs, (unsigned long long)mine.rd_atom, (unsigned long long)mine.init_rd_atom,
			 (unsigned long long)peer->asked, (unsigned long long)peer->rd_atom,
			 (unsigned long long)peer->init_rd_atom, s->q.outs);
}

/* The CPU, buffers and QPs of a session that measures (a thread's: -j,
 * avoiding its siblings' CPUs). */
static int setup_measuring(struct rb_session *s, const cpu_set_t *avoid)
{
	const struct rb_options *o = s->opt;
	const cpu_set_t *link_avoid = s->link ? s->link->avoid : NULL;
	int err = s->halt ? threads_place(s, avoid) : placement_apply(s->dev.numa_node, o->numa_node,
				o->no_numa, o->cpu_list, s->is_client, link_avoid, &s->place);

	if (err)
		return err;
	if (s->halt)
		log_verbose("thread %d: placement: %s", s->thread, s->place.note);
	else
		log_verbose("placement: %s", s->place.note);
	err = qps_create(&s->q, s->dev.ctx, s->bench, o, max_size(o), &s->place, !o->rdma_cm);
	if (err)
		return err;
	s->q.mtu_ask = hello_mtu((uint64_t)o->mtu, s->peer_mtu);
	if (s->q.mtu_ask != (unsigned)o->mtu)
		log_verbose("-m/--mtu: the peer gives %u, this side %d: both use %u", (unsigned)s->peer_mtu,
			    o->mtu, s->q.mtu_ask);
	/* numa_maps lines start with this address: tests find the mapping by it */
	log_verbose("buffers: %zu bytes at %lx on node %d", s->q.buf.len,
		    (unsigned long)(uintptr_t)s->q.buf.addr, s->q.buf.node);
	session_outs(s);
	return 0;
}

/* -j: the main thread measures nothing; each thread's session is set up
 * here, one after another. */
static int setup_threads(struct rb_session *s)
{
	struct rb_threads *T = calloc(1, sizeof(*T));
	cpu_set_t taken;
	int err;

	CPU_ZERO(&taken);
	memset(&s->place, 0, sizeof(s->place));
	s->place.cpu = -1;
	cpuclaim_init(&s->place.claim);
	if (!T)
		return -ENOMEM;
	s->threads = T;
	err = threads_open(T, s, (int)s->opt->threads);
	for (int i = 0; !err && i < T->n; i++) {
		err = setup_measuring(&T->t[i].s, &taken);
		if (T->t[i].s.place.cpu >= 0)
			CPU_SET(T->t[i].s.place.cpu, &taken);
	}
	if (!err)
		threads_describe(T);
	return err;
}

static int setup_device(struct rb_session *s)
{
	const struct rb_options *o = s->opt;
	uint64_t scratch[RB_MAX_COUNTERS];
	int err;

	err = o->rdma_cm ? cm_open(s) : 0;
	if (err)
		return err;
	log_verbose("device %s port %d GID index %d (%s)", s->dev.name, s->dev.port,
		    s->dev.gid.index, s->dev.gid_why);
	err = counters_now(s, scratch);
	if (err)
		return err;
	err = o->threads > 1 ? setup_threads(s) : setup_measuring(s, NULL);
	if (err)
		return err;
	return o->rdma_cm ? cm_connect(s) : 0;
}

static int check_atomics(const struct rb_session *s)
{
	if (s->bench->verb != VERB_ATOMIC || s->dev.attr.atomic_cap != IBV_ATOMIC_NONE)
		return 0;
	log_err("device %s does not support atomic operations (atomic_cap is NONE)", s->dev.name);
	return -EOPNOTSUPP;
}

/* A link made to fail, for tests (rb_mpi_faults): its first work request
 * completes in error (flushed), as after a fault on the path. */
static void qps_break(struct rb_session *s)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	for (int i = 0; i < s->q.n; i++)
		ibv_modify_qp(s->q.qp[i], &attr, IBV_QP_STATE);
}

static int connect_qps(struct rb_session *s);

/* -j: each thread's QPs over the session's channel, thread by thread; then
 * each thread talks through its own channel (threads.h). */
static int connect_threads(struct rb_session *s)
{
	struct rb_threads *T = s->threads;
	int err = 0;

	for (int i = 0; i < T->n && !err; i++) {
		err = connect_qps(&T->t[i].s);
		T->t[i].s.chan = &T->t[i].chan;
	}
	return err;
}

static int connect_qps(struct rb_session *s)
{
	int err;

	if (s->threads)
		return connect_threads(s);
	qps_describe(&s->q, &s->dev);
	err = exchange_qps(s);
	if (!err && !s->opt->rdma_cm)
		err = qps_connect(&s->q, &s->dev, s->opt, s->bench);
	if (!err)
		err = qps_read_attrs(&s->q, s->opt);
	if (!err && s->link && s->link->test_break_qp)
		qps_break(s);
	return err;
}

/* -j: the threads' verbs objects, the last thread's first. */
static void threads_teardown(struct rb_session *s)
{
	struct rb_threads *T = s->threads;

	for (int i = T->t ? T->n - 1 : -1; i >= 0; i--) {
		qps_destroy(&T->t[i].s.q);
		placement_release(&T->t[i].s.place);
	}
	threads_close(T);
	free(T);
	s->threads = NULL;
}

static void session_teardown(struct rb_session *s)
{
	if (s->threads)
		threads_teardown(s);
	loadrun_close(s);
	if (s->cm)
		cm_close(s);
	validate_free(s);
	qps_destroy(&s->q);
	device_close(&s->dev);
	placement_release(&s->place);
}

static const char *status_of(int err, bool partial)
{
	return err ? "failed" : partial ? "partial" : "complete";
}

static int exit_code(int err, bool partial)
{
	if (err == -EINVAL)
		return RB_EXIT_USAGE;
	return err || partial ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

/* The failed document (r NULL: an embedded session, none). */
static void report_failed(struct report *r, const struct rb_session *s)
{
	if (r)
		report_finish(r, s, "failed", log_first_error());
}

/*
 * One client, from the first message to teardown, into r (opened by the
 * caller; NULL under a driver, rb_mpi).  The client opened the device
 * before it reached the peer.  Returns an exit code.
 */
static int run_session(struct rb_session *s, struct report *r)
{
	struct report link_r;
	bool partial = false;
	int err = 0;

	session_timing(s);
	if (!r)
		report_define(&link_r, s);
	err = loadrun_open(s);
	/* the device first: HELLO carries its limits (-R: rdma_cm picks it later) */
	if (!err && !s->opt->rdma_cm && !s->dev.ctx)
		err = device_open(s->opt->ib_dev, s->opt->ib_port, s->opt->gid_index, &s->dev);
	if (!err)
		err = exchange_hello(s);
	if (!err)
		err = setup_device(s);
	if (!err)
		err = check_atomics(s);
	if (!err)
		err = connect_qps(s);
	if (!err && r)
		report_begin(r, s);
	if (!err)
		err = run_sizes(s, r ? r : &link_r, &partial);
	if (!err && r && r->ivl_below)
		log_err("%llu interval(s) below --min-bw %s (named above)",
			(unsigned long long)r->ivl_below, s->opt->min_bw_text);
	if (!err)
		clock_check_drift();
	if (!err && partial)
		log_warn("size %llu: stopped early (%s); the figures cover what was measured",
			 (unsigned long long)s->size, rb_stop ? "interrupted" : "the peer stopped first");
	if (r)
		report_finish(r, s, status_of(err, partial), err ? log_first_error() : NULL);
	session_teardown(s);
	return exit_code(err, partial || (r && r->ivl_below));
}

/*
 * What can fail without the peer fails before it is reached: the -H and
 * --raw files, the device, port and GID index, the -W counters (-R:
 * rdma_cm picks the device later).  The device stays open in d.
 */
static int check_local(const struct rb_session *s, struct rb_device *d)
{
	const struct rb_options *o = s->opt;
	uint64_t scratch[RB_MAX_COUNTERS];
	int err = report_check_files(s);

	if (err || o->rdma_cm)
		return err;
	err = device_open(o->ib_dev, o->ib_port, o->gid_index, d);
	if (!err)
		err = counters_read("", d->name, d->port, &o->counters, scratch);
	return err;
}

static int run_client(const struct rb_bench *b, const struct rb_options *o)
{
	struct rb_session s = { .bench = b, .opt = o, .is_client = true };
	struct oob_chan chan;
	struct report r;
	int deadline_ms = (int)(o->timeout_s * 1000), fd, rc, err;

	snprintf(s.peer, sizeof(s.peer), "%s", o->server);
	if (report_open(&r, &s))
		return RB_EXIT_RUNTIME;
	err = check_local(&s, &s.dev);
	fd = err ? -1 : oob_connect(o->server, o->port, deadline_ms);
	if (fd < 0) {
		report_failed(&r, &s);
		device_close(&s.dev);
		return err ? exit_code(err, false) : RB_EXIT_RUNTIME;
	}
	oob_chan_tcp(&chan, fd);
	s.chan = &chan;
	rc = run_session(&s, &r);
	close(fd);
	return rc;
}

/* A server fails at once on an output file, device, port, GID index or -W
 * counter that cannot work, not when its first client comes. */
static int server_check_local(const struct rb_session *s)
{
	struct rb_device d = { 0 };
	int err = check_local(s, &d);

	device_close(&d);
	return err;
}

/* Serve one client on fd into r (opened: the first at start, the next
 * ones here, each its own document).  Returns an exit code. */
static int serve_client(struct rb_session *s, struct report *r, bool first, int fd)
{
	struct oob_chan chan;

	log_verbose("client %s connected", s->peer);
	log_clear_error();
	if (!first && report_open(r, s))
		return RB_EXIT_RUNTIME;
	oob_chan_tcp(&chan, fd);
	s->chan = &chan;
	return run_session(s, r);
}

static int run_server(const struct rb_bench *b, const struct rb_options *o)
{
	struct rb_session s0 = { .bench = b, .opt = o };
	struct oob_listener l;
	struct report r;
	bool first = true;
	int rc, err;

	if (report_open(&r, &s0))
		return RB_EXIT_RUNTIME;
	err = server_check_local(&s0);
	if (!err && oob_listen(&l, o->bind_addr, o->port))
		err = -EADDRINUSE;
	if (err) {
		report_failed(&r, &s0);
		return exit_code(err, false);
	}
	log_info("waiting for a client on port %u%s", o->port, o->persistent ? " (--persistent)" : "");
	rc = RB_EXIT_RUNTIME;	/* a signal before any client ends in failure */
	do {
		struct rb_session s = { .bench = b, .opt = o };
		int fd = oob_accept(&l, -1, s.peer, sizeof(s.peer));

		if (fd < 0) {
			/* --persistent ends on a signal between clients: the
			 * status is the last client's */
			if (rb_stop && o->persistent)
				break;
			rc = RB_EXIT_RUNTIME;
			if (rb_stop)
				break;
			continue;
		}
		oob_refuse_start(&l);
		rc = serve_client(&s, &r, first, fd);
		first = false;
		oob_refuse_stop(&l);
		close(fd);
	} while (o->persistent && !rb_stop);
	if (first)	/* stopped by a signal before any client came */
		report_finish(&r, &s0, "failed", "stopped before any client came");
	oob_close_listener(&l);
	return rc;
}

void run_init(void)
{
	signals_install();
	srand48((long)getpid() ^ (long)clock_now_ns());
}

int run_bench(const struct rb_bench *b, const struct rb_options *o)
{
	if (placement_check(o->numa_node, o->cpu_list))
		return RB_EXIT_USAGE;
	run_init();
	clock_init(o->clock);
	if (o->loopback)
		return loopback_run(b, o, run_bench);
	return o->server ? run_client(b, o) : run_server(b, o);
}

int run_link(const struct rb_bench *b, const struct rb_options *o, const struct rb_link *l)
{
	struct rb_session s = { .bench = b, .opt = o, .is_client = l->is_client,
				.chan = l->chan, .link = l };

	snprintf(s.peer, sizeof(s.peer), "%s", l->peer);
	clock_init_once(o->clock);	/* both ends of a link may get here at once */
	return run_session(&s, NULL);
}
