#include "loops.h"

#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "explain.h"
#include "log.h"
#include "oob.h"
#include "postsched.h"

#define POLL_BATCH 16
#define IDLE_CHECK_MASK 1023u
#define IDLE_YIELD_MASK 63u     /* a side sharing its one CPU yields this often */
#define BUSY_CHECK_BYTES (1u << 20)
#define BUSY_MSG_WEIGHT 4096u
#define WR_ID(qp, n) (((uint64_t)(qp) << 32) | (uint32_t)(n))
#define WR_QP(id) ((int)((id) >> 32))
#define WR_COUNT(id) ((uint32_t)(id))

/* Watching for a stalled queue, a lost peer and SIGINT without reading the
 * clock on every poll. */
struct watch {
	struct rb_session *s;
	const char *what;
	uint64_t last_ns;
	unsigned idle;
	uint64_t busy;              /* weighted completions since the last heartbeat check */
	bool progressed;
};

static void heartbeat(struct rb_session *s, uint64_t now);

static void watch_init(struct watch *w, struct rb_session *s, const char *what)
{
	*w = (struct watch){ .s = s, .what = what, .last_ns = clock_now_ns() };
	heartbeat(s, w->last_ns);
}

/* n completions reset the idle count.  A side that never idles (a streaming
 * bandwidth client) still sends its heartbeat: the clock is read about once
 * per MiB moved (or 256 small messages), however large the messages are. */
static inline void watch_progress(struct watch *w, int n)
{
	w->progressed = true;
	w->idle = 0;
	w->busy += (uint64_t)n * (w->s->size + BUSY_MSG_WEIGHT);
	if (w->busy >= BUSY_CHECK_BYTES) {
		w->busy = 0;
		heartbeat(w->s, clock_now_ns());
	}
}

/* The peer sent DONE (1), nothing yet (0), or the channel failed (-errno). */
static int peer_done(struct rb_session *s)
{
	uint8_t buf[64];
	uint32_t len;
	uint16_t type;

	if (s->peer_done)
		return 1;
	if (oob_chan_wait(s->chan, 0) <= 0)
		return 0;
	if (oob_chan_recv(s->chan, &type, buf, sizeof(buf), &len, 1000))
		return -ECONNRESET;
	/* a READY during a measurement is the active peer's heartbeat */
	if (type == WIRE_READY) {
		s->heartbeat_ns = clock_now_ns();
		return 0;
	}
	if (type != WIRE_DONE) {
		log_err("OOB: expected DONE from the peer, got %s", wire_type_name(type));
		return -EPROTO;
	}
	s->peer_done = true;
	return 1;
}

/*
 * A side whose peer only serves its memory (write, read and atomic targets)
 * tells it once a second that it is alive, so a stalled client (SIGSTOP, a
 * hung host) is told apart from a long run.  The first one goes out with the
 * loop's first look (heartbeat_ns starts at 0 for each size).
 */
static void heartbeat(struct rb_session *s, uint64_t now)
{
	if (!s->is_client || s->bench->server != loop_passive || s->opt->bidir ||
	    (s->heartbeat_ns && now - s->heartbeat_ns < NSEC_PER_SEC))
		return;
	s->heartbeat_ns = now;
	oob_chan_send(s->chan, WIRE_READY, NULL, 0, 1000);
}

static int watch_idle(struct watch *w)
{
	uint64_t now;

	if (rb_stop)
		return -EINTR;
	if (w->s->peer_done)
		return -ECANCELED;
	if ((++w->idle & IDLE_CHECK_MASK) && !w->s->q.chan) {
		/* Two busy-polling sides on one CPU take turns at the tick (4 ms)
		 * unless the idle one steps aside: 8 ms ping-pongs otherwise. */
		if (w->s->place.shares_cpu && !(w->idle & IDLE_YIELD_MASK))
			sched_yield();
		return 0;
	}
	switch (peer_done(w->s)) {
	case 0: break;
	/* DONE can overtake a completion (or a write) that landed after the
	 * caller's last look: it looks once more before ending (-ECANCELED). */
	case 1: return 0;
	default:
		log_err("%s at size %llu: the peer is gone (it failed or was killed)", w->what,
			(unsigned long long)w->s->size);
		return -ECONNRESET;
	}
	now = clock_now_ns();
	heartbeat(w->s, now);
	if (w->progressed) {
		w->progressed = false;
		w->last_ns = now;
		return 0;
	}
	if (now - w->last_ns > (uint64_t)(w->s->opt->timeout_s * 1e9)) {
		log_err("%s: nothing completed for %.1f s at size %llu (peer gone or stalled; --timeout sets the limit)",
			w->what, (double)(now - w->last_ns) / 1e9, (unsigned long long)w->s->size);
		return -ETIMEDOUT;
	}
	return 0;
}

/* SIGINT, or the peer stopping first, ends a loop with what it measured. */
static int loop_end(int err, struct rb_measure *m)
{
	if (err != -EINTR && err != -ECANCELED)
		return err;
	m->partial = true;
	return 0;
}

