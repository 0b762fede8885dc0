/*
 * tests/unit/postsched_multi.c: several simulated QPs polled as
 * loop_bw_post polls them, and the -l 1 burst against the plan on twin
 * queues (postsched_sim.h).
 */
#include "postsched_sim.h"

#include <stdlib.h>

/* The CQ gives up to CQ_BATCH visible completions, QP by QP, each QP's in
 * order: a completion becomes visible only once its time has come. */
static unsigned reap(struct sim *m, unsigned nqp, uint64_t now)
{
	unsigned got = 0;

	for (unsigned i = 0; i < nqp; i++)
		while (got < CQ_BATCH && m[i].len && m[i].ready[m[i].head] <= now) {
			pop(&m[i]);
			got++;
		}
	return got;
}


static uint64_t posted_all(const struct sim *m, unsigned nqp)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < nqp; i++)
		sum += m[i].c.posted;
	return sum;
}

/* Is the poster stuck: no QP can post, no signalled WR is out anywhere? */
static bool stuck(const struct sim *m, unsigned nqp)
{
	for (unsigned i = 0; i < nqp; i++)
		if (m[i].len || psched_can_post(&m[i].p, &m[i].c))
			return false;
	return true;
}

static bool all_done(const struct sim *m, unsigned nqp)
{
	for (unsigned i = 0; i < nqp; i++)
		if (!psched_done(&m[i].c))
			return false;
	return true;
}

/* loop_bw_post's shape: one post per QP in turn, then one poll of the CQ. */
void run_multi(struct sweep *w, const struct multi *r)
{
	struct sim *m = calloc(r->nqp, sizeof(*m));
	uint64_t now = 0;
	unsigned k;

	for (unsigned i = 0; i < r->nqp; i++)
		sim_init(&m[i], r->t, r->l, r->q, r->n ? r->n : UINT64_MAX);
	w->runs++;
	while (!all_done(m, r->nqp)) {
		for (unsigned i = 0; i < r->nqp; i++)
			if (post_wrs(w, &m[i], &k, now, r->delay))
				goto out;
		if (!reap(m, r->nqp, now) && stuck(m, r->nqp)) {
			fail(w, &m[0], "stuck: no QP can post, and no signalled WR is out");
			goto out;
		}
		if (!r->n && m[0].c.target == UINT64_MAX && posted_all(m, r->nqp) >= r->stop_after)
			for (unsigned i = 0; i < r->nqp; i++)
				psched_stop(&m[i].c);
		now++;
	}
	for (unsigned i = 0; i < r->nqp; i++)
		if (m[i].len || m[i].c.completed != m[i].c.posted ||
		    (r->n && m[i].c.posted != r->n))
			fail(w, &m[i], "ended without every WR posted and completed");
out:
	free(m);
}

void random_multi(struct multi *r)
{
	r->t = 1 + (unsigned)(rng() % MAX_T);
	r->l = 1 + (unsigned)(rng() % (r->t < MAX_L ? r->t : MAX_L));
	r->q = 1 + (unsigned)(rng() % MAX_Q);
	r->nqp = 1 + (unsigned)(rng() % 8);
	r->delay = (unsigned)(rng() % 64);
	switch (rng() % 4) {
	case 0: r->n = 1 + rng() % 4; break;
	case 1: r->n = 1 + rng() % 5000; break;
	case 2: r->n = 100000 + rng() % 1000; break;
	default: r->n = 0; r->stop_after = rng() % 20000; break;
	}
}

/* -l 1 WR by WR (psched_burst_*, as bw_post_ones_body posts) against the
 * plan (psched_plan with k = 1) on twin queues: a burst posts exactly the
 * WRs the plan posts one at a time until it has no room, signals the same
 * ones with the same counts, and leaves the same state; every WR before
 * psched_burst_quiet_end is unsignalled, the one it points at (inside the
 * burst) signalled. */
static int one_step(struct sweep *w, struct sim *a, struct sim *b, bool *posted)
{
	struct psched_burst r;
	struct psched_post pl;

	psched_burst_start(&b->p, &b->c, &r);
	*posted = false;
	while (psched_plan(&a->p, &a->c, &pl)) {
		uint32_t ca = psched_wr(&pl, 0), cb;

		if (!psched_burst_fits(&r))
			return fail(w, a, "the burst ended while the plan could still post"), -1;
		cb = psched_burst_covers(&r);
		if ((cb == 0) != (r.posted < psched_burst_quiet_end(&r)) ||
		    psched_burst_quiet_end(&r) > r.limit)
			return fail(w, a, "psched_burst_quiet_end and psched_burst_covers disagree"), -1;
		psched_commit(&a->c, &pl);
		psched_burst_commit(&r, cb);
		if (ca != cb || a->c.posted != r.posted || a->c.signaled != r.signaled ||
		    a->c.signals != r.signals)
			return fail(w, a, "psched_burst_covers and psched_plan signal differently"), -1;
		if (cb)
			push(a, a->c.signaled, 0);
		*posted = true;
		w->posts++;
	}
	psched_burst_end(&r, &b->c);
	if (psched_burst_fits(&r))
		return fail(w, a, "the burst had room where the plan had none"), -1;
	return 0;
}

/* One run: completions come when the poster is stuck, or at random
 * (early) with eager; a duration run stops after stop_after WRs. */
static void run_one_by_one(struct sweep *w, unsigned t, unsigned q, uint64_t target,
			   uint64_t stop_after, bool eager)
{
	struct sim a, b;
	bool posted;

	sim_init(&a, t, 1, q, target);
	sim_init(&b, t, 1, q, target);
	w->runs++;
	while (!psched_done(&a.c)) {
		if (eager && a.len && rng() % 3 == 0) {
			pop(&a);
			b.c.completed = a.c.completed;
			continue;
		}
		if (one_step(w, &a, &b, &posted))
			return;
		if (posted) {
			if (a.c.posted >= stop_after && stop_after) {
				psched_stop(&a.c);
				psched_stop(&b.c);
			}
			continue;
		}
		if (!a.len)
			return fail(w, &a, "stuck: no room, and no signalled WR out");
		pop(&a);
		b.c.completed = a.c.completed;
	}
	if (!psched_done(&b.c) || b.c.posted != a.c.target)
		fail(w, &a, "the WR-by-WR twin did not end with the plan's");
}

void one_by_one_combo(struct sweep *w, unsigned t, unsigned q)
{
	w->combos++;
	for (int eager = 0; eager < 2; eager++) {
		run_one_by_one(w, t, q, 1, 0, eager);
		run_one_by_one(w, t, q, 2ull * t + 3, 0, eager);
		run_one_by_one(w, t, q, UINT64_MAX, 3ull * t + q + 1, eager);
	}
}
