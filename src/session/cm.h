/*
 * -R/--rdma_cm: the QPs are connected by librdmacm instead of by hand.
 * The test parameters and buffer addresses still travel over the TCP
 * out-of-band channel (same port number; rdma_cm's port space is its own).
 * The client resolves the server's address; the server listens on --bind
 * (default: all) and takes its device from the first connect request.
 * RC and UC only.  The QPs are created and moved to RTS here, with
 * rdma_init_qp_attr()'s attributes and the options on top (see cm_qp.c; the ids and their events: cm.c).
 */
#ifndef RB_SESSION_CM_H
#define RB_SESSION_CM_H

#include <stddef.h>

struct rb_session;

/* Get the device context from rdma_cm and adopt it into s->dev. */
int cm_open(struct rb_session *s);
/* Create the QPs on the rdma_cm ids and connect (client) or accept (server). */
int cm_connect(struct rb_session *s);
/* The local address of the first connection ("10.0.0.1"), in buf. */
const char *cm_local_addr(const struct rb_session *s, char *buf, size_t len);
/* Disconnect and destroy the ids.  Call before qps_destroy(), which
 * destroys the QPs (ours, not rdma_cm's), then CQ -> MR -> PD. */
void cm_close(struct rb_session *s);

#endif
