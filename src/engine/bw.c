/*
 * Bandwidth, the posting side: post the bench's verb as fast as the queues
 * allow (postsched.h decides what and what to signal), reap completions in
 * batches; -b with sends also receives.
 */
#include "engine/bwpace.h"
#include "engine/bwpost.h"

#include <math.h>

#include "lib/oob.h"

struct bw_state {
	struct psched sched;            /* what to post and signal (postsched.h) */
	struct psched_qp *c;
	uint64_t total;                 /* completed, all QPs */
	uint64_t target;                /* all QPs' targets (bw_all_done) */
	uint64_t ckpt_every, ckpt_msgs, ckpt_ns;
	uint64_t ckpt_next;             /* UINT64_MAX: no checkpoints */
	double peak_bps;
};

/* What a pass of the loop posts (bwpost.h), chosen once per run. */
enum bw_mode { BW_RING, BW_LISTS, BW_LISTS_V, BW_ONES_RING, BW_ONES, BW_ONES_V };

static enum bw_mode bw_mode_of(const struct rb_session *s, const struct post_set *p)
{
	bool v = s->conn.q.tx_ring != 0;    /* --validate: never with a ring */

	if (p->list > 1)
		return p->sig_last ? BW_RING : v ? BW_LISTS_V : BW_LISTS;
	return p->fixed ? BW_ONES_RING : v ? BW_ONES_V : BW_ONES;
}

/*
 * Fill every QP's send queue, as far as the schedule allows, before looking
 * at the CQ: at high rates one poll then finds a signalled completion
 * instead of an empty CQ per message, and the checks that go with a poll
 * (idle, deadline, SIGINT) are paid once per -Q messages, not once per
 * message.  A burst is bounded by -t per QP.  mode: a constant.
 */
static inline __attribute__((always_inline)) int
bw_post_all(struct rb_session *s, struct post_set *p, struct bw_state *b, enum bw_mode mode)
{
	for (int i = 0; i < s->conn.q.n; i++) {
		const struct psched *ps = &b->sched;
		struct psched_qp *c = &b->c[i];
		int err;

		switch (mode) {
		case BW_RING: err = bw_post_ring(s, p, ps, i, c); break;
		case BW_LISTS: err = bw_post_lists_qp(s, p, ps, i, c, false); break;
		case BW_LISTS_V: err = bw_post_lists_qp(s, p, ps, i, c, true); break;
		case BW_ONES_RING: err = bw_post_ones_body(s, p, ps, i, c, false, true); break;
		case BW_ONES: err = bw_post_ones_body(s, p, ps, i, c, false, false); break;
		default: err = bw_post_ones_body(s, p, ps, i, c, true, false); break;
		}
		if (err)
			return err;
	}
	return 0;
}

/* -b with sends: one post per QP between looks at both CQs, so that the
 * receives are re-posted while the sends go out. */
static int bw_post_each(struct rb_session *s, struct post_set *p, struct bw_state *b)
{
	bool v = s->conn.q.tx_ring != 0;
	int n = 0;

	for (int i = 0; i < s->conn.q.n && n >= 0; i++)
		n = bw_post_batch(s, p, &b->sched, i, &b->c[i], v);
	return n < 0 ? n : 0;
}

static void bw_checkpoint(struct rb_session *s, struct bw_state *b)
{
	uint64_t now = clock_now_ns();
	double bps = (double)(b->total - b->ckpt_msgs) * (double)s->run.size * 1e9 /
		     (double)(now - b->ckpt_ns ? now - b->ckpt_ns : 1);

	if (!(bps <= b->peak_bps))	/* also replaces NaN, "not measured" */
		b->peak_bps = bps;
	b->ckpt_msgs = b->total;
	b->ckpt_ns = now;
	b->ckpt_next = b->total + b->ckpt_every;
}

/* Could bw_post_batch post on some QP now? */
static bool bw_can_post(const struct rb_session *s, const struct bw_state *b)
{
	for (int i = 0; i < s->conn.q.n; i++)
		if (psched_can_post(&b->sched, &b->c[i]))
			return true;
	return false;
}

/* bw_reap's body; with check (--validate's reads and atomics, a separate
 * copy of the loop: the branch is taken once per pass, not per
 * completion), each completed read's payload or atomic's result is
 * checked. */
