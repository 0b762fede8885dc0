/*
 * tests/unit/postsched_sim.h: the simulated send queue and CQ that
 * test_postsched drives src/engine/postsched.c through (the why of the
 * sweep is at the top of test_postsched.c).  No TAP here: the runs count
 * into a struct sweep, and test_postsched.c reports.
 *   postsched_sim.c    one QP: the queue, a post as the sweep sees it and
 *                      as loops.c makes it (WR by WR), a run, a combination
 *   postsched_multi.c  several QPs (late, batched completions) and the
 *                      -l 1 burst against the plan on twin queues
 */
#ifndef RB_TEST_POSTSCHED_SIM_H
#define RB_TEST_POSTSCHED_SIM_H

#include "engine/postsched.h"

#include <stdbool.h>
#include <stdint.h>

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

/* A run of several QPs (test_postsched's -q sweeps). */
struct multi {
	unsigned t, l, q, nqp, delay;
	uint64_t n;                     /* per QP; 0: a duration run */
	uint64_t stop_after;            /* a duration run stops once this many are posted */
};

uint64_t rng(void);
void fail(struct sweep *w, const struct sim *m, const char *what);
void sim_init(struct sim *m, unsigned t, unsigned l, unsigned q, uint64_t target);
void push(struct sim *m, uint64_t idx, uint64_t ready);
void pop(struct sim *m);
int post_fast(struct sweep *w, struct sim *m, unsigned *k);
int post_wrs(struct sweep *w, struct sim *m, unsigned *k, uint64_t now, unsigned delay);
void run_one(struct sweep *w, unsigned t, unsigned l, unsigned q, uint64_t target,
	     uint32_t *seen, uint32_t stamp, bool wr_by_wr);
void run_combo(struct sweep *w, unsigned t, unsigned l, unsigned q, uint32_t *seen, bool wr_by_wr);
uint64_t signals_of(unsigned t, unsigned l, unsigned q, uint64_t n);

void run_multi(struct sweep *w, const struct multi *r);
void random_multi(struct multi *r);
void one_by_one_combo(struct sweep *w, unsigned t, unsigned q);

#endif
