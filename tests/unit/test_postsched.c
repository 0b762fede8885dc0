/*
 * The posting schedule (src/postsched.c) against a simulated send queue and
 * CQ: a signalled WR's completion retires it and the unsignalled WRs before
 * it on its QP; nothing else frees the queue.  Every run must end with every
 * WR completed, and a poster that cannot post must always have a signalled
 * WR in flight (else it would wait for a completion that never comes: the
 * stall of a queue full of unsignalled WRs).
 *
 * Why the sweep can be short.  Which WRs a post signals depends only on u,
 * the number of unsignalled WRs behind the last signalled one, never on
 * when completions come; and u after a post is a function of u before it.
 * A poster that must wait has more than depth - list WRs out (else a whole
 * list, or the rest, would fit), so if every post leaves u <= depth - list,
 * at least one of the WRs out is signalled: the wait ends.  psched_plan_signals
 * enforces that bound by construction (a post that would leave more signals
 * its last WR); the sweep checks it after every post it simulates, and
 * checks WR by WR (psched_wr) that the plan's count of unsignalled WRs is
 * the true one.  For -t up to FULL_ORBIT_T a duration run follows the orbit
 * of u from 0 until a value of u repeats (from there on the posts repeat),
 * so it covers every post of a run of any length: a run of -n WRs is a
 * prefix of that orbit and a final post of at most -l WRs, whose last WR is
 * signalled and which fits once the WRs out have completed (room = depth -
 * u >= list).  Above it the orbits add up to about 2e9 posts (45 s of
 * CPU) over the millions of combinations: there the duration run stops
 * after ceil(t / l) + 2 posts, the send queue filled, waited on and
 * drained, the bound being checked on each of those posts.  So the sweep
 * runs in a few seconds; run with the old rule (no signal at the end of a
 * post that leaves too many unsignalled) it fails at -t 1 -l 1 -Q 2, and at
 * -t 128 -l 64 -Q 100 (the stall of the issue).  A -Q above -t signals like
 * -Q = -t + 1 (u + k never exceeds -t, so the -Q-th WR is never reached);
 * the sweep runs -Q 1..-t+1 and the option's maximum for every -t, and every
 * -Q 1..1024 for -t <= 64 to show that equivalence on real runs.
 */
#include "engine/postsched.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_T 512
#define MAX_L 256
#define MAX_Q 1024              /* options.c: -Q 1..1024 */
#define RING 1024               /* > MAX_T: signalled WRs out on one QP */
#define CQ_BATCH 16             /* loops.c POLL_BATCH */
#define FULL_ORBIT_T 128        /* up to this -t a duration run follows the whole orbit of u */

/* One QP with the signalled WRs out, oldest first, and when each one's
 * completion becomes visible (a tick of the simulated clock). */
struct sim {
	struct psched p;
	struct psched_qp c;
	uint64_t sig[RING], ready[RING];
	unsigned head, len;
};

