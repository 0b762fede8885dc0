/* -R: the QPs on rdma_cm's ids (cm_internal.h), connected (client) or accepted (server). */
#include "session/cm_internal.h"

#include <errno.h>
#include <string.h>

#include "lib/explain.h"
#include "lib/log.h"

/*
 * The QP is ours (ibv_create_qp), not rdma_cm's (rdma_create_qp): librdmacm
 * then leaves the state transitions to us (cm_qp_ready), which is where
 * -m and -S take effect; rdma_connect/rdma_accept get its number.  The
 * inline policy is the manual path's (qps_create_qp).
 */
static int cm_create_qp(struct rb_session *s, int i)
{
	if (s->conn.cm->ids[i]->verbs != s->conn.dev.ctx) {
		log_err("rdma_cm: QP %d's connection is on another device than QP 0's (%s)", i, s->conn.dev.name);
		return -ENODEV;
	}
	s->conn.q.qp[i] = qps_create_qp(&s->conn.q, s->opt);
	if (!s->conn.q.qp[i]) {
		log_err("rdma_cm: creating QP %d failed", i);
		return -EIO;
	}
	return 0;
}

/* -L and --flow_label (path.c) on rdma_cm's address vector, as without
 * -R; rdma_cm has no setting for either. */
static void cm_override_path(const struct rb_options *o, int i, struct ibv_ah_attr *ah)
{
	if (!ah->is_global)
		return;
	if (o->hop_limit_given)
		ah->grh.hop_limit = (uint8_t)o->hop_limit;
	if (o->flow_labels)
		ah->grh.flow_label = options_flow_label(o, i);
}

/*
 * What rdma_cm has no setting for goes on top of rdma_init_qp_attr()'s RTR
 * attributes, on this side's QP: -m lowers the path MTU, -S sets the SL,
 * --tclass the traffic class of the address vector (the server's vector
 * comes from the client's connect request: without its own --tclass it
 * keeps the client's ToS).  A responder grants what it accepted with, as
 * librdmacm's rdma_accept() does.  (The path MTU and SL in the connect
 * request stay rdma_cm's: rdma_cm has no option for them short of whole
 * path records, RDMA_OPTION_IB_PATH; so each side applies its own -m and
 * -S, as without -R.)
 */
static void cm_override_rtr(struct rb_session *s, int i, struct ibv_qp_attr *a, int *mask)
{
	const struct rb_options *o = s->opt;
	unsigned ask = s->conn.q.mtu_ask;
	enum ibv_mtu mtu = ask ? device_mtu_enum((int)ask) : a->path_mtu;

	if (mtu < a->path_mtu)
		a->path_mtu = mtu;
	else if (mtu > a->path_mtu && i == 0)
		log_warn("-m/--mtu %u is larger than rdma_cm's path MTU %d; using %d", ask,
			 device_mtu_bytes(a->path_mtu), device_mtu_bytes(a->path_mtu));
	if (o->sl_given)
		a->ah_attr.sl = (uint8_t)o->sl;
	if (i == 0)
		s->conn.q.cm_sl = a->ah_attr.sl;
	/* rdma_cm's 0 is the longest RNR wait (655 ms); 12 (0.64 ms) as the
	 * manual path, so that -R does not change what an RNR NAK costs */
	if (*mask & IBV_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = 12;
	if (o->tclass >= 0 && a->ah_attr.is_global)
		a->ah_attr.grh.traffic_class = (uint8_t)o->tclass;
	cm_override_path(o, i, &a->ah_attr);
	if (!s->is_client)
		a->max_dest_rd_atomic = (uint8_t)s->conn.q.outs;
	/* librdmacm's workaround for an old rdma_ucm bug: on InfiniBand, mask
	 * off bits 21-23 (the kernel's SMAC/VID, which verbs never exposed) */
	if (s->conn.dev.ib_link)
		*mask &= ~0xe00000;
}

/* One state, with the attributes rdma_cm knows (the path, PSNs, access). */
static int cm_qp_step(struct rb_session *s, int i, enum ibv_qp_state state, const char *name)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask = 0, err;

	if (rdma_init_qp_attr(s->conn.cm->ids[i], &a, &mask)) {
		log_err("rdma_cm: rdma_init_qp_attr for %s (QP %d) failed: %s", name, i, strerror(errno));
		return -EPROTO;
	}
	if (state == IBV_QPS_RTR)
		cm_override_rtr(s, i, &a, &mask);
	if (state == IBV_QPS_RTS && !s->is_client)
		a.max_rd_atomic = (uint8_t)s->conn.q.outs;
	err = ibv_modify_qp(s->conn.q.qp[i], &a, mask);
	if (err) {
		const struct explain *e = explain_qp(name, err);

		log_err("rdma_cm: ibv_modify_qp to %s (QP %d, QPN 0x%06x) failed: %s: likely %s; check %s",
			name, i, s->conn.q.qp[i]->qp_num, strerror(err), e->causes, e->check);
	}
	return -err;
}

