/*
 * The passive side: receives (the send receiver's loop and the receives
 * every send test posts before its start barrier) and the target of
 * writes, reads and atomics, which only waits for the peer's DONE.
 */
#include "engine/internal.h"

#include <math.h>

#include "engine/touch.h"
#include "lib/log.h"
#include "lib/testfault.h"
#include "lib/oob.h"

/* ---- receives ---- */

int recv_post(struct rb_session *s, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qps_recv_area(&s->conn.q, i),
		.length = (uint32_t)s->conn.q.max_size + (s->conn.q.tr == TR_UD ? RB_UD_GRH : 0),
		.lkey = s->conn.q.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;

	int err = test_fault("no-recv") ? 0 : ibv_post_recv(s->conn.q.qp[i], &wr, &bad);

	if (!err)
		s->run.recvs_outstanding++;
	return check_post(err, s, "ibv_post_recv");
}

/* --validate: QP i's next receive into a buffer of its own (qp.h's ring). */
int recv_post_ring(struct rb_session *s, int i)
{
	validate_poison_recv(s, i);
	struct ibv_sge sge = {
		.addr = (uintptr_t)qps_ring_buf(&s->conn.q, i, s->conn.q.ring_posted[i]),
		.length = (uint32_t)s->conn.q.max_size + (s->conn.q.tr == TR_UD ? RB_UD_GRH : 0),
		.lkey = s->conn.q.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;
	int err = test_fault("no-recv") ? 0 : ibv_post_recv(s->conn.q.qp[i], &wr, &bad);

	if (!err) {
		s->run.recvs_outstanding++;
		s->conn.q.ring_posted[i]++;
	}
	return check_post(err, s, "ibv_post_recv");
}

/*
 * After a latency loop's receive on QP 0: (more) a receive for the next
 * message.  With --validate, the message just received is checked first and
 * the receive goes into the ring.  The loop picks one before it starts.
 */
int recv_again(struct rb_session *s, bool more)
{
	return more ? recv_post(s, 0) : 0;
}

int recv_again_checked(struct rb_session *s, bool more)
{
	validate_recv(s, 0, s->conn.q.ring_done[0]++);
	return more ? recv_post_ring(s, 0) : 0;
}

static bool side_receives(const struct rb_session *s)
{
	if (s->bench->verb != VERB_SEND)
		return false;
	return s->bench->metric == METRIC_LAT || s->opt->bidir || !s->is_client;
}

int loop_prepare(struct rb_session *s)
{
	if (loop_check_memory(s))
		return -EINVAL;
	s->run.peer_done = false;
	s->run.done_sent = false;
	s->run.heartbeat_ns = 0;        /* the client's first heartbeat goes out at once */
	if (s->bench->verb == VERB_WRITE && s->bench->metric == METRIC_LAT)
		for (int i = 0; i < s->conn.q.n; i++)
			memset(qps_cpu_recv_area(&s->conn.q, i), 0, s->run.size);
	if (s->bench->verb == VERB_ATOMIC)     /* the target slots start at 0 */
		for (int i = 0; i < s->conn.q.n; i++)
			memset(qps_cpu_recv_area(&s->conn.q, i), 0, RB_CYCLE_BYTES);
	if (s->opt->validate || s->opt->bounce) {
		int err = validate_prepare(s);

		if (err)
			return err;
	}
	if (!side_receives(s))
		return 0;
	while (s->run.recvs_outstanding < s->opt->rx_depth * (unsigned)s->conn.q.n) {
		int i = (int)(s->run.recvs_outstanding % (unsigned)s->conn.q.n);
		int err = s->conn.q.ring ? recv_post_ring(s, i) : recv_post(s, i);

		if (err)
			return err;
	}
	return 0;
}

static void recv_stamp(struct recv_state *r)
{
	r->last_ns = clock_now_ns();
	if (!r->first_ns)
		r->first_ns = r->probe_ns ? r->probe_ns : r->last_ns;
}

/* Count n receive completions and post a receive for each. */
static int recv_complete(struct rb_session *s, struct recv_state *r, const struct ibv_wc *wc, int n)
{
	int err;

	recv_stamp(r);
	for (int k = 0; k < n; k++) {
		if (wc_check(s, &wc[k], "receive"))
			return -EIO;
		r->total++;
		s->run.recvs_outstanding--;
		err = recv_post(s, (int)wc[k].wr_id);
		if (err)
			return err;
	}
	return 0;
}

/* recv_complete with --validate: each message is checked in its own
 * buffer before a receive goes there again. */
static int recv_complete_checked(struct rb_session *s, struct recv_state *r,
				 const struct ibv_wc *wc, int n)
{
	int err;

	recv_stamp(r);
	for (int k = 0; k < n; k++) {
		int i = (int)wc[k].wr_id;

		if (wc_check(s, &wc[k], "receive"))
			return -EIO;
		validate_recv(s, i, s->conn.q.ring_done[i]++);
		r->total++;
		s->run.recvs_outstanding--;
		err = recv_post_ring(s, i);
		if (err)
			return err;
	}
	return 0;
}

/* Once per poll, not per message: the check's branch. */
static int recv_complete_any(struct rb_session *s, struct recv_state *r, const struct ibv_wc *wc,
			     int n)
{
	return s->conn.q.ring ? recv_complete_checked(s, r, wc, n) : recv_complete(s, r, wc, n);
}

int recv_reap(struct rb_session *s, struct recv_state *r, struct watch *w, bool may_sleep)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, err;

	if (!r->first_ns)
		r->probe_ns = clock_now_ns();
	n = cq_poll(s, s->conn.q.recv_cq, wc, POLL_BATCH, may_sleep);
	if (n < 0)
		return check_post(-n, s, "ibv_poll_cq");
	if (n == 0) {
		err = watch_idle(w);
		return err == -ECANCELED ? 0 : err;
	}
	watch_progress(w, n);
	err = recv_complete_any(s, r, wc, n);
	return err ? err : *s->stop ? -EINTR : 0;    /* SIGINT while traffic still flows */
}

