#include "verbs/cm.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "lib/clock.h"
#include "lib/explain.h"
#include "lib/log.h"
#include "lib/oob.h"
#include "session/run.h"

struct rb_cm {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen;
	struct rdma_cm_id **ids;
	int n, requests, established;
	struct sockaddr_storage dst, src;   /* client: the server, --source-ip */
	unsigned req_depth;             /* the client's offer: its smaller depth */
};

static int cm_timeout_ms(const struct rb_session *s)
{
	return (int)(s->opt->timeout_s * 1000);
}

/* Wait for the next event up to the deadline; the caller acks it. */
static int cm_next_event(struct rb_session *s, struct rdma_cm_event **ev, const char *phase)
{
	struct pollfd p = { .fd = s->cm->ec->fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, cm_timeout_ms(s));
	while (r < 0 && errno == EINTR && !rb_stop);
	if (r == 0) {
		log_err("rdma_cm: %s: no event within %.1f s (--timeout)", phase, s->opt->timeout_s);
		return -ETIMEDOUT;
	}
	if (r < 0)
		return -errno;
	if (rdma_get_cm_event(s->cm->ec, ev)) {
		log_err("rdma_cm: %s: rdma_get_cm_event failed: %s", phase, strerror(errno));
		return -errno;
	}
	return 0;
}

static int cm_expect(struct rb_session *s, enum rdma_cm_event_type want, const char *phase)
{
	struct rdma_cm_event *ev;
	int err = cm_next_event(s, &ev, phase);

	if (err)
		return err;
	if (ev->event != want) {
		log_err("rdma_cm: %s: got %s (status %d), expected %s", phase, rdma_event_str(ev->event),
			ev->status, rdma_event_str(want));
		err = -ECONNREFUSED;
	}
	rdma_ack_cm_event(ev);
	return err;
}

static int cm_alloc(struct rb_session *s)
{
	s->cm = calloc(1, sizeof(*s->cm));
	if (!s->cm)
		return -ENOMEM;
	s->cm->n = s->q.n ? s->q.n : (int)s->opt->qps;
	s->cm->ids = calloc((size_t)s->cm->n, sizeof(*s->cm->ids));
	s->cm->ec = rdma_create_event_channel();
	if (!s->cm->ids || !s->cm->ec) {
		log_err("rdma_cm: rdma_create_event_channel failed: %s", strerror(errno));
		return -ENOMEM;
	}
	return 0;
}

/*
 * An id bound to addr (NULL: none for RC, the wildcard for UC).
 * rdma_create_id() only makes RC ids (RDMA_PS_TCP); the kernel matches a
 * connect request to a listener of the same QP type and sets up the QP with
 * that type's attributes, so a UC id must come from rdma_create_ep() in the
 * IB port space, which binds it.  It is then moved to our event channel.
 */
static int cm_create_id(struct rb_session *s, struct rdma_cm_id **id, struct sockaddr *addr,
			int family)
{
	struct sockaddr_storage any = { .ss_family = (sa_family_t)family };
	struct rdma_addrinfo ai = {
		.ai_flags = RAI_PASSIVE, .ai_family = family, .ai_qp_type = IBV_QPT_UC,
		.ai_port_space = RDMA_PS_IB,
		.ai_src_len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
		.ai_src_addr = addr ? addr : (struct sockaddr *)&any,
	};
	int err;

	if (s->opt->transport != TR_UC) {
		if (!rdma_create_id(s->cm->ec, id, NULL, RDMA_PS_TCP) && (!addr || !rdma_bind_addr(*id, addr)))
			return 0;
	} else if (!rdma_create_ep(id, &ai, NULL, NULL)) {
		if (!rdma_migrate_id(*id, s->cm->ec))
			return 0;
		err = errno;
		rdma_destroy_ep(*id);
		*id = NULL;
		errno = err;
	}
	return -errno;
}

static int cm_option_failed(const char *what)
{
	log_err("rdma_cm: rdma_set_option %s failed: %s (is librdmacm or the kernel too old?)",
		what, strerror(errno));
	return -EOPNOTSUPP;
}