static inline __attribute__((always_inline)) int
bw_reap_body(struct rb_session *s, struct bw_state *b, struct watch *w, bool may_sleep, bool check)
{
	struct ibv_wc wc[POLL_BATCH];
	int n = cq_poll(s, s->conn.q.send_cq, wc, POLL_BATCH, may_sleep);
	uint32_t msgs = 0;

	if (n < 0)
		return check_post(-n, s, "ibv_poll_cq");
	if (n == 0)
		return watch_idle(w);
	for (int k = 0; k < n; k++) {
		struct psched_qp *c = &b->c[WR_QP(wc[k].wr_id)];

		if (wc_check(s, &wc[k], verb_name(s->bench->verb)))
			return -EIO;
		if (check)
			validate_done(s, WR_QP(wc[k].wr_id), c->completed, WR_COUNT(wc[k].wr_id));
		c->completed += WR_COUNT(wc[k].wr_id);
		msgs += WR_COUNT(wc[k].wr_id);
	}
	b->total += msgs;
	watch_progress(w, (int)msgs);
	if (b->total >= b->ckpt_next)
		bw_checkpoint(s, b);
	return *s->stop ? -EINTR : 0;    /* SIGINT while traffic still flows */
}

static int bw_reap(struct rb_session *s, struct bw_state *b, struct watch *w, bool may_sleep,
		   bool check)
{
	return check ? bw_reap_body(s, b, w, may_sleep, true) : bw_reap_body(s, b, w, may_sleep, false);
}

/* The QPs' targets added up (UINT64_MAX where one is: until stopped). */
static void bw_sum_targets(struct bw_state *b, int n)
{
	b->target = 0;
	for (int i = 0; i < n; i++)
		if (__builtin_add_overflow(b->target, b->c[i].target, &b->target)) {
			b->target = UINT64_MAX;
			return;
		}
}

/* Every QP psched_done: no QP completes more than its target (it posts
 * no more), so the total reaches the targets' sum only then. */
static inline bool bw_all_done(const struct bw_state *b)
{
	return b->total >= b->target;
}

/* What this side posted, and how many of those were signalled. */
static void bw_record_posts(const struct rb_session *s, const struct bw_state *b, struct rb_measure *m)
{
	m->wrs_posted = m->wrs_signaled = 0;
	for (int i = 0; i < s->conn.q.n; i++) {
		m->wrs_posted += b->c[i].posted;
		m->wrs_signaled += b->c[i].signals;
	}
}

/* Duration mode: each QP ends with a signalled WR (psched_stop). */
static void bw_stop_posting(struct rb_session *s, struct bw_state *b)
{
	for (int i = 0; i < s->conn.q.n; i++)
		psched_stop(&b->c[i]);
	bw_sum_targets(b, s->conn.q.n);
}

static int bw_state_init(struct bw_state *b, const struct rb_session *s)
{
	uint64_t target = s->run.iters ? s->run.iters : UINT64_MAX;

	memset(b, 0, sizeof(*b));
	b->c = calloc((size_t)s->conn.q.n, sizeof(*b->c));
	if (!b->c)
		return -ENOMEM;
	psched_init(&b->sched, s->opt->tx_depth, s->opt->post_list, s->run.cq_mod);
	for (int i = 0; i < s->conn.q.n; i++)
		psched_qp_init(&b->c[i], target);
	bw_sum_targets(b, s->conn.q.n);
	b->peak_bps = NAN;
	b->ckpt_next = UINT64_MAX;
	/* The peak needs a checkpoint (1/64 of the run, at least cq_mod messages)
	 * to pass; -b reports none: each side sees only its own half. */
	if (s->run.iters && !s->opt->bidir) {
		uint64_t total = s->run.iters * (uint64_t)s->conn.q.n;

		b->ckpt_every = total / 64 > s->run.cq_mod ? total / 64 : s->run.cq_mod;
		b->ckpt_next = b->ckpt_every;
	}
	return 0;
}

/* Once per pass of the outer loop, with -D or --interval: one clock read
 * for the window and the intervals. */
static void bw_tick(struct rb_session *s, struct bw_state *b, struct window *win, struct ivl *iv,
		    uint64_t rx)
{
	uint64_t now = clock_now_ns();

	/* a halted link (rb_mpi's load) ends as its window would: the last
	 * WRs complete, the window closes at the loop's end */
	if (s->run.duration_ns && win->phase < 2 &&
	    (window_tick_at(win, s, now, b->total, rx) || session_halted(s)))
		bw_stop_posting(s, b);
	ivl_tick(iv, s, win, now, b->total, rx);
}

/* The loop's end: the window closes at end_ns (-n: from loop entry), the
 * last interval with it. */