/*
 * The sender's DONE can come between a poll that found the CQ empty and the
 * look at the OOB channel, with its last messages already received: count
 * what the CQ holds before stopping.
 */
int recv_drain(struct rb_session *s, struct recv_state *r)
{
	struct ibv_wc wc[POLL_BATCH];
	int n = 0, err = 0;

	while (!err && r->total < r->target && (n = ibv_poll_cq(s->conn.q.recv_cq, POLL_BATCH, wc)) > 0)
		err = recv_complete_any(s, r, wc, n);
	return err ? err : n < 0 ? check_post(-n, s, "ibv_poll_cq") : 0;
}

/*
 * The receiver's clock starts at the first arrival, as perftest's
 * (perftest_resources.c set_on_first_rx_packet): the time the sender takes
 * to leave the start barrier is not the receiver's.  Precisely, when the
 * poll that found the first message began, so that the window holds every
 * message it counts (perftest's starts after that poll: a run whose
 * messages all come in one poll would have no window).  -D: the warm-up
 * starts there too.
 */
/* Once per poll, with -D or --interval (after the first arrival). */
static void recv_tick(struct rb_session *s, const struct recv_state *r, struct window *win,
		      struct ivl *iv)
{
	uint64_t now = clock_now_ns();

	if (s->run.duration_ns && win->phase < 2)
		window_tick_at(win, s, now, r->total, 0);
	ivl_tick(iv, s, win, now, r->total, 0);
}

int loop_bw_recv(struct rb_session *s, struct rb_measure *m)
{
	struct recv_state r = { .target = s->run.iters ? s->run.iters * (uint64_t)s->conn.q.n : UINT64_MAX };
	struct window win;
	struct watch w;
	struct ivl iv;
	int err = ivl_init(&iv, s);

	watch_init(&w, s, "receiving");
	window_init(&win, s);
	r.last_ns = win.t0;
	while (!err && r.total < r.target && !s->run.peer_done) {
		bool first = !r.first_ns;

		err = recv_reap(s, &r, &w, true);
		if (first && r.first_ns)
			window_init_at(&win, s, r.first_ns);
		if (r.first_ns && (s->run.duration_ns || iv.every_ns))
			recv_tick(s, &r, &win, &iv);
	}
	if (!err && s->run.peer_done)
		err = recv_drain(s, &r);
	err = loop_end(err, m);
	window_close(&win, r.last_ns, r.total);
	ivl_finish(&iv, s, &win);
	ivl_free(&iv);
	if (s->run.duration_ns) {
		measure_window(m, &win, s->run.size);
	} else {
		m->start_ns = r.first_ns ? r.first_ns : win.t0;
		m->end_ns = r.last_ns;
		m->msgs = r.total;
		m->bytes = r.total * s->run.size;
		m->peak_bps = NAN;
		m->measured = true;
		measure_cpu(m, &win);
	}
	return err;
}

int loop_passive(struct rb_session *s, struct rb_measure *m)
{
	struct watch w;
	int done;

	(void)m;
	watch_init(&w, s, "waiting for the peer");
	s->run.heartbeat_ns = clock_now_ns();
	for (;;) {
		int ready;

		if (session_stopped(s)) {
			m->partial = true;
			return 0;
		}
		ready = oob_chan_wait(s->conn.chan, 100);
		if (ready < 0)
			return ready;
		done = peer_done(s);
		if (done < 0)
			log_err("%s at size %llu: the peer is gone (it failed or was killed)", w.what,
				(unsigned long long)s->run.size);
		if (done)
			return done < 0 ? done : 0;
		if (clock_now_ns() - s->run.heartbeat_ns > (uint64_t)(s->opt->timeout_s * 1e9)) {
			log_err("%s at size %llu: no word from the peer for %.1f s (stalled or gone; --timeout sets the limit)",
				w.what, (unsigned long long)s->run.size, s->opt->timeout_s);
			return -ETIMEDOUT;
		}
	}
}
