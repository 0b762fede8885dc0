/* rb_mpi's schedules (src/prog/mpi/mpi_schedule.c): every ordered pair exactly
 * once, no rank in two links of one round, the round counts the man page
 * states, for every N from 2 to 4096. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prog/mpi/mpi_schedule.h"
#include "tap.h"

#define N_MAX 4096

static uint64_t seen[(size_t)N_MAX * N_MAX / 64];
static int stamp[N_MAX];
static struct sched_link links[N_MAX];

/* Bit i of seen, set; whether it was set before. */
static int seen_set(size_t i)
{
	uint64_t bit = (uint64_t)1 << (i & 63), had = seen[i >> 6] & bit;

	seen[i >> 6] |= bit;
	return had != 0;
}

/* What went wrong with schedule s, or NULL: each link once (an unordered
 * pair when once_unordered), no rank twice in a round, want links in all. */
static const char *sched_check(const struct sched *s, bool once_unordered, long long want)
{
	int n = s->n;
	long long total = 0;

	memset(seen, 0, ((size_t)n * n + 63) / 64 * 8);
	memset(stamp, 0, (size_t)n * sizeof(int));
	for (int r = 0; r < s->nrounds; r++) {
		int nl = sched_round(s, r, links);

		if (nl < 1)
			return "an empty round";
		for (int i = 0; i < nl; i++) {
			int a = links[i].src, b = links[i].dst;

			if (a < 0 || b < 0 || a >= n || b >= n || a == b)
				return "a link to no rank or to itself";
			if (stamp[a] == r + 1 || stamp[b] == r + 1)
				return "a rank in two links of one round";
			stamp[a] = stamp[b] = r + 1;
			if (seen_set(once_unordered && a > b ? (size_t)b * n + a : (size_t)a * n + b))
				return "a link twice";
		}
		total += nl;
	}
	return total == want ? NULL : "links missing";
}

/* Rounds for N ranks: what is wrong, or NULL.  full: every link checked
 * (O(N^2)); else the round count and three rounds' links (O(N)). */
static const char *rounds_one(int n, bool both_ways, bool full)
{
	struct sched s;
	long long pairs = (long long)n * (n - 1) / (both_ways ? 2 : 1);
	int want = (n % 2 ? n : n - 1) * (both_ways ? 1 : 2);
	const char *why = NULL;

	if (sched_init(&s, SCHED_ROUNDS, n, both_ways, NULL))
		return "sched_init failed";
	if (s.nrounds != want)
		why = "the round count";
	else if (full)
		why = sched_check(&s, both_ways, pairs);
	for (int k = 0; k < 3 && !why && !full; k++) {
		int r = k * (s.nrounds - 1) / 2, nl = sched_round(&s, r, links);

		memset(stamp, 0, (size_t)n * sizeof(int));
		why = nl != n / 2 ? "a round with fewer than N/2 links" : NULL;
		for (int i = 0; i < nl && !why; i++) {
			int a = links[i].src, b = links[i].dst;

			if (a < 0 || b < 0 || a >= n || b >= n || a == b || stamp[a] || stamp[b])
				why = "a round's links not disjoint";
			else
				stamp[a] = stamp[b] = 1;
		}
	}
	sched_free(&s);
	return why;
}

/*
 * Every link of every N up to 4096 is N^3/3 = 2e10 links, minutes: the
 * fast run checks every link for every N up to FULL_MAX and for the N
 * around the powers of two above it, and for the other N the round count
 * and three rounds (first, middle, last); the full run (RB_FULL=1, .ci/run
 * --full) checks every link of every N.  The first N that fails, or 0.
 */
#define FULL_MAX 256

static bool every_n(void)
{
	const char *e = getenv("RB_FULL");

	return e && !strcmp(e, "1");
}

static bool full_at(int n)
{
	return every_n() || n <= FULL_MAX || !((n - 1) & (n - 2)) || !(n & (n - 1)) ||
	       !((n + 1) & n);
}

static int rounds_all(bool both_ways, const char **why)
{
	for (int n = 2; n <= N_MAX; n++)
		if ((*why = rounds_one(n, both_ways, full_at(n))))
			return n;
	return 0;
}

static void test_rounds(void)
{
	const char *why = NULL;
	int bad = rounds_all(false, &why);

	ok(!bad, "rounds, N = 2..%d: 2(N-1) rounds (even N), 2N (odd N); disjoint links; each ordered pair once (every link checked for %s)",
	   N_MAX, every_n() ? "every N (RB_FULL=1)" : "N <= 256 and N = 2^k-1, 2^k, 2^k+1; RB_FULL=1: every N");
	if (bad)
		printf("#   N = %d: %s\n", bad, why);
	bad = rounds_all(true, &why);
	ok(!bad, "rounds -b, N = 2..%d: N-1 rounds (even N), N (odd N); disjoint links; each unordered pair once (the same N in full)", N_MAX);
	if (bad)
		printf("#   N = %d: %s\n", bad, why);
}

