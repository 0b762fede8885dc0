/*
 * --rate_limit=SW, the bandwidth loop's pace (bw.c only; lib/pace.h the
 * arithmetic).  A paced run is a copy of bw.c's loop of its own (bw_mode
 * chosen before the loop), so an unpaced run tests nothing per pass.
 *
 * How it holds the posts back: each QP's schedule target (postsched.h) is
 * its allowance, 0 at the start; burst k, once due, raises one QP's
 * allowance by --burst_size messages (the QPs in turn, so the rate is the
 * run's, all QPs together) up to the QP's own target (-n; until stopped
 * with -D).  The posting code is the unpaced run's: it posts up to the
 * allowance as it would up to a run's end, whose last WR it signals, so
 * each burst ends with a completion.  Between bursts, with every granted
 * WR completed, the loop sleeps towards the next deadline (short sleeps,
 * the last stretch spun); otherwise it polls as always.
 */
#ifndef RB_ENGINE_BWPACE_H
#define RB_ENGINE_BWPACE_H

#include "engine/internal.h"
#include "engine/postsched.h"
#include "lib/pace.h"

struct bw_pace {
	struct pace due;        /* burst k's deadline */
	uint64_t k;             /* the next burst */
	uint64_t burst;         /* messages per burst */
	uint64_t target;        /* each QP's own target */
	uint64_t granted;       /* allowances given, all QPs */
	int qp;                 /* the next burst's QP */
	bool granting;          /* false once -D's window ends or every QP has all */
};

/* Before the loop: allowances 0, burst 0 due now. */
static inline void bw_pace_init(struct bw_pace *pc, const struct rb_session *s, struct psched_qp *c)
{
	double pps = pace_pps(s->opt->rate_limit, s->opt->rate_units, s->run.size);

	*pc = (struct bw_pace){ .burst = s->opt->burst_size, .target = c[0].target, .granting = true };
	for (int i = 0; i < s->conn.q.n; i++)
		c[i].target = 0;
	pace_init(&pc->due, clock_now_ns(), pps, pc->burst);
}

/* Burst k is due: the next QP with some of its target left gets it. */
static inline void bw_pace_grant(struct bw_pace *pc, struct psched_qp *c, int n)
{
	for (int tries = 0; tries < n; tries++) {
		struct psched_qp *q = &c[pc->qp];

		pc->qp = pc->qp + 1 == n ? 0 : pc->qp + 1;
		if (q->target < pc->target) {
			uint64_t add = pc->target - q->target < pc->burst ? pc->target - q->target : pc->burst;

			q->target += add;
			pc->granted += add;
			pc->k++;
			return;
		}
	}
	pc->granting = false;
}

/* Every granted WR has completed: wait towards the next deadline (the
 * watch told that this silence is the pace's, not a stall). */
static inline void bw_pace_wait(struct bw_pace *pc, struct watch *w)
{
	w->progressed = true;
	pace_nap(pace_due(&pc->due, pc->k), clock_now_ns());
}

#endif
