/*
 * One UD endpoint per local NIC (the watch agent's probes and replies).
 *
 * An endpoint is an rdma_cm id bound to the NIC's address and port in
 * RDMA_PS_UDP and listening, so that a peer learns its QPN and qkey by
 * SIDR (mesh_sidr.c) with this agent's epoch in the reply's private data;
 * a UD QP with the port space's qkey (RDMA_UDP_QKEY); one CQ for sends
 * and receives; one MR over its receive slots (GRH + frame) and send slots.
 *
 * Probes that arrive are answered here, at once, from mud_poll (the
 * agent's one thread): the reply goes to the probe's sender by an AH made
 * from the completion (ibv_create_ah_from_wc), kept in a bounded cache
 * keyed by (source GID, QPN).  Replies are handed to the caller's
 * on_reply with the poll's clock.  Every wait is the caller's: nothing
 * here blocks.
 */
#ifndef RB_MESH_UD_H
#define RB_MESH_UD_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "lib/probewire.h"
#include "prog/mesh/mesh.h"

/* What an rdma_cm id's context points to first: whose event it is. */
enum mesh_cm_kind { MCM_LISTEN = 1, MCM_RESOLVE };

struct mesh_ud;

struct mud_stats {
	uint64_t probes_in, replies_out, replies_in, bad_frames, reply_drops, send_errors;
	uint64_t recv_errors, resets;   /* failed receives (a port down), QP resets after them */
};

typedef void (*mud_reply_fn)(void *ctx, const struct pw_frame *f, uint64_t now_ns);

/* 0, or -errno with why (e.g. "rdma_bind_addr 192.0.2.1:18520: ..."). */
int mud_open(struct mesh_ud **u, struct rdma_event_channel *ch, const struct mesh_nic *nic,
	     uint16_t port, uint64_t epoch, int ah_cache, char *why, size_t len);
void mud_close(struct mesh_ud *u);
struct ibv_pd *mud_pd(const struct mesh_ud *u);
const struct mesh_nic *mud_nic(const struct mesh_ud *u);
const struct mud_stats *mud_stats(const struct mesh_ud *u);
/* A SIDR request reached this endpoint's listener (the agent's event
 * loop dispatched it): accept with this QP and the epoch; the caller acks. */
void mud_on_request(struct mesh_ud *u, struct rdma_cm_id *req);
/* The completion channel's fd (non-blocking): readable when the CQ has
 * news.  mud_drain takes the event, re-arms and polls until empty; after
 * a failed receive (a port down flushes them) it resets the QP to RTS and
 * posts every receive again, retrying at each drain until that works. */
int mud_fd(const struct mesh_ud *u);
int mud_drain(struct mesh_ud *u, mud_reply_fn fn, void *ctx);
/* The NIC's address and port as a sockaddr (0 or -EINVAL). */
int mesh_nic_sockaddr(const struct mesh_nic *n, uint16_t port, struct sockaddr_storage *ss);
/* Post a probe: 0, -EAGAIN (every send slot busy), or -errno. */
int mud_probe(struct mesh_ud *u, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey,
	      const struct pw_frame *f);
/* Poll the CQ once (up to a batch): answer probes, hand replies to fn.
 * How many completions, or -errno on a CQ failure. */
int mud_poll(struct mesh_ud *u, mud_reply_fn fn, void *ctx);

#endif