static void busy_wait(uint64_t ns)
{
	uint64_t until = clock_now_ns() + ns;

	while (ns && clock_now_ns() < until)
		;
}

static void test_delay(const struct rb_session *s)
{
#ifdef RB_TEST_DELAY
	busy_wait(s->test_delay_ns);
#else
	(void)s;
#endif
}

/* A posting side that leaves the start barrier late (t_24: the receiver's
 * window must not include the wait). */
static void test_start_delay(const struct rb_session *s)
{
#ifdef RB_TEST_DELAY
	busy_wait(s->test_start_delay_ns);
#else
	(void)s;
	(void)busy_wait;
#endif
}

/*
 * Poll a CQ; with -e and may_sleep, sleep on the completion channel (100 ms
 * at most).  A loop that could still post must not sleep: the next
 * completion may be cq_mod posts away.  With -b one loop waits for sends
 * and receives: both CQs are armed (they share the channel).
 */
static int cq_poll(struct rb_session *s, struct ibv_cq *cq, struct ibv_wc *wc, int max,
		   bool may_sleep)
{
	struct ibv_comp_channel *chan = s->q.chan;
	struct pollfd p;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n = ibv_poll_cq(cq, max, wc);

	if (n || !chan || !may_sleep)
		return n;
	if (ibv_req_notify_cq(cq, 0))
		return -EIO;
	if (s->opt->bidir && ibv_req_notify_cq(cq == s->q.send_cq ? s->q.recv_cq : s->q.send_cq, 0))
		return -EIO;
	n = ibv_poll_cq(cq, max, wc);
	if (n)
		return n;
	p = (struct pollfd){ .fd = chan->fd, .events = POLLIN };
	if (poll(&p, 1, 100) <= 0)
		return 0;
	if (ibv_get_cq_event(chan, &ev_cq, &ev_ctx) == 0)
		ibv_ack_cq_events(ev_cq, 1);
	return ibv_poll_cq(cq, max, wc);
}

static const char *verb_name(enum rb_verb v)
{
	switch (v) {
	case VERB_SEND: return "send";
	case VERB_WRITE: return "RDMA write";
	case VERB_READ: return "RDMA read";
	case VERB_ATOMIC: return "atomic";
	}
	return "?";
}

static int wc_check(const struct rb_session *s, const struct ibv_wc *wc, const char *what)
{
	if (wc->status == IBV_WC_SUCCESS)
		return 0;
	const struct explain *e = explain_wc(wc->status);

	log_err("%s completion error on QPN 0x%06x at size %llu: %s (%d): likely %s; check %s", what,
		wc->qp_num, (unsigned long long)s->size, e->name, wc->status, e->causes, e->check);
	return -EIO;
}

static int check_post(int err, const struct rb_session *s, const char *call)
{
	if (err)
		log_err("%s failed at size %llu: %s", call, (unsigned long long)s->size, strerror(err));
	return -err;
}

/* ---- work request templates ---- */

struct post_set {
	struct ibv_send_wr *wr;     /* n QPs x post_list, chained per QP */
	struct ibv_sge *sge;
	unsigned list;
	unsigned base_flags;
	/* Where the k-th WR of a QP lands (loop_addr_slots), worked out once a
	 * size so that the hot path has no division: slot_mask is slots - 1
	 * when that is a power of two (atomics, sizes up to 64 B), else 0. */
	uint64_t slots, stride, slot_mask;
	bool cas;                   /* compare-and-swap operands per WR */
};

static enum ibv_wr_opcode verb_opcode(const struct rb_session *s)
{
	switch (s->bench->verb) {
	case VERB_WRITE: return IBV_WR_RDMA_WRITE;
	case VERB_READ: return IBV_WR_RDMA_READ;
	case VERB_ATOMIC:
		return s->opt->atomic_op == ATOMIC_CMP_SWAP ? IBV_WR_ATOMIC_CMP_AND_SWP
							    : IBV_WR_ATOMIC_FETCH_AND_ADD;
	case VERB_SEND: break;
	}
	return IBV_WR_SEND;
}

static void post_fill(const struct rb_session *s, int i, struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct rb_qps *q = &s->q;

	sge->addr = (uintptr_t)qps_send_area(q, i);
	sge->length = s->bench->verb == VERB_ATOMIC ? 8 : (uint32_t)s->size;
	sge->lkey = q->mr->lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = verb_opcode(s);
	if (q->tr == TR_UD) {
		wr->wr.ud.ah = q->ah[i];
		wr->wr.ud.remote_qpn = q->remote[i].qpn;
		wr->wr.ud.remote_qkey = RB_UD_QKEY;
	} else if (s->bench->verb == VERB_ATOMIC) {
		wr->wr.atomic.remote_addr = qps_remote_addr(q, i);
		wr->wr.atomic.rkey = q->remote[i].rkey;
		wr->wr.atomic.compare_add = 1;
		wr->wr.atomic.swap = 0;
	} else {
		wr->wr.rdma.remote_addr = qps_remote_addr(q, i);
		wr->wr.rdma.rkey = q->remote[i].rkey;
	}
}

