/*
 * -g: the send receiver's loop with each receiving QP's messages counted
 * (q->mc->got, verbs/mcast.h), picked at setup in place of loop_bw_recv:
 * the plain loop pays nothing for it.  Every receiving QP gets every
 * message of every sending QP, so the whole expects iterations x QPs x QPs
 * (-n); UD multicast may drop, so the loop ends at that count, or at the
 * sender's DONE once what is still on its way has come (MC_QUIET_NS
 * without an arrival), or at --timeout without any: never a wait with no
 * deadline.  What each QP missed is worked out with the sender's count
 * after the rows are traded (report/figures.c).
 */
#include "engine/internal.h"

#include <math.h>

#include "verbs/mcast.h"

/* After the sender's DONE: the messages still in flight (rxe's queues,
 * the network) arrive within this without a gap. */
#define MC_QUIET_NS (50ull * 1000 * 1000)

static int mc_complete(struct rb_session *s, struct recv_state *r, const struct ibv_wc *wc, int n)
{
	uint64_t *got = s->conn.q.mc->got;

	r->last_ns = clock_now_ns();
	if (!r->first_ns)
		r->first_ns = r->probe_ns ? r->probe_ns : r->last_ns;
	for (int k = 0; k < n; k++) {
		int i = (int)wc[k].wr_id;
		int err;

		if (wc_check(s, &wc[k], "receive"))
			return -EIO;
		got[i]++;
		r->total++;
		s->run.recvs_outstanding--;
		err = recv_post(s, i);
		if (err)
			return err;
	}
	return 0;
}

static int mc_reap(struct rb_session *s, struct recv_state *r, struct watch *w)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, err;

	if (!r->first_ns)
		r->probe_ns = clock_now_ns();
	n = cq_poll(s, s->conn.q.recv_cq, wc, POLL_BATCH, true);
	if (n < 0)
		return check_post(-n, s, "ibv_poll_cq");
	if (n == 0) {
		err = watch_idle(w);
		return err == -ECANCELED ? 0 : err;
	}
	watch_progress(w, n);
	err = mc_complete(s, r, wc, n);
	return err ? err : *s->stop ? -EINTR : 0;
}

/* After the sender's DONE: until every message is in, or none came for
 * MC_QUIET_NS. */
static int mc_drain(struct rb_session *s, struct recv_state *r)
{
	struct ibv_wc wc[POLL_BATCH];
	uint64_t last = clock_now_ns();
	int err = 0;

	while (!err && r->total < r->target && clock_now_ns() - last < MC_QUIET_NS) {
		int n = ibv_poll_cq(s->conn.q.recv_cq, POLL_BATCH, wc);

		if (n < 0)
			return check_post(-n, s, "ibv_poll_cq");
		if (n > 0) {
			err = mc_complete(s, r, wc, n);
			last = clock_now_ns();
		}
	}
	return err;
}

static void mc_measure(struct rb_session *s, struct rb_measure *m, const struct recv_state *r,
		       const struct window *win)
{
	if (s->run.duration_ns) {
		measure_window(m, win, s->run.size);
		return;
	}
	m->start_ns = r->first_ns ? r->first_ns : win->t0;
	m->end_ns = r->last_ns;
	m->msgs = r->total;
	m->bytes = r->total * s->run.size;
	m->peak_bps = NAN;
	m->measured = true;
	measure_cpu(m, win);
}

int loop_bw_recv_mc(struct rb_session *s, struct rb_measure *m)
{
	uint64_t n = (uint64_t)s->conn.q.n;
	struct recv_state r = { .target = s->run.iters ? s->run.iters * n * n : UINT64_MAX };
	struct window win;
	struct watch w;
	struct ivl iv;
	int err = ivl_init(&iv, s);

	memset(s->conn.q.mc->got, 0, n * sizeof(*s->conn.q.mc->got));
	watch_init(&w, s, "receiving (multicast)");
	window_init(&win, s);
	r.last_ns = win.t0;
	while (!err && r.total < r.target && !s->run.peer_done) {
		bool first = !r.first_ns;

		err = mc_reap(s, &r, &w);
		if (first && r.first_ns)
			window_init_at(&win, s, r.first_ns);
		if (r.first_ns && (s->run.duration_ns || iv.every_ns)) {
			uint64_t now = clock_now_ns();

			if (s->run.duration_ns && win.phase < 2)
				window_tick_at(&win, s, now, r.total, 0);
			ivl_tick(&iv, s, &win, now, r.total, 0);
		}
	}
	if (!err && s->run.peer_done)
		err = mc_drain(s, &r);
	err = loop_end(err, m);
	window_close(&win, r.last_ns, r.total);
	ivl_finish(&iv, s, &win);
	ivl_free(&iv);
	mc_measure(s, m, &r, &win);
	return err;
}