/*
 * Before the route is resolved (client) or the QP is made ready (server).
 * The ToS (--tclass) goes into the path record rdma_cm builds: on RoCE it
 * is the GRH traffic class (the IP header's TOS byte), from which the
 * kernel also derives the SL; on InfiniBand it is the SA query's QoS
 * class; the connect request carries the path to the server.  The ack
 * timeout (-u, RC only, as perftest) is what rdma_init_qp_attr() then
 * returns for RTS.
 */
static int cm_set_options(const struct rb_session *s, struct rdma_cm_id *id)
{
	const struct rb_options *o = s->opt;
	uint8_t tos = (uint8_t)o->tclass, timeout = (uint8_t)o->qp_timeout;

	if (o->tclass >= 0 && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)))
		return cm_option_failed("--tclass (RDMA_OPTION_ID_TOS)");
	if (o->transport == TR_RC &&
	    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof(timeout)))
		return cm_option_failed("-u/--qp-timeout (RDMA_OPTION_ID_ACK_TIMEOUT)");
	return 0;
}

static int cm_resolve(struct rb_session *s, struct rdma_cm_id *id)
{
	int err = rdma_resolve_addr(id, NULL, (struct sockaddr *)&s->cm->dst, cm_timeout_ms(s));

	if (err) {
		log_err("rdma_cm: rdma_resolve_addr(%s) failed: %s", s->opt->server, strerror(errno));
		return -errno;
	}
	err = cm_expect(s, RDMA_CM_EVENT_ADDR_RESOLVED, "resolving the server's address");
	if (!err)
		err = cm_set_options(s, id);
	if (!err && rdma_resolve_route(id, cm_timeout_ms(s))) {
		log_err("rdma_cm: rdma_resolve_route failed: %s", strerror(errno));
		return -errno;
	}
	return err ? err : cm_expect(s, RDMA_CM_EVENT_ROUTE_RESOLVED, "resolving the route");
}

static int cm_lookup(const char *host, unsigned port, int family, struct sockaddr_storage *ss,
		     const char *what)
{
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM }, *ai;
	char sport[8];
	int err;

	snprintf(sport, sizeof(sport), "%u", port);
	err = getaddrinfo(host, sport, &hints, &ai);
	if (err) {
		log_err("rdma_cm: cannot resolve %s %s%s: %s", what, host,
			family == AF_UNSPEC ? "" : " in --source-ip's address family", gai_strerror(err));
		return -EHOSTUNREACH;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static int cm_source_failed(const struct rb_session *s, int err)
{
	log_err("--source-ip %s: rdma_cm cannot bind to it: %s", s->opt->source_ip, strerror(-err));
	log_info("it must be an address of an RDMA interface of this host (ip -br addr; rdma link)");
	return -EADDRNOTAVAIL;
}

/*
 * The client's ids, bound to --source-ip when given (perftest binds the
 * id before resolving too).  This runs before the client says it is
 * ready, so a source address that is not here fails at once on both sides.
 */
static int cm_client_ids(struct rb_session *s)
{
	struct rb_cm *cm = s->cm;
	struct sockaddr *src = s->opt->source_ip ? (struct sockaddr *)&cm->src : NULL;
	int err = src ? cm_lookup(s->opt->source_ip, 0, AF_UNSPEC, &cm->src, "--source-ip") : 0;

	if (!err)
		err = cm_lookup(s->opt->server, s->opt->port, src ? cm->src.ss_family : AF_UNSPEC,
				&cm->dst, "the server");
	for (int i = 0; i < cm->n && !err; i++) {
		err = cm_create_id(s, &cm->ids[i], src, cm->dst.ss_family);
		if (err && src)
			return cm_source_failed(s, err);
		if (err)
			log_err("rdma_cm: creating a %s id failed: %s",
				options_transport_name(s->opt->transport), strerror(-err));
	}
	return err;
}

static int cm_resolve_all(struct rb_session *s)
{
	int err = 0;

	for (int i = 0; i < s->cm->n && !err; i++)
		err = cm_resolve(s, s->cm->ids[i]);
	return err;
}

static int cm_listen(struct rb_session *s)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM }, *ai;
	char port[8];
	int err;

	snprintf(port, sizeof(port), "%u", s->opt->port);
	err = getaddrinfo(s->opt->bind_addr, port, &hints, &ai);
	if (err) {
		log_err("rdma_cm: --bind %s: %s", s->opt->bind_addr ? s->opt->bind_addr : "*", gai_strerror(err));
		return -EINVAL;
	}
	err = cm_create_id(s, &s->cm->listen, ai->ai_addr, ai->ai_family);
	if (err)
		log_err("rdma_cm: creating the listening %s id on %s failed: %s",
			options_transport_name(s->opt->transport),
			s->opt->bind_addr ? s->opt->bind_addr : "all addresses", strerror(-err));
	if (!err && rdma_listen(s->cm->listen, s->cm->n)) {
		err = -errno;
		log_err("rdma_cm: listening on port %s failed: %s", port, strerror(errno));
	}
	freeaddrinfo(ai);
	return err;
}