static int post_set_init(struct post_set *p, const struct rb_session *s, unsigned list)
{
	size_t n = (size_t)s->q.n * list;
	bool can_inline = s->bench->verb == VERB_SEND || s->bench->verb == VERB_WRITE;

	p->list = list;
	p->wr = calloc(n, sizeof(*p->wr));
	p->sge = calloc(n, sizeof(*p->sge));
	if (!p->wr || !p->sge)
		return -ENOMEM;
	p->base_flags = can_inline && s->size <= s->q.max_inline ? IBV_SEND_INLINE : 0;
	p->slots = loop_addr_slots(s);
	p->stride = loop_addr_stride(s);
	p->slot_mask = (p->slots & (p->slots - 1)) ? 0 : p->slots - 1;
	p->cas = s->bench->verb == VERB_ATOMIC && s->opt->atomic_op == ATOMIC_CMP_SWAP;
	for (int i = 0; i < s->q.n; i++)
		for (unsigned j = 0; j < list; j++) {
			size_t k = (size_t)i * list + j;

			post_fill(s, i, &p->wr[k], &p->sge[k]);
			p->wr[k].next = j + 1 < list ? &p->wr[k + 1] : NULL;
		}
	return 0;
}

static void post_set_free(struct post_set *p)
{
	free(p->wr);
	free(p->sge);
}

/*
 * Addresses, as perftest (perftest_resources.h increase_loc_addr /
 * increase_rem_addr): the k-th operation of a QP (from 0) uses offset
 * (k mod slots) x stride in its local area and in the peer's, the stride
 * being the size rounded up to a cache line (perftest's INC()), the slots
 * those that fit RB_CYCLE_BYTES (perftest's cycle_buffer, a page).  Sizes
 * above half of it, and latency tests, use one address.  Atomics: 64 slots
 * a cache line apart (one with --atomic-same-address), latency too.
 */
uint64_t loop_addr_stride(const struct rb_session *s)
{
	if (s->bench->verb == VERB_ATOMIC || s->size <= RB_LINE_BYTES)
		return RB_LINE_BYTES;
	return (s->size + RB_LINE_BYTES - 1) / RB_LINE_BYTES * RB_LINE_BYTES;
}

uint64_t loop_addr_slots(const struct rb_session *s)
{
	if (s->bench->verb == VERB_ATOMIC)
		return s->opt->atomic_same_address ? 1 : RB_CYCLE_BYTES / RB_LINE_BYTES;
	if (s->bench->metric == METRIC_LAT || s->size > RB_CYCLE_BYTES / 2)
		return 1;
	return RB_CYCLE_BYTES / loop_addr_stride(s);
}

/*
 * Operands of the k-th WR of a QP: its addresses (above) and, for atomics,
 * its values.  Atomics check themselves: every slot of the peer's target
 * starts at 0 (loop_prepare), so operation k finds k / slots in its slot:
 * fetch-and-add adds 1; compare-and-swap compares with k / slots and swaps
 * in one more, so every one of them swaps.  Either returns what it found
 * into slot k mod slots of the sender's area.
 */
static inline void wr_operands(const struct rb_session *s, const struct post_set *p, int i,
			       struct ibv_send_wr *wr, uint64_t k)
{
	uint64_t off;

	if (p->cas) {
		wr->wr.atomic.compare_add = k / p->slots;
		wr->wr.atomic.swap = k / p->slots + 1;
	}
	if (p->slots == 1)
		return;
	off = (p->slot_mask ? k & p->slot_mask : k % p->slots) * p->stride;
	wr->sg_list->addr = (uintptr_t)qps_send_area(&s->q, i) + off;
	if (s->bench->verb == VERB_ATOMIC)
		wr->wr.atomic.remote_addr = qps_remote_addr(&s->q, i) + off;
	else if (s->bench->verb != VERB_SEND)
		wr->wr.rdma.remote_addr = qps_remote_addr(&s->q, i) + off;
}

/* What the k-th operation on QP i returned (the last one to land in its
 * slot). */
static int atomic_check(const struct rb_session *s, int i, uint64_t k)
{
	uint64_t slots = loop_addr_slots(s), want = k / slots, got;

	if (s->bench->verb != VERB_ATOMIC)
		return 0;
	memcpy(&got, qps_send_area(&s->q, i) + k % slots * RB_LINE_BYTES, sizeof(got));
	if (got == want)
		return 0;
	log_err("%s at size %llu: operation %llu on QP %d found %llu in its target word (slot %llu of %llu), not %llu (another writer, or the device's atomics are not atomic)",
		options_atomic_name(s->opt->atomic_op), (unsigned long long)s->size,
		(unsigned long long)k, i, (unsigned long long)got,
		(unsigned long long)(k % slots), (unsigned long long)slots, (unsigned long long)want);
	return -EIO;
}

