/*
 * What session/cm.c (the ids, their events, open and close) and
 * session/cm_qp.c (the QPs on the ids: connect, accept) share.
 */
#ifndef RB_CM_INTERNAL_H
#define RB_CM_INTERNAL_H

#include <rdma/rdma_cma.h>

#include "session/cm.h"
#include "session/session.h"

struct rb_cm {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen;
	struct rdma_cm_id **ids;
	int n, requests, established;
	struct sockaddr_storage dst, src;   /* client: the server, --source-ip */
	unsigned req_depth;             /* the client's offer: its smaller depth */
};

static inline int cm_timeout_ms(const struct rb_session *s)
{
	return (int)(s->opt->timeout_s * 1000);
}

/* The next event, within --timeout, which must be want; acked. */
int cm_expect(struct rb_session *s, enum rdma_cm_event_type want, const char *phase);
/* -S, --tclass and the like on id, before it connects or accepts. */
int cm_set_options(const struct rb_session *s, struct rdma_cm_id *id);
/* The server: the next connect request's id into s->conn.cm->ids. */
int cm_take_request(struct rb_session *s);

#endif
