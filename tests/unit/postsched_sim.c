/*
 * tests/unit/postsched_sim.c: one simulated QP (postsched_sim.h).
 */
#include "postsched_sim.h"

#include <stdio.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

void fail(struct sweep *w, const struct sim *m, const char *what)
{
	if (!w->fails++)
		snprintf(w->first_fail, sizeof(w->first_fail),
			 "-t %u -l %u -Q %u target %llu: %s (posted %llu, completed %llu, last signalled %llu)",
			 m->p.depth, m->p.list, m->p.cq_mod, (unsigned long long)m->c.target, what,
			 (unsigned long long)m->c.posted, (unsigned long long)m->c.completed,
			 (unsigned long long)m->c.signaled);
}

void sim_init(struct sim *m, unsigned t, unsigned l, unsigned q, uint64_t target)
{
	psched_init(&m->p, t, l, q);
	psched_qp_init(&m->c, target);
	m->head = m->len = 0;
}

void push(struct sim *m, uint64_t idx, uint64_t ready)
{
	unsigned at = (m->head + m->len++) & (RING - 1);

	m->sig[at] = idx;
	m->ready[at] = ready;
}

/* The CQ gives the oldest signalled WR's completion. */
void pop(struct sim *m)
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
int post_fast(struct sweep *w, struct sim *m, unsigned *k)
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
int post_wrs(struct sweep *w, struct sim *m, unsigned *k, uint64_t now, unsigned delay)
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
void run_one(struct sweep *w, unsigned t, unsigned l, unsigned q, uint64_t target,
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
void run_combo(struct sweep *w, unsigned t, unsigned l, unsigned q, uint32_t *seen,
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

/* The signalled WRs of a run of n WRs, one QP, completions as late as can be. */
uint64_t signals_of(unsigned t, unsigned l, unsigned q, uint64_t n)
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