/* The last operation in each slot of QP i, after posted of them. */
static int atomic_check_all(const struct rb_session *s, int i, uint64_t posted)
{
	uint64_t slots = loop_addr_slots(s);
	int err = 0;

	for (uint64_t k = posted > slots ? posted - slots : 0; k < posted && !err; k++)
		err = atomic_check(s, i, k);
	return err;
}

/* ---- bandwidth: the posting side ---- */

struct bw_state {
	struct psched sched;            /* what to post and signal (postsched.h) */
	struct psched_qp *c;
	uint64_t total;                 /* completed, all QPs */
	uint64_t ckpt_every, ckpt_next, ckpt_msgs, ckpt_ns;
	double peak_bps;
};

/* Post on QP i what the schedule allows now (a whole list, or the rest). */
static int bw_post_batch(struct rb_session *s, struct post_set *p, const struct psched *ps, int i,
			 struct psched_qp *c)
{
	struct ibv_send_wr *first = &p->wr[(size_t)i * p->list], *bad;
	struct psched_post pl;
	unsigned k = psched_plan(ps, c, &pl);
	int err;

	if (k == 0)
		return 0;
	for (unsigned j = 0; j < k; j++) {
		uint32_t covers = psched_wr(&pl, j);

		first[j].send_flags = p->base_flags | (covers ? IBV_SEND_SIGNALED : 0);
		first[j].wr_id = WR_ID(i, covers);
		wr_operands(s, p, i, &first[j], c->posted + j);
		test_delay(s);
	}
	first[k - 1].next = NULL;
	err = ibv_post_send(s->q.qp[i], first, &bad);
	first[k - 1].next = k < p->list ? &first[k] : NULL;
	if (err)
		return check_post(err, s, "ibv_post_send");
	psched_commit(c, &pl);
	return 0;
}

static void bw_checkpoint(struct rb_session *s, struct bw_state *b)
{
	uint64_t now = clock_now_ns();
	double bps = (double)(b->total - b->ckpt_msgs) * (double)s->size * 1e9 /
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
	for (int i = 0; i < s->q.n; i++)
		if (psched_can_post(&b->sched, &b->c[i]))
			return true;
	return false;
}

static int bw_reap(struct rb_session *s, struct bw_state *b, struct watch *w, bool may_sleep)
{
	struct ibv_wc wc[POLL_BATCH];
	int n = cq_poll(s, s->q.send_cq, wc, POLL_BATCH, may_sleep);
	uint32_t msgs = 0;

	if (n < 0)
		return check_post(-n, s, "ibv_poll_cq");
	if (n == 0)
		return watch_idle(w);
	for (int k = 0; k < n; k++) {
		if (wc_check(s, &wc[k], verb_name(s->bench->verb)))
			return -EIO;
		b->c[WR_QP(wc[k].wr_id)].completed += WR_COUNT(wc[k].wr_id);
		msgs += WR_COUNT(wc[k].wr_id);
	}
	b->total += msgs;
	watch_progress(w, (int)msgs);
	if (b->ckpt_every && b->total >= b->ckpt_next)
		bw_checkpoint(s, b);
	return rb_stop ? -EINTR : 0;    /* SIGINT while traffic still flows */
}

static bool bw_all_done(const struct rb_session *s, const struct bw_state *b)
{
	for (int i = 0; i < s->q.n; i++)
		if (!psched_done(&b->c[i]))
			return false;
	return true;
}

/* What this side posted, and how many of those were signalled. */
static void bw_record_posts(const struct rb_session *s, const struct bw_state *b, struct rb_measure *m)
{
	m->wrs_posted = m->wrs_signaled = 0;
	for (int i = 0; i < s->q.n; i++) {
		m->wrs_posted += b->c[i].posted;
		m->wrs_signaled += b->c[i].signals;
	}
}

/* Duration mode: each QP ends with a signalled WR (psched_stop). */
static void bw_stop_posting(struct rb_session *s, struct bw_state *b)
{
	for (int i = 0; i < s->q.n; i++)
		psched_stop(&b->c[i]);
}

/* The window of a duration run: warm-up, then measure, then stop. */
struct window {
	uint64_t t0, begin_ns, end_ns;
	uint64_t begin_msgs, end_msgs;
	uint64_t begin_rx, end_rx;      /* -b with sends: the receives */
	int phase;                      /* 0 warm-up, 1 measuring, 2 done */
};

/* A window that starts (its warm-up first) at t0. */
static void window_init_at(struct window *win, const struct rb_session *s, uint64_t t0)
{
	*win = (struct window){ .t0 = t0, .begin_ns = t0 };
	win->phase = s->duration_ns ? 0 : 1;
	if (s->duration_ns && !s->warmup_ns)
		win->phase = 1;
}

static void window_init(struct window *win, const struct rb_session *s)
{
	window_init_at(win, s, clock_now_ns());
}

/* Advance the window with the messages counted so far (and the receives
 * of -b with sends); true once done. */
