/*
 * Bandwidth, the posting side: post the bench's verb as fast as the queues
 * allow (postsched.h decides what and what to signal), reap completions in
 * batches; -b with sends also receives.
 */
#include "engine/internal.h"
#include "engine/ring.h"

#include <math.h>

#include "lib/log.h"
#include "lib/oob.h"

struct bw_state {
	struct psched sched;            /* what to post and signal (postsched.h) */
	struct psched_qp *c;
	uint64_t total;                 /* completed, all QPs */
	uint64_t ckpt_every, ckpt_next, ckpt_msgs, ckpt_ns;
	double peak_bps;
};

/* Post k WRs from first with the plan's signals: only the signalled WRs
 * (and a sig_last template's) differ from the template (psched_wr passes
 * over the others): set them, and put them back after the post. */
static int bw_post_planned(struct rb_session *s, struct post_set *p, struct psched_post *pl, int i,
			   struct ibv_send_wr *first)
{
	struct ibv_send_wr *bad;
	unsigned k = pl->k, nsig = 0;
	int err;

	if (p->sig_last) {
		first[p->list - 1].send_flags = p->base_flags;
		first[p->list - 1].wr_id = WR_ID(i, 0);
	}
	for (unsigned j = pl->next; j < k; j = pl->next) {
		uint32_t covers = psched_wr(pl, j);

		first[j].send_flags = p->base_flags | IBV_SEND_SIGNALED;
		first[j].wr_id = WR_ID(i, covers);
		p->sig[nsig++] = j;
	}
	first[k - 1].next = NULL;
	err = ibv_post_send(s->conn.q.qp[i], first, &bad);
	first[k - 1].next = k < p->list ? &first[k] : NULL;
	while (nsig--)
		bw_wr_template(p, i, &first[p->sig[nsig]], p->sig[nsig]);
	if (p->sig_last)
		bw_wr_template(p, i, &first[p->list - 1], p->list - 1);
	return err;
}

/* Post on QP i what the schedule allows now (a whole list, or the rest):
 * how many WRs went out (0: no room), or -errno.  v (--validate, a copy of
 * its own: no test per WR without it): each WR's payload first.  With a
 * ring the next list goes as it is where the schedule's plan is the
 * template's (psched_list_plain: no plan worked out), or where the plan
 * turns out to be; else the plan's signals are set for the post. */
static inline __attribute__((always_inline)) int
bw_post_batch_body(struct rb_session *s, struct post_set *p, const struct psched *ps, int i,
		   struct psched_qp *c, bool v)
{
	struct ibv_send_wr *first, *bad;
	struct psched_post pl;
	unsigned k;
	int err;

	if (psched_list_waits(ps, c))
		return 0;
	if (p->sig_last && psched_list_plain(ps, c)) {
		first = p->at[i];
		err = ibv_post_send(s->conn.q.qp[i], first, &bad);
		if (err)
			return check_post(err, s, "ibv_post_send");
		psched_commit_list(ps, c);
		bw_ring_step(p, i, first, p->list);
		return (int)p->list;
	}
	k = psched_plan(ps, c, &pl);
	if (k == 0)
		return 0;
	first = bw_list_at(p, i, c->posted);
	if (!first) {
		log_err("sending at size %llu: a post on QP %d began inside a list (operation %llu)",
			(unsigned long long)s->run.size, i, (unsigned long long)c->posted);
		return -EPROTO;
	}
	if (!p->fixed)
		bw_set_operands(s, p, i, first, k, c->posted, v);
	if (bw_plan_is_template(p, &pl))
		err = ibv_post_send(s->conn.q.qp[i], first, &bad);
	else
		err = bw_post_planned(s, p, &pl, i, first);
	if (err)
		return check_post(err, s, "ibv_post_send");
	psched_commit(c, &pl);
	if (p->fixed)
		bw_ring_step(p, i, first, k);
	return (int)k;
}

static int bw_post_batch(struct rb_session *s, struct post_set *p, const struct psched *ps, int i,
			 struct psched_qp *c, bool v)
{
	return v ? bw_post_batch_body(s, p, ps, i, c, true) : bw_post_batch_body(s, p, ps, i, c, false);
}

/*
 * --enable-test-delay builds with RB_TEST_DELAY_NS: every WR's post is made
 * slow (t_50's stalls), so a burst of -t of them would keep the loop from
 * its window and deadline checks for -t delays; one post per pass instead,
 * as the loop was before bursts.  Always false in other builds.
 */
static inline bool bw_one_at_a_time(const struct rb_session *s)
{
#ifdef RB_TEST_DELAY
	return s->test.delay_ns != 0;
#else
	(void)s;
	return false;
#endif
}

/*
 * -l 1, the message-rate case: WR after WR while QP i has room, without a
 * plan per post (psched_burst_*: the same rule).  Everything per WR that
 * does not change is worked out before the loop (the provider's post_send
 * is what ibv_post_send calls).  How many went out, or -errno.  v: as
 * bw_post_batch_body's.
 */
