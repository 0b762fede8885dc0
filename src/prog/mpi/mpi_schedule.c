#include "prog/mpi/mpi_schedule.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *sched_name(enum sched_kind k)
{
	static const char *const names[] = { "pairs", "pairs", "ring", "bisection", "shift",
					     "incast", "load" };

	return names[k];
}

/* The circle method's rounds over g members: M-1 (M = g rounded up to
 * even), twice that when each direction is its own link. */
static int circle_rounds(int g, bool both_ways)
{
	int m = g + (g & 1) - 1;

	if (g < 2)
		return 0;
	return both_ways ? m : 2 * m;
}

static int load_count(const struct sched *s, enum sched_kind k);

static int member(const int *mem, int i)
{
	return mem ? mem[i] : i;
}

/*
 * Round r of the circle method over g members (mem: their ranks, NULL for
 * 0..g-1): position m = M-1 stays, the others turn; round r pairs m with r
 * and r+i with r-i.  A position past g is the odd member's empty seat.  In
 * rounds m..2m-1 the same pairs run the other way.
 */
static int circle_round(const int *mem, int g, bool both_ways, int r, struct sched_link *l)
{
	int m = g + (g & 1) - 1, n = 0;
	bool flip = !both_ways && r >= m;

	if (r >= circle_rounds(g, both_ways))
		return 0;
	r %= m;
	for (int i = 0; i <= m / 2; i++) {
		int a = i ? (r + i) % m : m, b = i ? (r - i + m) % m : r;

		if (a >= g || b >= g)
			continue;
		l[n].src = member(mem, flip ? b : a);
		l[n].dst = member(mem, flip ? a : b);
		n++;
	}
	return n;
}

/* Rounds, groups: round r inside every group at once. */
static int intra_round(const struct sched *s, int r, struct sched_link *l)
{
	int n = 0;

	for (int g = 0; g < s->ngroups; g++) {
		int start = s->group_start[g];

		n += circle_round(s->by_group + start, s->group_start[g + 1] - start, s->both_ways,
				  r, l + n);
	}
	return n;
}

/* Rounds, groups: a circle round over all ranks, less its links inside a group. */
static int inter_round(const struct sched *s, int circle, struct sched_link *l)
{
	int n = circle_round(NULL, s->n, s->both_ways, circle, l), kept = 0;

	for (int i = 0; i < n; i++)
		if (s->group[l[i].src] != s->group[l[i].dst])
			l[kept++] = l[i];
	return kept;
}

static int rounds_round(const struct sched *s, int r, struct sched_link *l)
{
	if (!s->group)
		return circle_round(NULL, s->n, s->both_ways, r, l);
	if (r < s->intra_rounds)
		return intra_round(s, r, l);
	return inter_round(s, s->inter_round[r - s->intra_rounds], l);
}

static int sequential_round(const struct sched *s, int r, struct sched_link *l)
{
	int n = s->n;

	l[0].src = r / (n - 1);
	l[0].dst = r % (n - 1) < l[0].src ? r % (n - 1) : r % (n - 1) + 1;
	return 1;
}

/* Every rank i to i+k: ring is k = 1, shift's round r is k = r+1. */
static int shift_round(const struct sched *s, int k, struct sched_link *l)
{
	for (int i = 0; i < s->n; i++)
		l[i] = (struct sched_link){ i, (i + k) % s->n };
	return s->n;
}

static int bisection_round(const struct sched *s, struct sched_link *l)
{
	int half = s->n / 2;

	for (int i = 0; i < half; i++)
		l[i] = (struct sched_link){ member(s->by_group, i), member(s->by_group, i + half) };
	return half;
}

/* Every rank but the destination to it, ranks from mem (NULL: 0..n-1). */
static int incast_round(const int *mem, int n, int dst, struct sched_link *l)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (member(mem, i) != dst)
			l[k++] = (struct sched_link){ member(mem, i), dst };
	return k;
}