static bool window_tick_rx(struct window *win, const struct rb_session *s, uint64_t msgs,
			   uint64_t rx)
{
	uint64_t now = clock_now_ns();

	if (win->phase == 0 && now - win->t0 >= s->warmup_ns) {
		win->phase = 1;
		win->begin_ns = now;
		win->begin_msgs = msgs;
		win->begin_rx = rx;
	}
	if (win->phase == 1 && now - win->t0 >= s->duration_ns) {
		win->phase = 2;
		win->end_ns = now;
		win->end_msgs = msgs;
		win->end_rx = rx;
	}
	return win->phase == 2;
}

static bool window_tick(struct window *win, const struct rb_session *s, uint64_t msgs)
{
	return window_tick_rx(win, s, msgs, 0);
}

/*
 * The loop ended before the window did (the peer stopped first, SIGINT):
 * the window closes at end_ns with msgs.  One that never opened (still in
 * warm-up) measured nothing: it is empty, and the run says so.
 */
static void window_close_rx(struct window *win, uint64_t end_ns, uint64_t msgs, uint64_t rx)
{
	if (win->phase == 2)
		return;
	if (win->phase == 0) {
		win->begin_ns = end_ns;
		win->begin_msgs = msgs;
		win->begin_rx = rx;
	}
	win->phase = 2;
	win->end_ns = end_ns;
	win->end_msgs = msgs;
	win->end_rx = rx;
}

static void window_close(struct window *win, uint64_t end_ns, uint64_t msgs)
{
	window_close_rx(win, end_ns, msgs, 0);
}

static void measure_window(struct rb_measure *m, const struct window *win, uint64_t size)
{
	m->start_ns = win->begin_ns;
	m->end_ns = win->end_ns;
	m->msgs = win->end_msgs - win->begin_msgs;
	m->bytes = m->msgs * size;
	m->measured = true;
}

static int bw_state_init(struct bw_state *b, const struct rb_session *s)
{
	uint64_t target = s->iters ? s->iters : UINT64_MAX;

	memset(b, 0, sizeof(*b));
	b->c = calloc((size_t)s->q.n, sizeof(*b->c));
	if (!b->c)
		return -ENOMEM;
	psched_init(&b->sched, s->opt->tx_depth, s->opt->post_list, s->cq_mod);
	for (int i = 0; i < s->q.n; i++)
		psched_qp_init(&b->c[i], target);
	b->peak_bps = NAN;
	/* The peak needs a checkpoint (1/64 of the run, at least cq_mod messages)
	 * to pass; -b reports none: each side sees only its own half. */
	if (s->iters && !s->opt->bidir) {
		uint64_t total = s->iters * (uint64_t)s->q.n;

		b->ckpt_every = total / 64 > s->cq_mod ? total / 64 : s->cq_mod;
		b->ckpt_next = b->ckpt_every;
	}
	return 0;
}

int loop_bw_post(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct bw_state b;
	struct window win;
	struct watch w;
	int err = post_set_init(&p, s, s->opt->post_list);

	if (!err)
		err = bw_state_init(&b, s);
	if (err) {
		post_set_free(&p);
		return err;
	}
	test_start_delay(s);
	watch_init(&w, s, "sending");
	window_init(&win, s);
	b.ckpt_ns = win.t0;
	while (!err && !bw_all_done(s, &b)) {
		for (int i = 0; i < s->q.n && !err; i++)
			err = bw_post_batch(s, &p, &b.sched, i, &b.c[i]);
		if (!err)
			err = bw_reap(s, &b, &w, !bw_can_post(s, &b));
		if (s->duration_ns && win.phase < 2 && window_tick(&win, s, b.total))
			bw_stop_posting(s, &b);
	}
	for (int i = 0; i < s->q.n && !err; i++)
		err = atomic_check_all(s, i, b.c[i].posted);
	err = loop_end(err, m);
	if (s->duration_ns) {
		if (win.phase < 2)
			window_tick(&win, s, b.total);
		window_close(&win, clock_now_ns(), b.total);
		measure_window(m, &win, s->size);
	} else {
		m->start_ns = win.t0;
		m->end_ns = clock_now_ns();
		m->msgs = b.total;
		m->bytes = b.total * s->size;
		m->peak_bps = b.peak_bps;
		m->measured = true;
	}
	bw_record_posts(s, &b, m);
	free(b.c);
	post_set_free(&p);
	return err;
}

/* ---- receives ---- */

static int recv_post(struct rb_session *s, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)qps_recv_area(&s->q, i),
		.length = (uint32_t)s->q.max_size + (s->q.tr == TR_UD ? RB_UD_GRH : 0),
		.lkey = s->q.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;

	int err = ibv_post_recv(s->q.qp[i], &wr, &bad);

	if (!err)
		s->recvs_outstanding++;
	return check_post(err, s, "ibv_post_recv");
}

static bool side_receives(const struct rb_session *s)
{
	if (s->bench->verb != VERB_SEND)
		return false;
	return s->bench->metric == METRIC_LAT || s->opt->bidir || !s->is_client;
}