static void bw_close(struct rb_session *s, struct window *win, struct ivl *iv, uint64_t end_ns,
		     uint64_t msgs, uint64_t rx)
{
	if (s->run.duration_ns && win->phase < 2)
		window_tick_rx(win, s, msgs, rx);
	window_close_rx(win, end_ns, msgs, rx);
	ivl_finish(iv, s, win);
	ivl_free(iv);
}

/* loop_bw_post's state, for the copies of its loop. */
struct bw_run {
	struct rb_session *s;
	struct post_set p;
	struct bw_state b;
	struct window win;
	struct watch w;
	struct ivl iv;
	struct bw_pace pace;            /* --rate_limit=SW (bwpace.h) */
};

/* The posting loop, with mode and check constants (bw_run_loop makes a
 * copy for each): a pass asks nothing that was known before the loop. */
static inline __attribute__((always_inline)) int
bw_loop(struct bw_run *r, enum bw_mode mode, bool check)
{
	struct rb_session *s = r->s;
	bool timed = s->run.duration_ns || r->iv.every_ns;
	int err = 0;

	while (!err && !bw_all_done(&r->b)) {
		err = bw_post_all(s, &r->p, &r->b, mode);
		if (!err)
			err = bw_reap_body(s, &r->b, &r->w, true, check);
		if (timed)
			bw_tick(s, &r->b, &r->win, &r->iv, 0);
	}
	return err;
}

/*
 * --rate_limit=SW: bw_loop with the pace (bwpace.h); mode and check as
 * they come (a paced pass waits for its deadline: a test per pass is
 * nothing to it).  The clock is read every pass: burst k is granted once
 * due, -D's window and --interval ticked.
 */
static int bw_loop_paced(struct bw_run *r, enum bw_mode mode, bool check)
{
	struct rb_session *s = r->s;
	struct bw_pace *pc = &r->pace;
	int err = 0;

	bw_pace_init(pc, s, r->b.c);
	while (!err && !bw_all_done(&r->b)) {
		if (pc->granting && clock_now_ns() >= pace_due(&pc->due, pc->k))
			bw_pace_grant(pc, r->b.c, s->conn.q.n);
		err = bw_post_all(s, &r->p, &r->b, mode);
		if (!err)
			err = bw_reap(s, &r->b, &r->w, false, check);
		bw_tick(s, &r->b, &r->win, &r->iv, 0);
		if (s->run.duration_ns && (r->win.phase >= 2 || session_halted(s)))
			pc->granting = false;
		if (!err && pc->granting && r->b.total == pc->granted)
			bw_pace_wait(pc, &r->w);
	}
	return err;
}

/* check (--validate's reads and atomics) comes with a V mode alone. */
static int bw_run_loop(struct bw_run *r, bool check)
{
	if (r->s->opt->rate_limit > 0 && r->s->opt->rate_type == RT_SW)
		return bw_loop_paced(r, bw_mode_of(r->s, &r->p), check);
	switch (bw_mode_of(r->s, &r->p)) {
	case BW_RING: return bw_loop(r, BW_RING, false);
	case BW_LISTS: return bw_loop(r, BW_LISTS, false);
	case BW_LISTS_V: return check ? bw_loop(r, BW_LISTS_V, true) : bw_loop(r, BW_LISTS_V, false);
	case BW_ONES_RING: return bw_loop(r, BW_ONES_RING, false);
	case BW_ONES: return bw_loop(r, BW_ONES, false);
	default: return check ? bw_loop(r, BW_ONES_V, true) : bw_loop(r, BW_ONES_V, false);
	}
}

/* -n's figures: from loop entry to the last completion. */
static void measure_iters(struct rb_measure *m, const struct rb_session *s, const struct bw_run *r)
{
	m->start_ns = r->win.t0;
	m->end_ns = r->win.end_ns;
	m->msgs = r->b.total;
	m->bytes = r->b.total * s->run.size;
	m->peak_bps = r->b.peak_bps;
	m->measured = true;
	measure_cpu(m, &r->win);
}

