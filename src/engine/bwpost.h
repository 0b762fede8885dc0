/*
 * The bandwidth loop's posts on one QP (bw.c only).  bw.c picks one kind
 * per run, before its loop (bw_mode), so that nothing in the loop asks
 * again which:
 *   bw_post_ring       -l above 1 with -Q equal to -l on a ring (ring.h):
 *                      whole lists as their templates have them, in a
 *                      burst while they fit;
 *   bw_post_lists_qp   any other -l above 1: a plan per list (postsched.h);
 *   bw_post_ones_body  -l 1, WR by WR: the unsignalled ones between two
 *                      signals in a run of their own, from a ring of WRs
 *                      (addresses set once) where there is one.
 * Each returns 0 (the QP has no room, or nothing is left) or -errno.
 */
#ifndef RB_ENGINE_BWPOST_H
#define RB_ENGINE_BWPOST_H

#include "engine/internal.h"
#include "engine/ring.h"

#include "lib/log.h"

/* The provider's post_send, what ibv_post_send calls: read once a burst. */
typedef int post_send_fn(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);

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


/* bw_post_batch_body while it posts: QP i's lists while it has room. */
static inline __attribute__((always_inline)) int
bw_post_lists_qp(struct rb_session *s, struct post_set *p, const struct psched *ps, int i,
		 struct psched_qp *c, bool v)
{
	int n;

	while ((n = bw_post_batch_body(s, p, ps, i, c, v)) > 0 && !bw_one_at_a_time(s))
		;
	return n < 0 ? n : 0;
}

/*
 * -Q equal to -l on a ring (p->sig_last): QP i's next lists as their
 * templates have them, each list's last WR signalled for the list, while
 * psched_list_plain holds: its bound (psched_list_limit) is read once and
 * the counts stay in registers until the burst ends.  The run's last,
 * shorter list goes through bw_post_lists_qp, as would a QP not in the
 * plain state (never: postsched.h).
 */
static inline __attribute__((always_inline)) int
bw_post_ring(struct rb_session *s, struct post_set *p, const struct psched *ps, int i,
	     struct psched_qp *c)
{
	struct ibv_qp *qp = s->conn.q.qp[i];
	post_send_fn *post_send = qp->context->ops.post_send;
	struct ibv_send_wr *begin = &p->wr[(size_t)i * p->ring], *end = begin + p->ring;
	struct ibv_send_wr *at = p->at[i], *bad;
	uint64_t posted = c->posted, limit = psched_list_limit(ps, c), lists = 0;
	unsigned list = p->list;
	int err = 0;

	if (posted != c->signaled)
		return bw_post_lists_qp(s, p, ps, i, c, false);
	while (posted + list <= limit) {
		err = post_send(qp, at, &bad);
		if (err)
			break;
		posted += list;
		lists++;
		at = at + list == end ? begin : at + list;
	}
	c->posted = c->signaled = posted;
	c->signals += lists;
	p->at[i] = at;
	if (err)
		return check_post(err, s, "ibv_post_send");
	return c->target - posted < list ? bw_post_lists_qp(s, p, ps, i, c, false) : 0;
}

/* One QP's -l 1 burst: what each post needs, kept in registers.  at: the
 * WR to post next (with a ring, it steps through the QP's ring; without,
 * the QP's one WR, whose addresses cy sets per post). */
struct bw_one {
	struct ibv_qp *qp;
	post_send_fn *post_send;
	struct ibv_send_wr *at, *begin, *end;
	struct wr_cycle cy;
	int i;
};

static inline __attribute__((always_inline)) struct bw_one
bw_one_init(struct rb_session *s, struct post_set *p, int i, bool ring)
{
	struct bw_one o = { .qp = s->conn.q.qp[i], .i = i, .begin = &p->wr[(size_t)i * p->ring] };

	o.post_send = o.qp->context->ops.post_send;
	o.end = o.begin + p->ring;
	o.at = ring ? p->at[i] : o.begin;
	if (!ring)
		o.cy = wr_cycle_init(s, p, i);
	return o;
}

/* Post operation k, the WR at o->at: without a ring, its operands first
 * (v: --validate's payload too); with one, they are set already. */
static inline __attribute__((always_inline)) int
bw_one_post(struct rb_session *s, struct bw_one *o, uint64_t k, bool v, bool ring)
{
	struct ibv_send_wr *wr = o->at, *bad;
	int err;

	if (!ring) {
		wr_cycle_set(&o->cy, wr, k);
		if (v)
			wr_stamp(s, o->i, wr, k);
		test_delay(s);
	}
	err = o->post_send(o->qp, wr, &bad);
	if (ring && !err)
		o->at = wr + 1 == o->end ? o->begin : wr + 1;
	return err;
}

/* The burst's next WR where psched_burst_quiet_end stopped (a signalled
 * one): its flags and count set for its post, the template's put back. */
static inline __attribute__((always_inline)) int
bw_one_signalled(struct rb_session *s, const struct post_set *p, struct bw_one *o,
		 struct psched_burst *r, bool v, bool ring)
{
	struct ibv_send_wr *wr = o->at;
	uint32_t covers = psched_burst_covers(r);
	int err;

	wr->send_flags = covers ? p->base_flags | IBV_SEND_SIGNALED : p->base_flags;
	wr->wr_id = WR_ID(o->i, covers);
	err = bw_one_post(s, o, r->posted, v, ring);
	bw_wr_template(p, o->i, wr, 0);
	if (!err)
		psched_burst_commit(r, covers);
	return err;
}

/*
 * -l 1, the message-rate case: WR after WR while QP i has room, without a
 * plan per post (psched_burst_*: the same rule).  The WRs up to the next
 * signalled one (psched_burst_quiet_end) go as the template has them,
 * unsignalled: a post and a step each.  v, ring: constants.
 */
static inline __attribute__((always_inline)) int
bw_post_ones_body(struct rb_session *s, struct post_set *p, const struct psched *ps, int i,
		  struct psched_qp *c, bool v, bool ring)
{
	struct bw_one o = bw_one_init(s, p, i, ring);
	struct psched_burst r;
	int err = 0;

	psched_burst_start(ps, c, &r);
	if (bw_one_at_a_time(s) && r.limit > r.posted + 1)
		r.limit = r.posted + 1;
	while (!err && psched_burst_fits(&r)) {
		uint64_t quiet = psched_burst_quiet_end(&r);

		for (; r.posted < quiet; r.posted++)
			if ((err = bw_one_post(s, &o, r.posted, v, ring)))
				break;
		if (!err && psched_burst_fits(&r))
			err = bw_one_signalled(s, p, &o, &r, v, ring);
	}
	psched_burst_end(&r, c);
	if (ring)
		p->at[i] = o.at;
	return check_post(err, s, "ibv_post_send");
}

#endif
