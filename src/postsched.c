#include "postsched.h"

/*
 * The -Q a size runs with.  Without -Q, ask for a completion at least every
 * 1 MiB: with 8 MiB messages, 100 of them between completions is 800 MB of
 * silence on a slow link, which the stall deadline would take for a dead
 * peer.  A -Q given is kept at every size.
 */
unsigned psched_cq_mod(unsigned cq_mod, bool given, uint64_t size)
{
	uint64_t per_mib = size >= (1u << 20) ? 1 : (1u << 20) / size;

	if (given || per_mib >= cq_mod)
		return cq_mod;
	return (unsigned)per_mib;
}

void psched_init(struct psched *p, unsigned depth, unsigned list, unsigned cq_mod)
{
	*p = (struct psched){ .depth = depth, .list = list, .cq_mod = cq_mod ? cq_mod : 1,
			      .keep = list < depth ? depth - list : 0 };
}

void psched_qp_init(struct psched_qp *c, uint64_t target)
{
	*c = (struct psched_qp){ .target = target };
}

/*
 * Which WRs of a post of k signal, with u unsignalled WRs already behind the
 * last signalled one: every cq_mod-th counted from that one, then the
 * post's last WR if it is the run's last (final) or if the post would leave
 * more than keep unsignalled.  One division at most, and only for a post
 * that holds two -Q signals or more.
 */
static void plan_signals(const struct psched *p, struct psched_post *pl, unsigned u, bool final)
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

/* A whole list once it fits, or all that is left once that fits. */
unsigned psched_plan(const struct psched *p, const struct psched_qp *c, struct psched_post *pl)
{
	uint64_t room = p->depth - (c->posted - c->completed);
	uint64_t left = c->target - c->posted;
	unsigned want = left < p->list ? (unsigned)left : p->list;

	pl->k = want && room >= want ? want : 0;
	if (pl->k)
		plan_signals(p, pl, (unsigned)(c->posted - c->signaled), pl->k == left);
	return pl->k;
}

/* A duration run ends: post nothing more, except one signalled WR when
 * unsignalled ones are still out (their completion would never come). */
void psched_stop(struct psched_qp *c)
{
	uint64_t end = c->posted == c->signaled ? c->posted : c->posted + 1;

	if (end < c->target)
		c->target = end;
}