int loop_bw_post(struct rb_session *s, struct rb_measure *m)
{
	struct bw_run r = { .s = s };
	bool check = s->conn.q.tx_ring && (s->bench->verb == VERB_READ || s->bench->verb == VERB_ATOMIC);
	int err = post_set_init(&r.p, s, s->opt->post_list, true);

	if (!err)
		err = bw_state_init(&r.b, s);
	if (!err && (err = ivl_init(&r.iv, s)))
		free(r.b.c);
	if (err) {
		post_set_free(&r.p);
		return err;
	}
	test_start_delay(s);
	watch_init(&r.w, s, "sending");
	window_init(&r.win, s);
	r.b.ckpt_ns = r.win.t0;
	err = bw_run_loop(&r, check);
	for (int i = 0; i < s->conn.q.n && !err && !check; i++)
		err = atomic_check_all(s, i, r.b.c[i].posted);
	err = loop_end(err, m);
	bw_close(s, &r.win, &r.iv, clock_now_ns(), r.b.total, 0);
	if (s->run.duration_ns)
		measure_window(m, &r.win, s->run.size);
	else
		measure_iters(m, s, &r);
	bw_record_posts(s, &r.b, m);
	free(r.b.c);
	post_set_free(&r.p);
	return err;
}

/* -b with sends: what this side received, beside what it sent. */
static void measure_rx(struct rb_measure *m, const struct rb_session *s,
		       const struct window *win, const struct recv_state *r)
{
	m->rx_measured = true;
	if (s->run.duration_ns) {
		m->rx_msgs = win->end_rx - win->begin_rx;
		m->rx_start_ns = win->begin_ns;
		m->rx_end_ns = win->end_ns;
		return;
	}
	m->rx_msgs = r->total;
	m->rx_start_ns = r->first_ns ? r->first_ns : win->t0;
	m->rx_end_ns = r->last_ns;
}

/* The sends' row: from loop entry to the last send completion. */
static void measure_tx(struct rb_measure *m, const struct rb_session *s, const struct window *win,
		       const struct bw_state *b, uint64_t tx_end_ns)
{
	if (s->run.duration_ns) {
		measure_window(m, win, s->run.size);
		return;
	}
	m->start_ns = win->t0;
	m->end_ns = tx_end_ns ? tx_end_ns : clock_now_ns();
	m->msgs = b->total;
	m->bytes = b->total * s->run.size;
	m->peak_bps = NAN;
	m->measured = true;
	measure_cpu(m, win);
}

/*
 * -b with sends: this side's sends are all done.  It says DONE at once and
 * goes on receiving until the peer's DONE (or all of -n): each side waiting
 * for the other's DONE after its loop would wait for ever where the
 * receives have no known end (-D, or UC dropping some).
 */
static int bidir_sent(struct rb_session *s, uint64_t *tx_end_ns)
{
	int err;

	*tx_end_ns = clock_now_ns();
	err = oob_chan_send(s->conn.chan, WIRE_DONE, NULL, 0, 1000);
	if (err)
		log_err("sending and receiving at size %llu: telling the peer this side is done failed (the peer is gone?)",
			(unsigned long long)s->run.size);
	s->run.done_sent = !err;
	return err;
}

int loop_bw_send_bidir(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct bw_state b;
	struct recv_state r = { .target = s->run.iters ? s->run.iters * (uint64_t)s->conn.q.n : UINT64_MAX };
	struct window win;
	struct watch w;
	struct ivl iv;
	uint64_t tx_end_ns = 0;
	int err = post_set_init(&p, s, s->opt->post_list, true);

	if (!err)
		err = bw_state_init(&b, s);
	if (!err && (err = ivl_init(&iv, s)))
		free(b.c);
	if (err) {
		post_set_free(&p);
		return err;
	}
	watch_init(&w, s, "sending and receiving");
	window_init(&win, s);
	r.last_ns = win.t0;
	while (!err && (!bw_all_done(&b) || (r.total < r.target && !s->run.peer_done))) {
		err = bw_post_each(s, &p, &b);
		if (!err)
			err = bw_reap(s, &b, &w, false, false);
		if (err == -ECANCELED)
			err = 0;
		if (!err && !tx_end_ns && bw_all_done(&b))
			err = bidir_sent(s, &tx_end_ns);
		if (!err)
			err = recv_reap(s, &r, &w, !bw_can_post(s, &b));
		if (s->run.duration_ns || iv.every_ns)
			bw_tick(s, &b, &win, &iv, r.total);
	}
	if (!err && s->run.peer_done)
		err = recv_drain(s, &r);
	err = loop_end(err, m);
	bw_close(s, &win, &iv, clock_now_ns(), b.total, r.total);
	measure_tx(m, s, &win, &b, tx_end_ns);
	measure_rx(m, s, &win, &r);
	bw_record_posts(s, &b, m);
	free(b.c);
	post_set_free(&p);
	return err;
}
