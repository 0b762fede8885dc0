/*
 * The posting side's schedule: how many work requests to post on a QP now,
 * which of them to signal, and where a duration run stops.  Pure: no verbs
 * calls, so tests/unit/test_postsched.c can drive it against a simulated
 * send queue and CQ.
 *
 * The rule.  A post is a whole list of -l WRs (or, at the end, all that is
 * left), posted once the send queue has room for it.  A WR is signalled
 * when it is the -Q-th since the last signalled one, when it is the last
 * one to post, or when it ends a post that would otherwise leave more than
 * -t minus -l unsignalled WRs behind the last signalled one.  So once every
 * signalled WR has completed the queue always has room for a whole list:
 * whenever a post must wait, a signalled WR is in flight, and its
 * completion makes the room.  That holds for any -l <= -t and any -Q.
 */
#ifndef RB_POSTSCHED_H
#define RB_POSTSCHED_H

#include <stdbool.h>
#include <stdint.h>

#define PSCHED_NONE 0xffffffffu

struct psched {
	unsigned depth;             /* -t: the send queue's depth */
	unsigned list;              /* -l: WRs per post */
	unsigned cq_mod;            /* -Q at this size */
	unsigned keep;              /* the most unsignalled WRs a post may leave: depth - list */
	unsigned sig_at;            /* -l 1: signal the WR that makes this many unsignalled */
};

/* One QP's counts, all in WRs since the size started. */
struct psched_qp {
	uint64_t posted, completed;
	uint64_t signaled;          /* the index (from 1) of the last signalled WR posted */
	uint64_t target;            /* post this many in all (UINT64_MAX: until stopped) */
	uint64_t signals;           /* how many were signalled */
};

/*
 * One post's plan.  Walk j = 0..k-1 through psched_wr(): it says which WRs
 * are signalled and how many WRs each one's completion accounts for.
 */
struct psched_post {
	unsigned k;                 /* WRs in this post; 0: nothing to post now */
	unsigned next;              /* index of the next signalled WR (PSCHED_NONE: none) */
	unsigned step;              /* -Q */
	unsigned tail;              /* k - 1 when the post's last WR is signalled, else PSCHED_NONE */
	int64_t from;               /* index after the last signalled WR, from this post's start */
	unsigned left_after;        /* unsignalled WRs after the last signalled one once posted */
	unsigned nsig;              /* signalled WRs in this post */
};

unsigned psched_cq_mod(unsigned cq_mod, bool given, uint64_t size);
void psched_init(struct psched *p, unsigned depth, unsigned list, unsigned cq_mod);
void psched_qp_init(struct psched_qp *c, uint64_t target);
void psched_stop(struct psched_qp *c);

/* The post went out. */
/*
 * Which WRs of a post of k signal, with u unsignalled WRs already behind the
 * last signalled one: every cq_mod-th counted from that one, then the
 * post's last WR if it is the run's last (final) or if the post would leave
 * more than keep unsignalled.  One division at most, and only for a post
 * that holds two -Q signals or more.
 */
static inline void psched_plan_signals(const struct psched *p, struct psched_post *pl, unsigned u,
				       bool final)
{
	unsigned k = pl->k, q = p->cq_mod;
	unsigned first = u < q ? q - 1 - u : 0, after, n = 0;

	pl->next = PSCHED_NONE;
	after = u + k;
	if (first < k) {
		unsigned more = k - 1 - first < q ? 0 : (k - 1 - first) / q;

		pl->next = first;
		n = more + 1;
		after = k - 1 - (first + more * q);
	}
	pl->tail = PSCHED_NONE;
	if (after > 0 && (final || after > p->keep)) {
		pl->tail = k - 1;
		if (pl->next == PSCHED_NONE)
			pl->next = k - 1;
		after = 0;
		n++;
	}
	pl->step = q;
	pl->from = -(int64_t)u;
	pl->left_after = after;
	pl->nsig = n;
}

/* Inline: the poster calls it once a post (a call per message with -l 1).
 * A whole list once it fits, or all that is left once that fits. */
static inline unsigned psched_plan(const struct psched *p, const struct psched_qp *c,
				   struct psched_post *pl)
{
	uint64_t room = p->depth - (c->posted - c->completed);
	uint64_t left = c->target - c->posted;
	unsigned want = left < p->list ? (unsigned)left : p->list;

	pl->k = want && room >= want ? want : 0;
	if (pl->k)
		psched_plan_signals(p, pl, (unsigned)(c->posted - c->signaled), pl->k == left);
	return pl->k;
}

static inline void psched_commit(struct psched_qp *c, const struct psched_post *pl)
{
	c->posted += pl->k;
	c->signaled = c->posted - pl->left_after;
	c->signals += pl->nsig;
}

