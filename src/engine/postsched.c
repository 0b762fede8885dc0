#include "engine/postsched.h"

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
	p->sig_at = p->cq_mod < p->keep + 1 ? p->cq_mod : p->keep + 1;
}

void psched_qp_init(struct psched_qp *c, uint64_t target)
{
	*c = (struct psched_qp){ .target = target };
}

/* A duration run ends: post nothing more, except one signalled WR when
 * unsignalled ones are still out (their completion would never come). */
void psched_stop(struct psched_qp *c)
{
	uint64_t end = c->posted == c->signaled ? c->posted : c->posted + 1;

	if (end < c->target)
		c->target = end;
}