static void test_sequential(void)
{
	struct sched s;
	const char *why = "sched_init failed";

	if (!sched_init(&s, SCHED_SEQUENTIAL, 7, false, NULL)) {
		why = s.nrounds != 42 ? "the round count" : sched_check(&s, false, 42);
		sched_free(&s);
	}
	ok(!why, "sequential, N = 7: 42 rounds of one link, each ordered pair once");
	if (why)
		printf("#   %s\n", why);
}

/* shift: round k is i -> i+k for every i; each ordered pair once over all rounds */
static void test_shift(void)
{
	struct sched s;
	int bad = 0;

	for (int n = 2; n <= 64 && !bad; n++) {
		long long total = 0;

		if (sched_init(&s, SCHED_SHIFT, n, false, NULL)) {
			bad = n;
			break;
		}
		memset(seen, 0, ((size_t)n * n + 63) / 64 * 8);
		for (int r = 0; r < s.nrounds; r++) {
			int nl = sched_round(&s, r, links);

			for (int i = 0; i < nl && !bad; i++)
				if (links[i].dst != (links[i].src + r + 1) % n ||
				    seen_set((size_t)links[i].src * n + links[i].dst))
					bad = n;
			total += nl;
		}
		if (s.nrounds != n - 1 || total != (long long)n * (n - 1))
			bad = n;
		sched_free(&s);
	}
	ok(!bad, "shift, N = 2..64: N-1 rounds, round k is i -> i+k, each ordered pair once");
	if (bad)
		printf("#   N = %d\n", bad);
}

/* With groups: the same guarantees, the links inside groups first. */
static const char *groups_check(int n, int per_group)
{
	int group[N_MAX];
	struct sched s;
	const char *why;

	for (int i = 0; i < n; i++)
		group[i] = (i * 7 % n) / per_group;   /* groups not in rank order */
	if (sched_init(&s, SCHED_ROUNDS, n, false, group))
		return "sched_init failed";
	why = sched_check(&s, false, (long long)n * (n - 1));
	for (int r = 0; r < s.nrounds && !why; r++) {
		int nl = sched_round(&s, r, links);

		for (int i = 0; i < nl && !why; i++)
			if ((group[links[i].src] == group[links[i].dst]) != (r < s.intra_rounds))
				why = "a link across groups among the rounds inside groups, or the reverse";
	}
	if (!why && s.nrounds > 2 * (per_group + 1) + 2 * n)
		why = "more rounds than inside + across";
	sched_free(&s);
	return why;
}

static void test_groups(void)
{
	static const int sizes[][2] = { { 2, 1 }, { 6, 3 }, { 8, 4 }, { 9, 4 }, { 16, 5 }, { 64, 16 },
					{ 100, 7 }, { 255, 32 }, { 256, 256 } };
	const char *why = NULL;
	int i;

	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])) && !why; i++)
		why = groups_check(sizes[i][0], sizes[i][1]);
	ok(!why, "rounds with groups: each ordered pair once, disjoint, inside groups first, then across");
	if (why)
		printf("#   N = %d, %d a group: %s\n", sizes[i - 1][0], sizes[i - 1][1], why);
}

static void test_fixed(void)
{
	struct sched s;
	int group[6] = { 1, 0, 1, 0, 1, 0 }, nl;

	ok(!sched_init(&s, SCHED_RING, 5, false, NULL) && s.nrounds == 1 &&
	   sched_round(&s, 0, links) == 5 && links[4].src == 4 && links[4].dst == 0,
	   "ring, N = 5: one round, 4 -> 0 closes it");
	sched_free(&s);
	ok(!sched_init(&s, SCHED_BISECTION, 6, false, group) && s.nrounds == 1 &&
	   (nl = sched_round(&s, 0, links)) == 3 && links[0].src == 1 && links[0].dst == 0 &&
	   links[2].src == 5 && links[2].dst == 4,
	   "bisection with groups: the first group's ranks to the second's");
	sched_free(&s);
	ok(sched_init(&s, SCHED_ROUNDS, 1, false, NULL) == -EINVAL, "one rank: no schedule (-EINVAL)");
	group[0] = 6;
	ok(sched_init(&s, SCHED_ROUNDS, 6, false, group) == -EINVAL, "a group number past N: -EINVAL");
}

/* Incast into dst over n ranks: one round, every other rank to dst once. */
static const char *incast_one(int n, int dst)
{
	struct sched s;
	const char *why = NULL;
	int nl;

	if (sched_init(&s, SCHED_INCAST, n, false, NULL) || sched_set_incast(&s, dst))
		return "sched_init or sched_set_incast failed";
	nl = sched_round(&s, 0, links);
	if (s.nrounds != 1 || nl != n - 1 || sched_max_links(&s) != n - 1)
		why = "not one round of N-1 links";
	memset(stamp, 0, (size_t)n * sizeof(int));
	for (int i = 0; i < nl && !why; i++) {
		if (links[i].dst != dst || links[i].src == dst || links[i].src < 0 || links[i].src >= n)
			why = "a link not into the destination";
		else if (stamp[links[i].src]++)
			why = "a sender twice";
	}
	sched_free(&s);
	return why;
}