int loop_prepare(struct rb_session *s)
{
	s->peer_done = false;
	s->done_sent = false;
	s->heartbeat_ns = 0;        /* the client's first heartbeat goes out at once */
	if (s->bench->verb == VERB_WRITE && s->bench->metric == METRIC_LAT)
		for (int i = 0; i < s->q.n; i++)
			memset(qps_recv_area(&s->q, i), 0, s->size);
	if (s->bench->verb == VERB_ATOMIC)     /* the target slots start at 0 */
		for (int i = 0; i < s->q.n; i++)
			memset(qps_recv_area(&s->q, i), 0, RB_CYCLE_BYTES);
	if (!side_receives(s))
		return 0;
	while (s->recvs_outstanding < s->opt->rx_depth * (unsigned)s->q.n) {
		int err = recv_post(s, (int)(s->recvs_outstanding % (unsigned)s->q.n));

		if (err)
			return err;
	}
	return 0;
}

struct recv_state {
	uint64_t total, target;
	uint64_t probe_ns;              /* until the first arrival: when the last poll began */
	uint64_t first_ns, last_ns;     /* the window: the poll that found the first, the last */
};

/* Count n receive completions and post a receive for each. */
static int recv_complete(struct rb_session *s, struct recv_state *r, const struct ibv_wc *wc, int n)
{
	int err;

	r->last_ns = clock_now_ns();
	if (!r->first_ns)
		r->first_ns = r->probe_ns ? r->probe_ns : r->last_ns;
	for (int k = 0; k < n; k++) {
		if (wc_check(s, &wc[k], "receive"))
			return -EIO;
		r->total++;
		s->recvs_outstanding--;
		err = recv_post(s, (int)wc[k].wr_id);
		if (err)
			return err;
	}
	return 0;
}

static int recv_reap(struct rb_session *s, struct recv_state *r, struct watch *w, bool may_sleep)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, err;

	if (!r->first_ns)
		r->probe_ns = clock_now_ns();
	n = cq_poll(s, s->q.recv_cq, wc, POLL_BATCH, may_sleep);
	if (n < 0)
		return check_post(-n, s, "ibv_poll_cq");
	if (n == 0) {
		err = watch_idle(w);
		return err == -ECANCELED ? 0 : err;
	}
	watch_progress(w, n);
	err = recv_complete(s, r, wc, n);
	return err ? err : rb_stop ? -EINTR : 0;    /* SIGINT while traffic still flows */
}

/*
 * The sender's DONE can come between a poll that found the CQ empty and the
 * look at the OOB channel, with its last messages already received: count
 * what the CQ holds before stopping.
 */
