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
 *
 * The fast run (CI's, RB_FULL unset) keeps every -t, -l and -Q 1..-t+1 up
 * to FULL_ORBIT_T (the whole orbits, and both failures of the old rule)
 * and, above it, where the runs are capped, every -t and -l with the -Q at
 * the edges of the rule (1..3, -l - 1..-l + 1, -t - -l..-t - -l + 2, -t -
 * 1..-t + 1) and one in 16 of the others; of the -Q above -t + 1 (the
 * equivalence) 1024 and one in 16, spread over the range by a hash of (-t,
 * -l, -Q).  340 million posts (ASan: 21 s of CPU) become about 50 million.
 * RB_FULL=1 (.ci/run --full) runs every -Q.
 */
#include "postsched_sim.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STR_(x) #x
#define STR(x) STR_(x)

static bool full_run(void)
{
	static int full = -1;   /* read once: the sweep asks for each -Q */

	if (full < 0) {
		const char *e = getenv("RB_FULL");

		full = e && !strcmp(e, "1");
	}
	return full;
}

/* Whether the sweep runs -Q q at -t t, -l l (the top of the file). */
static bool sweep_q(unsigned t, unsigned l, unsigned q)
{
	uint32_t h = (t * 2654435761u) ^ (l * 40503u) ^ (q * 2246822519u);

	if (full_run() || (t <= FULL_ORBIT_T && q <= t + 1))
		return true;
	if (q > t + 1)          /* signals as -t + 1 does: 1 in 16 to show it */
		return q == MAX_Q || ((h ^ (h >> 15)) & 15) == 0;
	return q <= 3 || (q + 1 >= l && q <= l + 1) || (q + l >= t && q + l <= t + 2) || q + 1 >= t ||
	       ((h ^ (h >> 15)) & 15) == 0;
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
				if (sweep_q(t, l, q))
					run_combo(&w, t, l, q, seen, false);
			if (qmax < MAX_Q)
				run_combo(&w, t, l, MAX_Q, seen, false);
		}
	ok(w.fails == 0, "every -t 1..%d, -l 1..min(-t,%d), -Q 1..max%s: %llu combinations, %llu runs, %llu posts, %.1f s CPU",
	   MAX_T, MAX_L, full_run() ? " (RB_FULL=1: every -Q)" :
	   " (-Q above -t + 1, and above -t " STR(FULL_ORBIT_T) " away from the rule's edges: 1 in 16; RB_FULL=1: every -Q)", w.combos, w.runs, w.posts, (double)(clock() - t0) / CLOCKS_PER_SEC);
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