static inline __attribute__((always_inline)) int
bw_post_ones_body(struct rb_session *s, struct post_set *p, struct bw_state *b, int i, bool v)
{
	struct ibv_send_wr *wr = &p->wr[i], *bad;
	struct ibv_qp *qp = s->conn.q.qp[i];
	int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **) =
		qp->context->ops.post_send;
	struct wr_cycle cy = wr_cycle_init(s, p, i);
	struct psched_burst r;
	uint64_t first;
	int err = 0;

	psched_burst_start(&b->sched, &b->c[i], &r);
	if (bw_one_at_a_time(s) && r.limit > r.posted + 1)
		r.limit = r.posted + 1;
	first = r.posted;
	while (psched_burst_fits(&r)) {
		uint32_t covers = psched_burst_covers(&r);

		wr->send_flags = covers ? p->base_flags | IBV_SEND_SIGNALED : p->base_flags;
		wr->wr_id = WR_ID(i, covers);
		wr_cycle_set(&cy, wr, r.posted);
		if (v)
			wr_stamp(s, i, wr, r.posted);
		test_delay(s);
		err = post_send(qp, wr, &bad);
		if (err)
			break;
		psched_burst_commit(&r, covers);
	}
	psched_burst_end(&r, &b->c[i]);
	return err ? check_post(err, s, "ibv_post_send") : (int)(r.posted - first);
}

static int bw_post_ones(struct rb_session *s, struct post_set *p, struct bw_state *b, int i, bool v)
{
	return v ? bw_post_ones_body(s, p, b, i, true) : bw_post_ones_body(s, p, b, i, false);
}

/*
 * Fill every QP's send queue, as far as the schedule allows, before looking
 * at the CQ: at high rates one poll then finds a signalled completion
 * instead of an empty CQ per message, and the checks that go with a poll
 * (idle, deadline, SIGINT) are paid once per -Q messages, not once per
 * message.  A burst is bounded by -t per QP.
 */
/* Every QP's lists while each has room (bw_post_all), v a constant. */
static inline __attribute__((always_inline)) int
bw_post_lists(struct rb_session *s, struct post_set *p, struct bw_state *b, bool v)
{
	int n = 0;

	for (int i = 0; i < s->conn.q.n && n >= 0; i++)
		while ((n = bw_post_batch_body(s, p, &b->sched, i, &b->c[i], v)) > 0 &&
		       !bw_one_at_a_time(s))
			;
	return n;
}

static int bw_post_all(struct rb_session *s, struct post_set *p, struct bw_state *b)
{
	bool v = p->stamp;
	int n = 0;

	if (p->list > 1)
		n = v ? bw_post_lists(s, p, b, true) : bw_post_lists(s, p, b, false);
	else
		for (int i = 0; i < s->conn.q.n && n >= 0; i++)
			n = bw_post_ones(s, p, b, i, v);
	return n < 0 ? n : 0;
}

/* -b with sends: one post per QP between looks at both CQs, so that the
 * receives are re-posted while the sends go out. */
static int bw_post_each(struct rb_session *s, struct post_set *p, struct bw_state *b)
{
	bool v = p->stamp;
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
	if (b->ckpt_every && b->total >= b->ckpt_next)
		bw_checkpoint(s, b);
	return *s->stop ? -EINTR : 0;    /* SIGINT while traffic still flows */
}

static int bw_reap(struct rb_session *s, struct bw_state *b, struct watch *w, bool may_sleep,
		   bool check)
{
	return check ? bw_reap_body(s, b, w, may_sleep, true) : bw_reap_body(s, b, w, may_sleep, false);
}

static bool bw_all_done(const struct rb_session *s, const struct bw_state *b)
{
	for (int i = 0; i < s->conn.q.n; i++)
		if (!psched_done(&b->c[i]))
			return false;
	return true;
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
	b->peak_bps = NAN;
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

int loop_bw_post(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct bw_state b;
	struct window win;
	struct watch w;
	struct ivl iv;
	bool check = s->conn.q.tx_ring && (s->bench->verb == VERB_READ || s->bench->verb == VERB_ATOMIC);
	int err = post_set_init(&p, s, s->opt->post_list);

	if (!err)
		err = bw_state_init(&b, s);
	if (!err && (err = ivl_init(&iv, s)))
		free(b.c);
	if (err) {
		post_set_free(&p);
		return err;
	}
	test_start_delay(s);
	watch_init(&w, s, "sending");
	window_init(&win, s);
	b.ckpt_ns = win.t0;
	while (!err && !bw_all_done(s, &b)) {
		err = bw_post_all(s, &p, &b);
		if (!err)
			err = check ? bw_reap_body(s, &b, &w, true, true) :
				      bw_reap_body(s, &b, &w, true, false);
		if (s->run.duration_ns || iv.every_ns)
			bw_tick(s, &b, &win, &iv, 0);
	}
	for (int i = 0; i < s->conn.q.n && !err && !check; i++)
		err = atomic_check_all(s, i, b.c[i].posted);
	err = loop_end(err, m);
	bw_close(s, &win, &iv, clock_now_ns(), b.total, 0);
	if (s->run.duration_ns) {
		measure_window(m, &win, s->run.size);
	} else {
		m->start_ns = win.t0;
		m->end_ns = win.end_ns;
		m->msgs = b.total;
		m->bytes = b.total * s->run.size;
		m->peak_bps = b.peak_bps;
		m->measured = true;
		measure_cpu(m, &win);
	}
	bw_record_posts(s, &b, m);
	free(b.c);
	post_set_free(&p);
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
	int err = post_set_init(&p, s, s->opt->post_list);

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
	while (!err && (!bw_all_done(s, &b) || (r.total < r.target && !s->run.peer_done))) {
		err = bw_post_each(s, &p, &b);
		if (!err)
			err = bw_reap(s, &b, &w, false, false);
		if (err == -ECANCELED)
			err = 0;
		if (!err && !tx_end_ns && bw_all_done(s, &b))
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