static int recv_drain(struct rb_session *s, struct recv_state *r)
{
	struct ibv_wc wc[POLL_BATCH];
	int n = 0, err = 0;

	while (!err && r->total < r->target && (n = ibv_poll_cq(s->q.recv_cq, POLL_BATCH, wc)) > 0)
		err = recv_complete(s, r, wc, n);
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
int loop_bw_recv(struct rb_session *s, struct rb_measure *m)
{
	struct recv_state r = { .target = s->iters ? s->iters * (uint64_t)s->q.n : UINT64_MAX };
	struct window win;
	struct watch w;
	int err = 0;

	watch_init(&w, s, "receiving");
	window_init(&win, s);
	r.last_ns = win.t0;
	while (!err && r.total < r.target && !s->peer_done) {
		bool first = !r.first_ns;

		err = recv_reap(s, &r, &w, true);
		if (first && r.first_ns)
			window_init_at(&win, s, r.first_ns);
		if (s->duration_ns && win.phase < 2 && r.first_ns)
			window_tick(&win, s, r.total);
	}
	if (!err && s->peer_done)
		err = recv_drain(s, &r);
	err = loop_end(err, m);
	if (s->duration_ns) {
		window_close(&win, r.last_ns, r.total);
		measure_window(m, &win, s->size);
	} else {
		m->start_ns = r.first_ns ? r.first_ns : win.t0;
		m->end_ns = r.last_ns;
		m->msgs = r.total;
		m->bytes = r.total * s->size;
		m->peak_bps = NAN;
		m->measured = true;
	}
	return err;
}

/* -b with sends: what this side received, beside what it sent. */
static void measure_rx(struct rb_measure *m, const struct rb_session *s,
		       const struct window *win, const struct recv_state *r)
{
	m->rx_measured = true;
	if (s->duration_ns) {
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
	if (s->duration_ns) {
		measure_window(m, win, s->size);
		return;
	}
	m->start_ns = win->t0;
	m->end_ns = tx_end_ns ? tx_end_ns : clock_now_ns();
	m->msgs = b->total;
	m->bytes = b->total * s->size;
	m->peak_bps = NAN;
	m->measured = true;
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
	err = oob_chan_send(s->chan, WIRE_DONE, NULL, 0, 1000);
	if (err)
		log_err("sending and receiving at size %llu: telling the peer this side is done failed (the peer is gone?)",
			(unsigned long long)s->size);
	s->done_sent = !err;
	return err;
}

int loop_bw_send_bidir(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct bw_state b;
	struct recv_state r = { .target = s->iters ? s->iters * (uint64_t)s->q.n : UINT64_MAX };
	struct window win;
	struct watch w;
	uint64_t tx_end_ns = 0;
	int err = post_set_init(&p, s, s->opt->post_list);

	if (!err)
		err = bw_state_init(&b, s);
	if (err) {
		post_set_free(&p);
		return err;
	}
	watch_init(&w, s, "sending and receiving");
	window_init(&win, s);
	r.last_ns = win.t0;
	while (!err && (!bw_all_done(s, &b) || (r.total < r.target && !s->peer_done))) {
		for (int i = 0; i < s->q.n && !err; i++)
			err = bw_post_batch(s, &p, &b.sched, i, &b.c[i]);
		if (!err)
			err = bw_reap(s, &b, &w, false);
		if (err == -ECANCELED)
			err = 0;
		if (!err && !tx_end_ns && bw_all_done(s, &b))
			err = bidir_sent(s, &tx_end_ns);
		if (!err)
			err = recv_reap(s, &r, &w, !bw_can_post(s, &b));
		if (s->duration_ns && win.phase < 2 && window_tick_rx(&win, s, b.total, r.total))
			bw_stop_posting(s, &b);
	}
	if (!err && s->peer_done)
		err = recv_drain(s, &r);
	err = loop_end(err, m);
	if (s->duration_ns)
		window_close_rx(&win, clock_now_ns(), b.total, r.total);
	measure_tx(m, s, &win, &b, tx_end_ns);
	measure_rx(m, s, &win, &r);
	bw_record_posts(s, &b, m);
	free(b.c);
	post_set_free(&p);
	return err;
}

int loop_passive(struct rb_session *s, struct rb_measure *m)
{
	struct watch w;
	int done;

	(void)m;
	watch_init(&w, s, "waiting for the peer");
	s->heartbeat_ns = clock_now_ns();
	for (;;) {
		int ready;

		if (rb_stop) {
			m->partial = true;
			return 0;
		}
		ready = oob_chan_wait(s->chan, 100);
		if (ready < 0)
			return ready;
		done = peer_done(s);
		if (done < 0)
			log_err("%s at size %llu: the peer is gone (it failed or was killed)", w.what,
				(unsigned long long)s->size);
		if (done)
			return done < 0 ? done : 0;
		if (clock_now_ns() - s->heartbeat_ns > (uint64_t)(s->opt->timeout_s * 1e9)) {
			log_err("%s at size %llu: no word from the peer for %.1f s (stalled or gone; --timeout sets the limit)",
				w.what, (unsigned long long)s->size, s->opt->timeout_s);
			return -ETIMEDOUT;
		}
	}
}

/* ---- latency ---- */

static int wait_cq(struct rb_session *s, struct ibv_cq *cq, struct ibv_wc *wc, struct watch *w,
		   const char *what)
{
	int n, err;

	while ((n = cq_poll(s, cq, wc, 1, true)) == 0) {
		err = watch_idle(w);
		if (err)
			return err;
	}
	if (n < 0)
		return check_post(-n, s, "ibv_poll_cq");
	watch_progress(w, 1);
	if (cq == s->q.recv_cq)
		s->recvs_outstanding--;
	return wc_check(s, wc, what);
}

static int lat_post_one(struct rb_session *s, struct post_set *p, bool last)
{
	struct ibv_send_wr *wr = &p->wr[0], *bad;

	wr->send_flags = p->base_flags | IBV_SEND_SIGNALED;
	if (last && wr->opcode == IBV_WR_SEND) {
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htonl(1);
	}
	test_delay(s);
	return check_post(ibv_post_send(s->q.qp[0], wr, &bad), s, "ibv_post_send");
}

struct lat_run {
	uint64_t k, t0;
	struct window win;
};

/* Should the ping about to go be the last one? */
static bool lat_is_last(const struct rb_session *s, struct lat_run *l)
{
	if (rb_stop)
		return true;
	if (s->duration_ns)
		return window_tick(&l->win, s, l->k);
	return l->k + 1 >= s->warmup_iters + s->iters;
}

static void lat_record(const struct rb_session *s, struct lat_run *l, struct rb_measure *m, uint64_t ns)
{
	bool in_window = s->duration_ns ? l->win.phase == 1 : l->k >= s->warmup_iters;

	if (!in_window)
		return;
	if (!s->duration_ns)
		samples_push(&m->samples, ns);
	histogram_record(m->hist, ns);
}

static void lat_finish(const struct rb_session *s, struct lat_run *l, struct rb_measure *m)
{
	uint64_t now = clock_now_ns();

	if (s->duration_ns)
		window_close(&l->win, now, l->k);
	m->start_ns = s->duration_ns ? l->win.begin_ns : l->win.t0;
	m->end_ns = s->duration_ns ? l->win.end_ns : now;
	m->msgs = histogram_count(m->hist);
	m->bytes = m->msgs * s->size;
	m->measured = true;
	m->partial = rb_stop != 0;
}

int loop_lat_send_ping(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct lat_run l = { 0 };
	struct ibv_wc wc;
	struct watch w;
	bool last = false;
	int err = post_set_init(&p, s, 1);

	watch_init(&w, s, "send ping-pong");
	window_init(&l.win, s);
	for (; !err && !last; l.k++) {
		last = lat_is_last(s, &l);
		l.t0 = clock_now_ns();
		err = lat_post_one(s, &p, last);
		if (!err)
			err = wait_cq(s, s->q.recv_cq, &wc, &w, "receive");
		if (!err)
			lat_record(s, &l, m, clock_now_ns() - l.t0);
		if (!err && !last)
			err = recv_post(s, 0);
		if (!err)
			err = wait_cq(s, s->q.send_cq, &wc, &w, "send");
	}
	lat_finish(s, &l, m);
	post_set_free(&p);
	return loop_end(err, m);
}

int loop_lat_send_pong(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct ibv_wc wc;
	struct watch w;
	bool last = false;
	int err = post_set_init(&p, s, 1);

	(void)m;
	watch_init(&w, s, "send ping-pong");
	while (!err && !last) {
		err = wait_cq(s, s->q.recv_cq, &wc, &w, "receive");
		if (err)
			break;
		last = wc.wc_flags & IBV_WC_WITH_IMM;
		err = lat_post_one(s, &p, false);
		if (!err && !last)
			err = recv_post(s, 0);
		if (!err)
			err = wait_cq(s, s->q.send_cq, &wc, &w, "send");
	}
	post_set_free(&p);
	return loop_end(err, m);
}

/* RDMA write ping-pong: the last byte of each message carries a sequence
 * number (1..254, 255 marks the last message); each side spins on its own
 * receive area until the expected value lands. */
#define SEQ_LAST 255

static uint8_t seq_of(uint64_t k)
{
	return (uint8_t)(k % 254 + 1);
}

static int spin_for(struct rb_session *s, uint8_t want, struct watch *w, bool *last)
{
	volatile uint8_t *slot = (volatile uint8_t *)qps_recv_area(&s->q, 0) + s->size - 1;
	uint8_t got;
	int err;

	while ((got = *slot) != want && got != SEQ_LAST) {
		err = watch_idle(w);
		if (err)
			return err;
	}
	watch_progress(w, 1);
	*last = got == SEQ_LAST;
	return 0;
}

static int write_one(struct rb_session *s, struct post_set *p, uint8_t seq, struct watch *w)
{
	struct ibv_wc wc;

	((uint8_t *)qps_send_area(&s->q, 0))[s->size - 1] = seq;
	return lat_post_one(s, p, false) ? -EIO :
	       wait_cq(s, s->q.send_cq, &wc, w, "RDMA write");
}

int loop_lat_write_ping(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct lat_run l = { 0 };
	struct watch w;
	bool last = false, echoed;
	int err = post_set_init(&p, s, 1);

	watch_init(&w, s, "write ping-pong");
	window_init(&l.win, s);
	for (; !err && !last; l.k++) {
		uint8_t seq;

		last = lat_is_last(s, &l);
		seq = last ? SEQ_LAST : seq_of(l.k);
		l.t0 = clock_now_ns();
		err = write_one(s, &p, seq, &w);
		if (!err)
			err = spin_for(s, seq, &w, &echoed);
		if (!err)
			lat_record(s, &l, m, clock_now_ns() - l.t0);
	}
	lat_finish(s, &l, m);
	post_set_free(&p);
	return loop_end(err, m);
}

int loop_lat_write_pong(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct watch w;
	bool last = false;
	int err = post_set_init(&p, s, 1);

	watch_init(&w, s, "write ping-pong");
	for (uint64_t k = 0; !err && !last; k++) {
		err = spin_for(s, seq_of(k), &w, &last);
		if (!err)
			err = write_one(s, &p, last ? SEQ_LAST : seq_of(k), &w);
	}
	post_set_free(&p);
	return loop_end(err, m);
}

int loop_lat_oneside(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct lat_run l = { 0 };
	struct ibv_wc wc;
	struct watch w;
	bool last = false;
	int err = post_set_init(&p, s, 1);

	watch_init(&w, s, verb_name(s->bench->verb));
	window_init(&l.win, s);
	for (; !err && !last; l.k++) {
		last = lat_is_last(s, &l);
		l.t0 = clock_now_ns();
		heartbeat(s, l.t0);
		wr_operands(s, &p, 0, &p.wr[0], l.k);
		err = lat_post_one(s, &p, false);
		if (!err)
			err = wait_cq(s, s->q.send_cq, &wc, &w, verb_name(s->bench->verb));
		if (!err)
			lat_record(s, &l, m, clock_now_ns() - l.t0);
		if (!err)
			err = atomic_check(s, 0, l.k);
	}
	lat_finish(s, &l, m);
	post_set_free(&p);
	return loop_end(err, m);
}
