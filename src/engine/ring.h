/*
 * The bandwidth loop's work requests (bw.c only): a QP's ring of WR lists
 * (addresses set once per address cycle, postsched.h's plan posted as it
 * is where it can be), or one list whose operands each post sets.
 */
#ifndef RB_ENGINE_RING_H
#define RB_ENGINE_RING_H

#include "engine/internal.h"

/* Where a post that starts with operation posted begins in QP i's WRs:
 * a ring's list (NULL if posted starts none: never, postsched.h), or the
 * one list whose addresses the post sets. */
static struct ibv_send_wr *bw_list_at(const struct post_set *p, int i, uint64_t posted)
{
	struct ibv_send_wr *qp_wrs = &p->wr[(size_t)i * p->ring];
	uint64_t lists = posted / p->list;

	if (!p->fixed)
		return qp_wrs;
	if (posted - lists * p->list)
		return NULL;
	return qp_wrs + lists * p->list % p->ring;
}

/* A ring's next list after first went out with k WRs (p->at: a pointer
 * that steps, no division per post). */
static inline void bw_ring_step(struct post_set *p, int i, struct ibv_send_wr *first, unsigned k)
{
	struct ibv_send_wr *next = first + k;

	p->at[i] = next == &p->wr[(size_t)(i + 1) * p->ring] ? &p->wr[(size_t)i * p->ring] : next;
}

/* Without a ring: each WR's operands (its addresses; --validate's payload, the immediate). */
static inline __attribute__((always_inline)) void
bw_set_operands(struct rb_session *s, const struct post_set *p, int i, struct ibv_send_wr *first,
		unsigned k, uint64_t posted, bool v)
{
	struct wr_cycle cy = wr_cycle_init(s, p, i);

	for (unsigned j = 0; j < k; j++) {
		wr_cycle_set(&cy, &first[j], posted + j);
		if (v)
			wr_stamp(s, i, &first[j], posted + j);
		test_delay(s);
	}
}

/* The template's own signals are the plan's: a whole list whose last WR
 * alone is signalled, for the list (sig_last). */
static inline bool bw_plan_is_template(const struct post_set *p, const struct psched_post *pl)
{
	return p->sig_last && pl->k == p->list && pl->nsig == 1 && pl->next == pl->k - 1 &&
	       pl->from == 0;
}

/* A list's WR j as its template has it: signalled where it ends a list of a
 * sig_last template. */
static void bw_wr_template(const struct post_set *p, int i, struct ibv_send_wr *wr, unsigned j)
{
	bool sig = p->sig_last && j == p->list - 1;

	wr->send_flags = sig ? p->base_flags | IBV_SEND_SIGNALED : p->base_flags;
	wr->wr_id = WR_ID(i, sig ? p->list : 0);
}


#endif