/* A load pattern over the background ranks. */
static int load_links(const struct sched *s, enum sched_kind k, struct sched_link *l)
{
	int m = s->nbg, n = 0;

	if (k == SCHED_INCAST)
		return incast_round(s->bg, m, s->incast_dst, l);
	for (int i = 0; i + 1 < m || (k == SCHED_RING && i < m); i += k == SCHED_RING ? 1 : 2)
		l[n++] = (struct sched_link){ s->bg[i], s->bg[(i + 1) % m] };
	return n;
}

static int load_round(const struct sched *s, int r, struct sched_link *l)
{
	l[0] = (struct sched_link){ s->lat_src, s->lat_dst };
	return r == 0 ? 1 : 1 + load_links(s, s->loads[r - 1], l + 1);
}

int sched_round(const struct sched *s, int r, struct sched_link *l)
{
	if (r < 0 || r >= s->nrounds)
		return 0;
	switch (s->kind) {
	case SCHED_ROUNDS:
		return rounds_round(s, r, l);
	case SCHED_SEQUENTIAL:
		return sequential_round(s, r, l);
	case SCHED_RING:
		return shift_round(s, 1, l);
	case SCHED_BISECTION:
		return bisection_round(s, l);
	case SCHED_SHIFT:
		return shift_round(s, r + 1, l);
	case SCHED_INCAST:
		return incast_round(NULL, s->n, s->incast_dst, l);
	case SCHED_LOAD:
		return load_round(s, r, l);
	}
	return 0;
}

/* The ranks by group (stable: by rank inside a group), and where each group starts. */
static int groups_index(struct sched *s)
{
	int n = s->n;

	for (int i = 0; i < n; i++)
		s->ngroups = s->group[i] + 1 > s->ngroups ? s->group[i] + 1 : s->ngroups;
	s->by_group = calloc((size_t)n, sizeof(int));
	s->group_start = calloc((size_t)s->ngroups + 1, sizeof(int));
	if (!s->by_group || !s->group_start)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		s->group_start[s->group[i] + 1]++;
	for (int g = 0; g < s->ngroups; g++)
		s->group_start[g + 1] += s->group_start[g];
	for (int i = 0, *next = s->group_start; i < n; i++)
		s->by_group[next[s->group[i]]++] = i;
	/* the fill moved each start to the next group's: back one group */
	memmove(s->group_start + 1, s->group_start, (size_t)s->ngroups * sizeof(int));
	s->group_start[0] = 0;
	return 0;
}

/* Rounds with groups: how many rounds inside groups, which circle rounds cross them. */
static int groups_rounds(struct sched *s)
{
	int all = circle_rounds(s->n, s->both_ways), ninter = 0;
	struct sched_link *l = calloc((size_t)s->n, sizeof(*l));

	s->inter_round = calloc((size_t)all + 1, sizeof(int));
	if (!l || !s->inter_round) {
		free(l);
		return -ENOMEM;
	}
	for (int g = 0; g < s->ngroups; g++) {
		int r = circle_rounds(s->group_start[g + 1] - s->group_start[g], s->both_ways);

		s->intra_rounds = r > s->intra_rounds ? r : s->intra_rounds;
	}
	for (int c = 0; c < all; c++)
		if (inter_round(s, c, l))
			s->inter_round[ninter++] = c;
	free(l);
	s->nrounds = s->intra_rounds + ninter;
	return 0;
}

static int groups_init(struct sched *s, const int *group)
{
	s->group = malloc((size_t)s->n * sizeof(int));
	if (!s->group)
		return -ENOMEM;
	for (int i = 0; i < s->n; i++) {
		if (group[i] < 0 || group[i] >= s->n)
			return -EINVAL;
		s->group[i] = group[i];
	}
	return groups_index(s);
}

int sched_init(struct sched *s, enum sched_kind kind, int n, bool both_ways, const int *group)
{
	static const int fixed[] = { [SCHED_RING] = 1, [SCHED_BISECTION] = 1, [SCHED_INCAST] = 1,
				     [SCHED_LOAD] = 1 };
	int err = 0;

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->n = n;
	s->both_ways = both_ways;
	if (n < 2)
		return -EINVAL;
	if (group)
		err = groups_init(s, group);
	if (err) {
		sched_free(s);
		return err;
	}
	if (kind == SCHED_ROUNDS && group)
		err = groups_rounds(s);
	else if (kind == SCHED_ROUNDS)
		s->nrounds = circle_rounds(n, both_ways);
	else
		s->nrounds = kind == SCHED_SEQUENTIAL ? n * (n - 1) : kind == SCHED_SHIFT ? n - 1 : fixed[kind];
	if (err)
		sched_free(s);
	return err;
}