/*
 * The posted count a whole list may reach: the queue's room, the WRs
 * left.  Neither moves while a poster posts plain lists (completions are
 * reaped between bursts) and each plain list leaves posted == signaled:
 * a burst of them (bw.c's ring) tests posted + list against it alone.
 */
static inline uint64_t psched_list_limit(const struct psched *p, const struct psched_qp *c)
{
	uint64_t room_end = c->completed + p->depth;

	return room_end < c->target ? room_end : c->target;
}

/*
 * The steady state of -Q equal to -l: a whole list after a signalled WR
 * (none unsignalled behind it), with room for it and at least a list left.
 * psched_plan's plan for it is always the list's last WR alone signalled,
 * retiring the whole list (test_postsched checks that they agree), so a
 * poster whose template is that plan may post it without one, then
 * psched_commit_list.
 */
static inline bool psched_list_plain(const struct psched *p, const struct psched_qp *c)
{
	return p->cq_mod == p->list && c->posted == c->signaled &&
	       c->posted + p->list <= psched_list_limit(p, c);
}

/* A whole list (or more) is left and the queue has no room for it:
 * psched_plan would post nothing now (one test before any plan). */
static inline bool psched_list_waits(const struct psched *p, const struct psched_qp *c)
{
	return p->depth - (c->posted - c->completed) < p->list && c->target - c->posted >= p->list;
}

static inline void psched_commit_list(const struct psched *p, struct psched_qp *c)
{
	c->posted += p->list;
	c->signaled = c->posted;
	c->signals++;
}

/* Would psched_plan post now: a whole list fits, or all that is left does? */
static inline bool psched_can_post(const struct psched *p, const struct psched_qp *c)
{
	uint64_t room = p->depth - (c->posted - c->completed);
	uint64_t left = c->target - c->posted;

	return left && room >= (left < p->list ? left : p->list);
}

static inline bool psched_done(const struct psched_qp *c)
{
	return c->completed >= c->target;
}

/* WR j of the post: 0 if unsignalled, else how many WRs its completion
 * retires (itself and the unsignalled ones before it).  Call it for
 * j = 0, 1, ..., k - 1 in turn. */
static inline uint32_t psched_wr(struct psched_post *pl, unsigned j)
{
	uint32_t covers;

	if (j != pl->next)
		return 0;
	covers = (uint32_t)((int64_t)j + 1 - pl->from);
	pl->from = (int64_t)j + 1;
	pl->next = j + pl->step < pl->k ? j + pl->step : pl->tail;
	if (pl->next == j)
		pl->next = PSCHED_NONE;
	return covers;
}

/*
 * -l 1, WR by WR, without a plan: a burst posts while psched_plan would post
 * one WR (room for one more, some left), with psched_plan's rule for k = 1
 * (test_postsched checks that they agree), its counts kept in a local struct
 * (registers) until psched_burst_end.  A WR is signalled when it is the
 * -Q-th since the last signalled one, when it would leave more than
 * depth - 1 unsignalled, or when it is the last.
 */
struct psched_burst {
	uint64_t posted, limit, signaled, target, signals;
	unsigned sig_at;
};

static inline void psched_burst_start(const struct psched *p, const struct psched_qp *c,
				      struct psched_burst *r)
{
	uint64_t room_end = c->completed + p->depth;

	*r = (struct psched_burst){ .posted = c->posted, .signaled = c->signaled,
				    .target = c->target, .signals = c->signals, .sig_at = p->sig_at,
				    .limit = room_end < c->target ? room_end : c->target };
}

static inline bool psched_burst_fits(const struct psched_burst *r)
{
	return r->posted < r->limit;
}

/*
 * Where the burst's next signalled WR is (psched_burst_covers not 0): the
 * sig_at-th after the last signalled one, or the run's last, whichever
 * comes first; the burst's limit if that comes before it.  The WRs from
 * posted up to it go unsignalled (test_postsched checks it on every WR),
 * so a poster may post them without asking per WR.
 */
static inline uint64_t psched_burst_quiet_end(const struct psched_burst *r)
{
	uint64_t sig = r->signaled + r->sig_at < r->target ? r->signaled + r->sig_at : r->target;

	return sig - 1 < r->limit ? sig - 1 : r->limit;
}

/* The WR about to go: 0 if unsignalled, else how many WRs its completion
 * retires. */
static inline uint32_t psched_burst_covers(const struct psched_burst *r)
{
	uint64_t u = r->posted - r->signaled + 1;

	return u >= r->sig_at || r->posted + 1 == r->target ? (uint32_t)u : 0;
}

static inline void psched_burst_commit(struct psched_burst *r, uint32_t covers)
{
	r->posted++;
	if (covers) {
		r->signaled = r->posted;
		r->signals++;
	}
}

static inline void psched_burst_end(const struct psched_burst *r, struct psched_qp *c)
{
	c->posted = r->posted;
	c->signaled = r->signaled;
	c->signals = r->signals;
}

#endif