struct sweep {
	unsigned long long combos, runs, posts, fails;
	unsigned long long plain;       /* posts psched_list_plain called plain */
	unsigned long long waits;       /* plans of nothing psched_list_waits foresaw */
	uint64_t cap;                   /* a duration run's posts at most (see the top) */
	char first_fail[240];
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fail(struct sweep *w, const struct sim *m, const char *what)
{
	if (!w->fails++)
		snprintf(w->first_fail, sizeof(w->first_fail),
			 "-t %u -l %u -Q %u target %llu: %s (posted %llu, completed %llu, last signalled %llu)",
			 m->p.depth, m->p.list, m->p.cq_mod, (unsigned long long)m->c.target, what,
			 (unsigned long long)m->c.posted, (unsigned long long)m->c.completed,
			 (unsigned long long)m->c.signaled);
}

static void sim_init(struct sim *m, unsigned t, unsigned l, unsigned q, uint64_t target)
{
	psched_init(&m->p, t, l, q);
	psched_qp_init(&m->c, target);
	m->head = m->len = 0;
}

static void push(struct sim *m, uint64_t idx, uint64_t ready)
{
	unsigned at = (m->head + m->len++) & (RING - 1);

	m->sig[at] = idx;
	m->ready[at] = ready;
}

/* The CQ gives the oldest signalled WR's completion. */
static void pop(struct sim *m)
{
	m->c.completed = m->sig[m->head];
	m->head = (m->head + 1) & (RING - 1);
	m->len--;
}

/* After a post: the queue never overflows and u stays within depth - list. */
static int post_checks(struct sweep *w, struct sim *m, bool can)
{
	if (!can)
		fail(w, m, "psched_can_post said no, yet psched_plan posted");
	else if (m->c.posted - m->c.completed > m->p.depth)
		fail(w, m, "more WRs out than the send queue holds");
	else if (m->c.posted - m->c.signaled > m->p.keep)
		fail(w, m, "a post left more than depth - list WRs unsignalled");
	else
		return 0;
	return -1;
}

/* psched_plan posted nothing: psched_can_post must agree. */
static int nothing_posted(struct sweep *w, const struct sim *m, bool can)
{
	if (!can)
		return 0;
	fail(w, m, "psched_can_post said yes, yet psched_plan posted nothing");
	return -1;
}

/* A post as the sweep sees it: the plan's summary (the last signalled WR). */
static int post_fast(struct sweep *w, struct sim *m, unsigned *k)
{
	struct psched_post pl;
	bool can = psched_can_post(&m->p, &m->c);

	bool plain = psched_list_plain(&m->p, &m->c), waits = psched_list_waits(&m->p, &m->c);

	*k = psched_plan(&m->p, &m->c, &pl);
	w->waits += waits && !*k;
	if (!*k)
		return plain ? fail(w, m, "psched_list_plain said plain, yet psched_plan posted nothing"), -1
			     : nothing_posted(w, m, can);
	if (plain && (pl.k != m->p.list || pl.nsig != 1 || pl.next != pl.k - 1 || pl.from != 0 ||
		      pl.left_after != 0))
		return fail(w, m, "psched_list_plain said plain, yet the plan is not the list's last WR alone signalled"), -1;
	if (waits)
		return fail(w, m, "psched_list_waits said no room, yet psched_plan posted"), -1;
	w->plain += plain;
	psched_commit(&m->c, &pl);
	if (pl.nsig)
		push(m, m->c.signaled, 0);
	w->posts++;
	return post_checks(w, m, can);
}

/* A post as loops.c makes it: WR by WR through psched_wr, each signalled
 * WR pushed with its own completion delay; its counts must match the plan. */
static int post_wrs(struct sweep *w, struct sim *m, unsigned *k, uint64_t now, unsigned delay)
{
	struct psched_post pl;
	bool can = psched_can_post(&m->p, &m->c);
	uint64_t base = m->c.posted, prev = m->c.signaled, old = m->c.signaled, covered = 0;
	unsigned nsig = 0;

	*k = psched_plan(&m->p, &m->c, &pl);
	if (!*k)
		return nothing_posted(w, m, can);
	for (unsigned j = 0; j < *k; j++) {
		uint32_t covers = psched_wr(&pl, j);

		if (!covers)
			continue;
		if (base + j + 1 - prev != covers)
			return fail(w, m, "a completion's WR count is not the WRs since the last signalled one"), -1;
		prev = base + j + 1;
		covered += covers;
		nsig++;
		push(m, prev, now + (delay ? rng() % delay : 0));
	}
	psched_commit(&m->c, &pl);
	if (nsig != pl.nsig || prev != m->c.signaled || covered != m->c.signaled - old)
		return fail(w, m, "psched_wr's signals differ from the plan's"), -1;
	w->posts++;
	return post_checks(w, m, can);
}

/*
 * One QP, the laziest CQ (the worst case): completions come only when the
 * poster is stuck, one post's signalled WRs at a time.  A duration run
 * (target UINT64_MAX) stops once u repeats: the orbit is covered.
 */
static void run_one(struct sweep *w, unsigned t, unsigned l, unsigned q, uint64_t target,
		    uint32_t *seen, uint32_t stamp, bool wr_by_wr)
{
	struct sim m;
	unsigned k;

	sim_init(&m, t, l, q, target);
	w->runs++;
	while (!psched_done(&m.c)) {
		if (wr_by_wr ? post_wrs(w, &m, &k, 0, 0) : post_fast(w, &m, &k))
			return;
		if (k) {
			uint64_t u = m.c.posted - m.c.signaled;

			if (target != UINT64_MAX || m.c.target != UINT64_MAX)
				continue;
			if (seen[u] == stamp || m.c.posted >= w->cap * l)
				psched_stop(&m.c);
			seen[u] = stamp;
			continue;
		}
		if (!m.len)
			return fail(w, &m, "stuck: no room, and no signalled WR out");
		pop(&m);
	}
	if (m.len || m.c.completed != m.c.posted || m.c.posted != m.c.target ||
	    (target != UINT64_MAX && m.c.posted != target))
		fail(w, &m, "ended without every WR posted and completed");
	else if (m.c.signals > m.c.posted / (q < t - l + 1 ? q : t - l + 1) + 1)
		fail(w, &m, "signalled more often than every min(-Q, -t - -l + 1) WRs");
}

/* -n 1, an -n that is a multiple of neither -l (when above 1) nor -Q
 * (when above 2), and a duration run stopped after the orbit; above
 * FULL_ORBIT_T only the capped duration run (its stop is a final post of
 * one WR; test_multi runs -n small, odd and large at every -t). */
static void run_combo(struct sweep *w, unsigned t, unsigned l, unsigned q, uint32_t *seen,
		      bool wr_by_wr)
{
	uint64_t odd = 2ull * l + 1;
	uint32_t stamp = (uint32_t)++w->combos;

	if (q > 2 && odd % q == 0)
		odd += 2;
	w->cap = t <= FULL_ORBIT_T ? UINT64_MAX : (t + l - 1) / l + 2;
	if (t <= FULL_ORBIT_T) {
		run_one(w, t, l, q, 1, seen, stamp, wr_by_wr);
		run_one(w, t, l, q, odd, seen, stamp, wr_by_wr);
	}
	run_one(w, t, l, q, UINT64_MAX, seen, stamp, wr_by_wr);
}

static void test_sweep(void)
{
	static uint32_t seen[MAX_T + 1];
	struct sweep w = { 0 };
	clock_t t0 = clock();

	for (unsigned t = 1; t <= MAX_T; t++)
		for (unsigned l = 1; l <= t && l <= MAX_L; l++) {
			unsigned qmax = t <= 64 ? MAX_Q : t + 1;

			for (unsigned q = 1; q <= qmax; q++)
				run_combo(&w, t, l, q, seen, false);
			if (qmax < MAX_Q)
				run_combo(&w, t, l, MAX_Q, seen, false);
		}
	ok(w.fails == 0, "every -t 1..%d, -l 1..min(-t,%d), -Q 1..max: %llu combinations, %llu runs, %llu posts, %.1f s CPU",
	   MAX_T, MAX_L, w.combos, w.runs, w.posts, (double)(clock() - t0) / CLOCKS_PER_SEC);
	if (w.fails)
		printf("#   %llu failed runs; the first: %s\n", w.fails, w.first_fail);
	ok(w.waits > 1000, "psched_list_waits: psched_plan posted nothing each of the %llu times it said so",
	   w.waits);
	ok(w.plain > 1000, "psched_list_plain (-Q = -l, bw.c's posts without a plan) agreed with psched_plan on %llu posts",
	   w.plain);
}

/* The same runs WR by WR, as loops.c posts them (psched_wr), with the CQ
 * giving one completion at a time: for -t up to 96. */
static void test_wr_by_wr(void)
{
	static uint32_t seen[MAX_T + 1];
	struct sweep w = { 0 };
	clock_t t0 = clock();

	for (unsigned t = 1; t <= 96; t++)
		for (unsigned l = 1; l <= t; l++) {
			for (unsigned q = 1; q <= t + 1; q++)
				run_combo(&w, t, l, q, seen, true);
			run_combo(&w, t, l, MAX_Q, seen, true);
		}
	ok(w.fails == 0, "WR by WR, -t 1..96: %llu combinations, %llu runs, %llu posts, %.1f s CPU",
	   w.combos, w.runs, w.posts, (double)(clock() - t0) / CLOCKS_PER_SEC);
	if (w.fails)
		printf("#   %llu failed runs; the first: %s\n", w.fails, w.first_fail);
}

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

struct multi {
	unsigned t, l, q, nqp, delay;
	uint64_t n;                     /* per QP; 0: a duration run */
	uint64_t stop_after;            /* a duration run stops once this many are posted */
};

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
static void run_multi(struct sweep *w, const struct multi *r)
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

static void random_multi(struct multi *r)
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

/* -q 3 for every -t 1..48, -l and -Q 1..-t+1: -n 2l+1, and a duration
 * run stopped after 2t WRs, completions 0..15 polls late. */
static void test_multi_sweep(void)
{
	struct sweep w = { 0 };
	clock_t t0 = clock();

	for (unsigned t = 1; t <= 48; t++)
		for (unsigned l = 1; l <= t; l++)
			for (unsigned q = 1; q <= t + 1; q++) {
				struct multi r = { .t = t, .l = l, .q = q, .nqp = 3, .delay = 16,
						   .n = 2ull * l + 1 };

				run_multi(&w, &r);
				r.n = 0;
				r.stop_after = 2ull * t;
				run_multi(&w, &r);
				w.combos++;
			}
	ok(w.fails == 0, "-q 3, -t 1..48, late and batched completions: %llu combinations, %llu runs, %llu posts, %.1f s CPU",
	   w.combos, w.runs, w.posts, (double)(clock() - t0) / CLOCKS_PER_SEC);
	if (w.fails)
		printf("#   %llu failed runs; the first: %s\n", w.fails, w.first_fail);
}

/* -q 1..8, completions late (0..63 polls) and in batches, -n small, odd
 * and large, duration runs stopped at random points. */
static void test_multi(void)
{
	struct sweep w = { 0 };
	clock_t t0 = clock();
	struct multi r = { 0 };

	for (int i = 0; i < 1500; i++) {
		random_multi(&r);
		run_multi(&w, &r);
	}
	ok(w.fails == 0, "-q 1..8 with late, batched completions: %llu random runs, %llu posts, %.1f s CPU",
	   w.runs, w.posts, (double)(clock() - t0) / CLOCKS_PER_SEC);
	if (w.fails)
		printf("#   %llu failed runs; the first: %s\n", w.fails, w.first_fail);
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

static void one_by_one_combo(struct sweep *w, unsigned t, unsigned q)
{
	w->combos++;
	for (int eager = 0; eager < 2; eager++) {
		run_one_by_one(w, t, q, 1, 0, eager);
		run_one_by_one(w, t, q, 2ull * t + 3, 0, eager);
		run_one_by_one(w, t, q, UINT64_MAX, 3ull * t + q + 1, eager);
	}
}

static void test_one_by_one(void)
{
	static const unsigned qs[] = { 1, 2, 3, 64, 100, 127, 128, 255, 256, MAX_Q };
	struct sweep w = { 0 };
	clock_t t0 = clock();

	for (unsigned t = 1; t <= MAX_T; t++) {
		if (t <= 128)
			for (unsigned q = 1; q <= t + 1; q++)
				one_by_one_combo(&w, t, q);
		else
			for (unsigned j = 0; j < sizeof(qs) / sizeof(qs[0]); j++)
				one_by_one_combo(&w, t, qs[j]);
		one_by_one_combo(&w, t, MAX_Q);
		one_by_one_combo(&w, t, t - 1 ? t - 1 : 1);
	}
	ok(w.fails == 0, "-l 1 WR by WR (psched_burst_*) = the plan, -t 1..%d: %llu combinations, %llu runs, %llu posts, %.1f s CPU",
	   MAX_T, w.combos, w.runs, w.posts, (double)(clock() - t0) / CLOCKS_PER_SEC);
	if (w.fails)
		printf("#   %llu failed runs; the first: %s\n", w.fails, w.first_fail);
}

/* The signalled WRs of a run of n WRs, one QP, completions as late as can be. */
static uint64_t signals_of(unsigned t, unsigned l, unsigned q, uint64_t n)
{
	struct sweep w = { 0 };
	struct sim m;
	unsigned k;

	sim_init(&m, t, l, q, n);
	while (!psched_done(&m.c)) {
		if (post_fast(&w, &m, &k))
			return 0;
		if (!k && !m.len)
			return 0;
		if (!k)
			pop(&m);
	}
	return w.fails ? 0 : m.c.signals;
}

/* What the rule costs in completions, in the cases users run. */
static void test_rates(void)
{
	is_int(signals_of(128, 1, 100, 3000), 30, "-l 1 -Q 100: one completion per 100 WRs");
	is_int(signals_of(128, 1, 100, 3001), 31, "-l 1 -Q 100 -n 3001: and the last WR");
	is_int(signals_of(128, 64, 100, 3008), 32,
	       "-t 128 -l 64 -Q 100 -n 3008: signals at 100, 192, 292, 384, ..., 2980, 3008");
	is_int(signals_of(128, 64, 64, 3008), 47, "-l 64 -Q 64: one per list");
	is_int(signals_of(128, 128, 100, 3072), 48, "-l 128 = -t -Q 100: the 100th and the last of each list");
	is_int(signals_of(128, 1, 1024, 1280), 10, "-Q 1024 above -t 128: one per 128 WRs");
	is_int(signals_of(128, 50, 100, 3000), 30, "-l 50 -Q 100: one per 100 WRs");
	is_int(signals_of(1, 1, 1, 5), 5, "-t 1: every WR");
}

int main(void)
{
	test_rates();
	test_sweep();
	test_wr_by_wr();
	test_multi_sweep();
	test_multi();
	test_one_by_one();
	return tap_done();
}