int sched_max_links(const struct sched *s)
{
	int most = 1;

	switch (s->kind) {
	case SCHED_INCAST:
		return s->n - 1;
	case SCHED_LOAD:
		/* the pair, and the most links a load pattern gives */
		for (int i = 0; i < s->nloads; i++)
			most = load_count(s, s->loads[i]) + 1 > most ? load_count(s, s->loads[i]) + 1 : most;
		return most;
	case SCHED_ROUNDS:
		return s->n / 2;
	case SCHED_SEQUENTIAL:
		return 1;
	case SCHED_BISECTION:
		return s->n / 2;
	default:
		return s->n;
	}
}

void sched_free(struct sched *s)
{
	free(s->group);
	free(s->by_group);
	free(s->group_start);
	free(s->inter_round);
	free(s->bg);
	s->group = s->by_group = s->group_start = s->inter_round = s->bg = NULL;
}

int sched_set_incast(struct sched *s, int dst)
{
	if (dst < 0 || dst >= s->n)
		return -EINVAL;
	s->incast_dst = dst;
	return 0;
}

/* How many links load pattern k gives over the background ranks. */
static int load_count(const struct sched *s, enum sched_kind k)
{
	bool dst_in_bg = false;

	for (int i = 0; i < s->nbg; i++)
		dst_in_bg |= s->bg[i] == s->incast_dst;
	if (k == SCHED_INCAST)
		return s->nbg - dst_in_bg;
	return k == SCHED_RING ? (s->nbg > 1 ? s->nbg : 0) : s->nbg / 2;
}

static const char *load_check(const struct sched *s, int src, int dst, const enum sched_kind *loads,
			      int n)
{
	if (src < 0 || dst < 0 || src >= s->n || dst >= s->n || src == dst)
		return "the latency pair is not two ranks of the job";
	if (n < 1 || n > SCHED_MAX_LOADS)
		return "one to three load patterns";
	for (int i = 0; i < n; i++) {
		if (loads[i] != SCHED_ROUNDS && loads[i] != SCHED_RING && loads[i] != SCHED_INCAST)
			return "a load pattern is pairs, ring or incast";
		for (int j = 0; j < i; j++)
			if (loads[j] == loads[i])
				return "a load pattern given twice";
	}
	return NULL;
}

int sched_set_load(struct sched *s, int src, int dst, const enum sched_kind *loads, int n,
		   const char **why)
{
	*why = load_check(s, src, dst, loads, n);
	if (*why)
		return -EINVAL;
	free(s->bg);
	s->bg = calloc((size_t)s->n, sizeof(int));
	if (!s->bg)
		return -ENOMEM;
	s->lat_src = src;
	s->lat_dst = dst;
	s->nbg = 0;
	for (int i = 0; i < s->n; i++)
		if (i != src && i != dst)
			s->bg[s->nbg++] = i;
	s->nloads = n;
	memcpy(s->loads, loads, (size_t)n * sizeof(*loads));
	s->nrounds = 1 + n;
	for (int i = 0; i < n && !*why; i++)
		if (load_count(s, loads[i]) < 1)
			*why = loads[i] == SCHED_INCAST ? "leaves no rank to send to the incast destination" :
			       "leaves fewer than two ranks for the load (mpirun -np 4 or more)";
	return *why ? -EINVAL : 0;
}

bool sched_is_background(const struct sched *s, const struct sched_link *l)
{
	return s->kind == SCHED_LOAD && !(l->src == s->lat_src && l->dst == s->lat_dst);
}

const char *sched_round_name(const struct sched *s, int r)
{
	if (s->kind != SCHED_LOAD)
		return sched_name(s->kind == SCHED_SEQUENTIAL ? SCHED_ROUNDS : s->kind);
	return r <= 0 || r > s->nloads ? "idle" : sched_name(s->loads[r - 1]);
}
