/*
 * rb_mpi's schedules: which links run in each round.  Pure logic (no MPI,
 * no verbs): the same code answers --plan and runs the job, and
 * tests/unit/test_schedule checks it for every N from 2 to 4096.
 *
 *   rounds      every ordered pair once, in rounds of disjoint links (the
 *               circle method: M-1 rounds of M/2 pairs, M = N rounded up to
 *               even; each pair once per direction): 2(N-1) rounds for even
 *               N, 2N for odd N (one rank sits out each round: with
 *               (N-1)/2 links a round, N(N-1) links need 2N rounds).  With
 *               -b (both ways at once) each unordered pair once: N-1 / N.
 *               With groups (switches), first the links inside every group
 *               (all groups at once), then the links across groups.
 *   sequential  every ordered pair alone, one after the other: N(N-1) rounds
 *   ring        rank i to i+1, all at once: one round (two links a rank)
 *   bisection   the first half to the second half, at once: one round
 *               (with groups: the ranks ordered by group first)
 *   shift       round k: every rank i to i+k, k = 1..N-1 (two links a rank)
 *   incast      every other rank to one destination (rank 0, or
 *               sched_set_incast), all at once: one round of N-1 links
 *   load        latency under load (sched_set_load): round 0, the latency
 *               pair alone (idle); round k, the pair again while the
 *               other ranks (the background ranks B, by rank) run the k-th
 *               load pattern: pairs (B[2i] to B[2i+1]), ring (B[i] to
 *               B[i+1]) or incast (every rank of B but the incast
 *               destination to it; it may be a rank of the pair).  The
 *               pair's link comes first in each round.
 */
#ifndef RB_MPI_SCHEDULE_H
#define RB_MPI_SCHEDULE_H

#include <stdbool.h>

enum sched_kind { SCHED_ROUNDS, SCHED_SEQUENTIAL, SCHED_RING, SCHED_BISECTION, SCHED_SHIFT,
		  SCHED_INCAST, SCHED_LOAD };

#define SCHED_MAX_LOADS 3          /* load patterns in one job (pairs, ring, incast) */

struct sched_link {
	int src, dst;               /* src is the client: it posts the verbs */
};

struct sched {
	enum sched_kind kind;
	int n;                      /* ranks */
	bool both_ways;             /* -b: rounds covers each unordered pair once */
	int nrounds;
	/* groups (NULL: none): each rank's group, and the ranks by group */
	int *group, *by_group, ngroups;
	int *group_start;           /* ngroups + 1 offsets into by_group */
	int intra_rounds;           /* rounds: the first rounds, inside groups */
	int *inter_round;           /* rounds: the circle rounds with links across groups */
	int incast_dst;             /* incast, and a load's incast: the destination */
	/* load: the latency pair, the load patterns (round k: loads[k - 1]),
	 * the background ranks by rank */
	int lat_src, lat_dst, nloads;
	enum sched_kind loads[SCHED_MAX_LOADS];
	int *bg, nbg;
};

/* n ranks; group: NULL or n group numbers (copied).  0 or -ENOMEM/-EINVAL. */
int sched_init(struct sched *s, enum sched_kind kind, int n, bool both_ways, const int *group);
void sched_free(struct sched *s);
/* Round r's links into l (room for n); returns how many. */
int sched_round(const struct sched *s, int r, struct sched_link *l);
/* The most links any round holds (the links that run at once). */
int sched_max_links(const struct sched *s);
const char *sched_name(enum sched_kind k);
/* Incast (or a load's incast) into rank dst: 0 or -EINVAL (not a rank). */
int sched_set_incast(struct sched *s, int dst);
/*
 * Kind load: the pair src -> dst measures, alone and then under each of
 * loads[0..n-1] (pairs, ring or incast) on the other ranks.  Call after
 * sched_set_incast.  0, -ENOMEM, or -EINVAL with *why saying what is wrong.
 */
int sched_set_load(struct sched *s, int src, int dst, const enum sched_kind *loads, int n,
		   const char **why);
/* Load: whether link l runs in the background (not the latency pair's). */
bool sched_is_background(const struct sched *s, const struct sched_link *l);
/* What runs in round r: the pattern's name; load: "idle" or the load's. */
const char *sched_round_name(const struct sched *s, int r);

#endif