/* Take the next connect request's id (the server's side of one QP). */
static int cm_take_request(struct rb_session *s)
{
	struct rdma_cm_event *ev;
	int err = cm_next_event(s, &ev, "waiting for the client's connect request");

	if (err)
		return err;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		log_err("rdma_cm: got %s while waiting for a connect request", rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
		return -EPROTO;
	}
	s->cm->ids[s->cm->requests++] = ev->id;
	s->cm->req_depth = ev->param.conn.initiator_depth < ev->param.conn.responder_resources ?
			   ev->param.conn.initiator_depth : ev->param.conn.responder_resources;
	rdma_ack_cm_event(ev);
	return 0;
}

/* A connect request that comes before the server listens is rejected (no
 * such service): the client starts only after the server says it listens. */
static int cm_sync_listening(struct rb_session *s)
{
	uint8_t buf[16];
	uint32_t len;
	int err = oob_chan_send(s->chan, WIRE_READY, NULL, 0, cm_timeout_ms(s));

	if (!err)
		err = oob_chan_expect(s->chan, WIRE_READY, buf, sizeof(buf), &len, cm_timeout_ms(s));
	if (err)
		log_err("rdma_cm: the %s did not get ready to connect (it failed or is gone)",
			s->is_client ? "server" : "client");
	return err;
}

int cm_open(struct rb_session *s)
{
	int err = cm_alloc(s);

	if (!err)
		err = s->is_client ? cm_client_ids(s) : cm_listen(s);
	if (!err)
		err = cm_sync_listening(s);
	if (!err && s->is_client)
		err = cm_resolve_all(s);
	if (!err && !s->is_client)
		err = cm_take_request(s);
	if (err)
		return err;
	return device_adopt(s->cm->ids[0]->verbs, s->cm->ids[0]->port_num, s->opt->gid_index, &s->dev);
}

/*
 * The QP is ours (ibv_create_qp), not rdma_cm's (rdma_create_qp): librdmacm
 * then leaves the state transitions to us (cm_qp_ready), which is where
 * -m and -S take effect; rdma_connect/rdma_accept get its number.  The
 * inline policy is the manual path's (qps_create_qp).
 */
