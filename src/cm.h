/*
 * -R/--rdma_cm: the QPs are connected by librdmacm instead of by hand.
 * The test parameters and buffer addresses still travel over the TCP
 * out-of-band channel (same port number; rdma_cm's port space is its own).
 * The client resolves the server's address; the server listens on --bind
 * (default: all) and takes its device from the first connect request.
 * RC and UC only.
 */
#ifndef RB_CM_H
#define RB_CM_H

struct rb_session;

/* Get the device context from rdma_cm and adopt it into s->dev. */
int cm_open(struct rb_session *s);
/* Create the QPs on the rdma_cm ids and connect (client) or accept (server). */
int cm_connect(struct rb_session *s);
/* Disconnect, destroy the QPs made by rdma_cm and the ids.  Call before
 * qps_destroy() (the CQs, MR and PD), so the order stays QP -> CQ -> MR -> PD. */
void cm_close(struct rb_session *s);

#endif