static void test_incast(void)
{
	const char *why = NULL;
	int n, dst = 0;
	struct sched s;

	for (n = 2; n <= N_MAX && !why; n = n < 64 ? n + 1 : n * 2)
		for (dst = 0; dst < n && !why; dst += dst < 2 ? 1 : n / 3 + 1)
			why = incast_one(n, dst);
	ok(!why, "incast: one round, every other rank into the destination once, N-1 links at once");
	if (why)
		printf("#   N = %d, destination %d: %s\n", n, dst, why);
	ok(!sched_init(&s, SCHED_INCAST, 4, false, NULL) && sched_set_incast(&s, 4) == -EINVAL &&
	   sched_set_incast(&s, -1) == -EINVAL && s.incast_dst == 0,
	   "incast: a destination past N is refused (-EINVAL), rank 0 stays");
	sched_free(&s);
}

/* Load rounds over n ranks: what is wrong, or NULL. */
static const char *load_check(const struct sched *s, int nbg_links_want[])
{
	for (int r = 0; r < s->nrounds; r++) {
		int nl = sched_round(s, r, links);

		if (nl < 1 || links[0].src != s->lat_src || links[0].dst != s->lat_dst ||
		    sched_is_background(s, &links[0]))
			return "a round without the latency pair first";
		if (nl - 1 != nbg_links_want[r])
			return "a round's background link count";
		for (int i = 1; i < nl; i++)
			if (!sched_is_background(s, &links[i]) || links[i].src == s->lat_src ||
			    links[i].src == s->lat_dst || links[i].src == links[i].dst)
				return "a background link from the pair or to itself";
	}
	return NULL;
}

static void test_load(void)
{
	const enum sched_kind all[] = { SCHED_ROUNDS, SCHED_RING, SCHED_INCAST }, bad[] = { SCHED_SHIFT },
			      twice[] = { SCHED_RING, SCHED_RING };
	int want6[] = { 0, 2, 4, 4 }, want4[] = { 0, 1, 2, 2 };
	const char *why = NULL;
	struct sched s;

	ok(!sched_init(&s, SCHED_LOAD, 6, false, NULL) && !sched_set_incast(&s, 1) &&
	   !sched_set_load(&s, 0, 1, all, 3, &why) && s.nrounds == 4 && !load_check(&s, want6) &&
	   sched_max_links(&s) == 5 && !strcmp(sched_round_name(&s, 0), "idle") &&
	   !strcmp(sched_round_name(&s, 3), "incast"),
	   "load, N = 6: idle, then pairs (2), ring (4), incast into the pair's destination (4)");
	sched_round(&s, 3, links);
	ok(links[1].src == 2 && links[1].dst == 1 && links[4].src == 5 && links[4].dst == 1,
	   "load incast: the background ranks 2..5 into rank 1");
	sched_free(&s);
	ok(!sched_init(&s, SCHED_LOAD, 4, false, NULL) && !sched_set_incast(&s, 3) &&
	   !sched_set_load(&s, 3, 0, all, 3, &why) && !load_check(&s, want4),
	   "load, N = 4, pair 3 -> 0: pairs (1), ring of two (2), incast into the pair's 0 (2)");
	sched_free(&s);
	ok(!sched_init(&s, SCHED_LOAD, 4, false, NULL) && !sched_set_incast(&s, 2) &&
	   sched_set_load(&s, 0, 1, all + 2, 1, &why) == 0 && sched_round(&s, 1, links) == 2 &&
	   links[1].src == 3 && links[1].dst == 2, "load incast into a background rank: the others into it");
	sched_free(&s);
	sched_init(&s, SCHED_LOAD, 3, false, NULL);
	ok(sched_set_load(&s, 0, 1, all, 1, &why) == -EINVAL && why, "load, N = 3: pairs refused (%s)", why);
	sched_free(&s);
	sched_init(&s, SCHED_LOAD, 4, false, NULL);
	ok(sched_set_load(&s, 0, 0, all, 1, &why) == -EINVAL && sched_set_load(&s, 0, 4, all, 1, &why) == -EINVAL &&
	   sched_set_load(&s, 0, 1, bad, 1, &why) == -EINVAL && sched_set_load(&s, 0, 1, twice, 2, &why) == -EINVAL,
	   "load: a pair of one rank or past N, shift, a pattern twice: refused");
	sched_free(&s);
}

int main(void)
{
	test_rounds();
	test_sequential();
	test_shift();
	test_groups();
	test_fixed();
	test_incast();
	test_load();
	return tap_done();
}