static int cm_create_qp(struct rb_session *s, int i)
{
	if (s->cm->ids[i]->verbs != s->dev.ctx) {
		log_err("rdma_cm: QP %d's connection is on another device than QP 0's (%s)", i, s->dev.name);
		return -ENODEV;
	}
	s->q.qp[i] = qps_create_qp(&s->q, s->opt);
	if (!s->q.qp[i]) {
		log_err("rdma_cm: creating QP %d failed", i);
		return -EIO;
	}
	return 0;
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
	unsigned ask = s->q.mtu_ask;
	enum ibv_mtu mtu = ask ? device_mtu_enum((int)ask) : a->path_mtu;

	if (mtu < a->path_mtu)
		a->path_mtu = mtu;
	else if (mtu > a->path_mtu && i == 0)
		log_warn("-m/--mtu %u is larger than rdma_cm's path MTU %d; using %d", ask,
			 device_mtu_bytes(a->path_mtu), device_mtu_bytes(a->path_mtu));
	if (o->sl_given)
		a->ah_attr.sl = (uint8_t)o->sl;
	if (i == 0)
		s->q.cm_sl = a->ah_attr.sl;
	/* rdma_cm's 0 is the longest RNR wait (655 ms); 12 (0.64 ms) as the
	 * manual path, so that -R does not change what an RNR NAK costs */
	if (*mask & IBV_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = 12;
	if (o->tclass >= 0 && a->ah_attr.is_global)
		a->ah_attr.grh.traffic_class = (uint8_t)o->tclass;
	if (!s->is_client)
		a->max_dest_rd_atomic = (uint8_t)s->q.outs;
	/* librdmacm's workaround for an old rdma_ucm bug: on InfiniBand, mask
	 * off bits 21-23 (the kernel's SMAC/VID, which verbs never exposed) */
	if (s->dev.ib_link)
		*mask &= ~0xe00000;
}

/* One state, with the attributes rdma_cm knows (the path, PSNs, access). */
static int cm_qp_step(struct rb_session *s, int i, enum ibv_qp_state state, const char *name)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask = 0, err;

	if (rdma_init_qp_attr(s->cm->ids[i], &a, &mask)) {
		log_err("rdma_cm: rdma_init_qp_attr for %s (QP %d) failed: %s", name, i, strerror(errno));
		return -EPROTO;
	}
	if (state == IBV_QPS_RTR)
		cm_override_rtr(s, i, &a, &mask);
	if (state == IBV_QPS_RTS && !s->is_client)
		a.max_rd_atomic = (uint8_t)s->q.outs;
	err = ibv_modify_qp(s->q.qp[i], &a, mask);
	if (err) {
		const struct explain *e = explain_qp(name, err);

		log_err("rdma_cm: ibv_modify_qp to %s (QP %d, QPN 0x%06x) failed: %s: likely %s; check %s",
			name, i, s->q.qp[i]->qp_num, strerror(err), e->causes, e->check);
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
		.responder_resources = (uint8_t)s->q.outs,
		.initiator_depth = (uint8_t)s->q.outs,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.qp_num = s->q.qp[i]->qp_num,
	};
}

static int cm_connect_one(struct rb_session *s, int i)
{
	struct rdma_conn_param p = cm_param(s, i);
	int err = 0;

	if (rdma_connect(s->cm->ids[i], &p)) {
		log_err("rdma_cm: rdma_connect failed: %s", strerror(errno));
		return -errno;
	}
	err = cm_expect(s, RDMA_CM_EVENT_CONNECT_RESPONSE, "connecting (is the server running with -R?)");
	if (!err)
		err = cm_qp_ready(s, i);
	if (!err && rdma_establish(s->cm->ids[i])) {
		log_err("rdma_cm: rdma_establish failed: %s", strerror(errno));
		return -errno;
	}
	return err;
}

static int cm_connect_client(struct rb_session *s)
{
	int err = 0;

	for (int i = 0; i < s->cm->n && !err; i++) {
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
	int err = cm_set_options(s, s->cm->ids[i]);

	if (!err)
		err = cm_qp_ready(s, i);
	if (err)
		return err;
	p = cm_param(s, i);
	if (rdma_accept(s->cm->ids[i], &p)) {
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
	if (s->opt->transport != TR_RC || s->cm->req_depth >= s->q.outs)
		return;
	if (s->opt->outs > s->cm->req_depth)
		log_warn("-o/--outs %u is more than the client offers (its device or -o); using %u",
			 s->opt->outs, s->cm->req_depth);
	s->q.outs = s->cm->req_depth;
}

static int cm_connect_server(struct rb_session *s)
{
	int err = 0;

	cm_server_outs(s);
	for (int i = 0; i < s->cm->n && !err; i++) {
		if (i >= s->cm->requests)
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
		qps_read_outs(&s->q);
	return err;
}

const char *cm_local_addr(const struct rb_session *s, char *buf, size_t len)
{
	struct sockaddr *sa = s->cm && s->cm->ids[0] ? rdma_get_local_addr(s->cm->ids[0]) : NULL;
	socklen_t sl = sa && sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	if (!sa || getnameinfo(sa, sl, buf, (socklen_t)len, NULL, 0, NI_NUMERICHOST))
		snprintf(buf, len, "unknown");
	return buf;
}

void cm_close(struct rb_session *s)
{
	struct rb_cm *cm = s->cm;

	for (int i = cm->n - 1; i >= 0; i--) {
		if (!cm->ids || !cm->ids[i])
			continue;
		rdma_disconnect(cm->ids[i]);
		rdma_destroy_id(cm->ids[i]);
	}
	if (cm->listen)
		rdma_destroy_id(cm->listen);
	if (cm->ec)
		rdma_destroy_event_channel(cm->ec);
	free(cm->ids);
	free(cm);
	s->cm = NULL;
}
