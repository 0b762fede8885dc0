/*
 * One peer NIC of one local NIC, as the agent probes it: its address
 * (resolved by SIDR: the peer agent's QPN, qkey and epoch, an AH to it),
 * its schedule and its window.
 *
 * States: FIRST (the first resolution under way: nothing scheduled yet),
 * UP (an AH: probes are posted), DOWN (resolution failed and no AH ever:
 * each probe due is counted as sent and, at its timeout, lost: a peer
 * that cannot be reached is loss, not silence).  A peer UP that answers
 * nothing for half a timeout is resolved again, once a second at most (its agent may have restarted
 * on a new QP); a new epoch in the answer turns the probes outstanding to
 * the old one into restarted, and replaces the AH.
 */
#ifndef RB_MESH_PEER_H
#define RB_MESH_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "prog/mesh/mesh_pinglist.h"
#include "prog/mesh/mesh_ud.h"
#include "prog/mesh/mesh_window.h"

enum mp_state { MP_FIRST, MP_UP, MP_DOWN };

struct mesh_peer {
	enum mesh_cm_kind kind;         /* first: MCM_RESOLVE (the resolve id's context) */
	struct mesh_ud *ud;             /* the local NIC's endpoint */
	const struct pl_peer *pp;       /* the pinglist's peer: NIC and tier */
	uint32_t cookie;                /* its index in the agent: echoed by replies */
	uint16_t port;                  /* its agent's rdma_cm port */
	uint64_t my_epoch;
	enum mp_state state;
	struct rdma_cm_id *rid;         /* a resolution under way, or NULL */
	bool rid_done;                  /* its last event seen: destroy after the ack */
	uint64_t resolve_deadline, next_resolve;
	struct ibv_ah *ah;
	uint32_t qpn, qkey;
	uint64_t period_ns, next_send;
	bool active;                    /* probed in this window (cross peers are sampled) */
	struct mesh_win w;
};

/* Start resolving (rdma_cm: address, route, SIDR): 0 or -errno. */
int mp_resolve(struct mesh_peer *p, struct rdma_event_channel *ch, uint64_t now);
/* One rdma_cm event of p's resolution (the caller acks it, then
 * destroys p->rid if p->rid_done). */
void mp_on_event(struct mesh_peer *p, const struct rdma_cm_event *ev, uint64_t now);
/* The tick: a resolution past its deadline abandoned, a new one started
 * when due, the probes due sent (or counted lost when DOWN), timeouts. */
void mp_tick(struct mesh_peer *p, struct rdma_event_channel *ch, uint64_t now);
/* A reply for p: counted in its window. */
void mp_on_reply(struct mesh_peer *p, const struct pw_frame *f, uint64_t now);
void mp_free(struct mesh_peer *p);

#endif