/* INIT, RTR, RTS as librdmacm does them for its own QPs, on the connect
 * response (client) or before accepting (server). */
static int cm_qp_ready(struct rb_session *s, int i)
{
	int err = cm_qp_step(s, i, IBV_QPS_INIT, "INIT");

	if (!err)
		err = cm_qp_step(s, i, IBV_QPS_RTR, "RTR");
	if (!err)
		err = cm_qp_step(s, i, IBV_QPS_RTS, "RTS");
	return err;
}

static struct rdma_conn_param cm_param(const struct rb_session *s, int i)
{
	return (struct rdma_conn_param){
		.responder_resources = (uint8_t)s->conn.q.outs,
		.initiator_depth = (uint8_t)s->conn.q.outs,
		.retry_count = (uint8_t)s->opt->retry_count,
		.rnr_retry_count = 7,
		.qp_num = s->conn.q.qp[i]->qp_num,
	};
}

static int cm_connect_one(struct rb_session *s, int i)
{
	struct rdma_conn_param p = cm_param(s, i);
	int err = 0;

	if (rdma_connect(s->conn.cm->ids[i], &p)) {
		log_err("rdma_cm: rdma_connect failed: %s", strerror(errno));
		return -errno;
	}
	err = cm_expect(s, RDMA_CM_EVENT_CONNECT_RESPONSE, "connecting (is the server running with -R?)");
	if (!err)
		err = cm_qp_ready(s, i);
	if (!err && rdma_establish(s->conn.cm->ids[i])) {
		log_err("rdma_cm: rdma_establish failed: %s", strerror(errno));
		return -errno;
	}
	return err;
}

static int cm_connect_client(struct rb_session *s)
{
	int err = 0;

	for (int i = 0; i < s->conn.cm->n && !err; i++) {
		err = cm_create_qp(s, i);
		if (!err)
			err = cm_connect_one(s, i);
	}
	return err;
}

/* The QP is ready (RTS) before the accept, as librdmacm's rdma_accept()
 * makes its own; the established event follows the client's RTU. */
static int cm_accept_one(struct rb_session *s, int i)
{
	struct rdma_conn_param p;
	int err = cm_set_options(s, s->conn.cm->ids[i]);

	if (!err)
		err = cm_qp_ready(s, i);
	if (err)
		return err;
	p = cm_param(s, i);
	if (rdma_accept(s->conn.cm->ids[i], &p)) {
		log_err("rdma_cm: rdma_accept failed: %s", strerror(errno));
		return -errno;
	}
	return cm_expect(s, RDMA_CM_EVENT_ESTABLISHED, "accepting the client's connection");
}

/*
 * -o: the client's connect request offers its depth (both sides' -o and
 * its device's limits, see session_outs); the server accepts with the
 * smaller of that and its own, and the client's QP gets the server's
 * values from the reply.  Both read back what their QP got.
 */
static void cm_server_outs(struct rb_session *s)
{
	if (s->opt->transport != TR_RC || s->conn.cm->req_depth >= s->conn.q.outs)
		return;
	if (s->opt->outs > s->conn.cm->req_depth)
		log_warn("-o/--outs %u is more than the client offers (its device or -o); using %u",
			 s->opt->outs, s->conn.cm->req_depth);
	s->conn.q.outs = s->conn.cm->req_depth;
}

static int cm_connect_server(struct rb_session *s)
{
	int err = 0;

	cm_server_outs(s);
	for (int i = 0; i < s->conn.cm->n && !err; i++) {
		if (i >= s->conn.cm->requests)
			err = cm_take_request(s);
		if (!err)
			err = cm_create_qp(s, i);
		if (!err)
			err = cm_accept_one(s, i);
	}
	return err;
}

int cm_connect(struct rb_session *s)
{
	int err = s->is_client ? cm_connect_client(s) : cm_connect_server(s);

	if (!err)
		qps_read_outs(&s->conn.q);
	return err;
}

