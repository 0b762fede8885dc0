#include "cm.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "clock.h"
#include "log.h"
#include "oob.h"
#include "run.h"

struct rb_cm {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen;
	struct rdma_cm_id **ids;
	int n, requests, established;
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
	err = errno;
	log_err("rdma_cm: creating %s %s id failed: %s", addr ? "the listening" : "a",
		options_transport_name(s->opt->transport), strerror(err));
	return -err;
}

static int cm_resolve(struct rb_session *s, struct rdma_cm_id *id, struct sockaddr *dst)
{
	int err = rdma_resolve_addr(id, NULL, dst, cm_timeout_ms(s));

	if (err) {
		log_err("rdma_cm: rdma_resolve_addr(%s) failed: %s", s->opt->server, strerror(errno));
		return -errno;
	}
	err = cm_expect(s, RDMA_CM_EVENT_ADDR_RESOLVED, "resolving the server's address");
	if (!err && rdma_resolve_route(id, cm_timeout_ms(s))) {
		log_err("rdma_cm: rdma_resolve_route failed: %s", strerror(errno));
		return -errno;
	}
	return err ? err : cm_expect(s, RDMA_CM_EVENT_ROUTE_RESOLVED, "resolving the route");
}

static int cm_open_client(struct rb_session *s)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	char port[8];
	int err;

	snprintf(port, sizeof(port), "%u", s->opt->port);
	err = getaddrinfo(s->opt->server, port, &hints, &ai);
	if (err) {
		log_err("rdma_cm: cannot resolve %s: %s", s->opt->server, gai_strerror(err));
		return -EHOSTUNREACH;
	}
	for (int i = 0; i < s->cm->n && !err; i++) {
		err = cm_create_id(s, &s->cm->ids[i], NULL, ai->ai_family);
		if (!err)
			err = cm_resolve(s, s->cm->ids[i], ai->ai_addr);
	}
	freeaddrinfo(ai);
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

	if (!err && !s->is_client)
		err = cm_listen(s);
	if (!err)
		err = cm_sync_listening(s);
	if (!err && s->is_client)
		err = cm_open_client(s);
	if (!err && !s->is_client)
		err = cm_take_request(s);
	if (err)
		return err;
	return device_adopt(s->cm->ids[0]->verbs, s->cm->ids[0]->port_num, s->opt->gid_index, &s->dev);
}

static struct ibv_qp *cm_qp_create(void *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return rdma_create_qp(id, pd, attr) ? NULL : ((struct rdma_cm_id *)id)->qp;
}

/* The same inline policy as without -R (qps_create_qp). */
static int cm_create_qp(struct rb_session *s, int i)
{
	s->q.qp[i] = qps_create_qp(&s->q, s->opt, cm_qp_create, s->cm->ids[i]);
	if (!s->q.qp[i]) {
		log_err("rdma_cm: rdma_create_qp %d failed", i);
		return -EIO;
	}
	return 0;
}

static struct rdma_conn_param cm_param(const struct rb_session *s)
{
	return (struct rdma_conn_param){
		.responder_resources = (uint8_t)s->q.outs,
		.initiator_depth = (uint8_t)s->q.outs,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
}

static int cm_connect_client(struct rb_session *s)
{
	struct rdma_conn_param p = cm_param(s);
	int err = 0;

	for (int i = 0; i < s->cm->n && !err; i++) {
		err = cm_create_qp(s, i);
		if (!err && rdma_connect(s->cm->ids[i], &p)) {
			log_err("rdma_cm: rdma_connect failed: %s", strerror(errno));
			err = -errno;
		}
		if (!err)
			err = cm_expect(s, RDMA_CM_EVENT_ESTABLISHED, "connecting (is the server running with -R?)");
	}
	return err;
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
	struct rdma_conn_param p;
	int err = 0;

	cm_server_outs(s);
	p = cm_param(s);

	for (int i = 0; i < s->cm->n && !err; i++) {
		if (i >= s->cm->requests)
			err = cm_take_request(s);
		if (!err)
			err = cm_create_qp(s, i);
		if (!err && rdma_accept(s->cm->ids[i], &p)) {
			log_err("rdma_cm: rdma_accept failed: %s", strerror(errno));
			err = -errno;
		}
		if (!err)
			err = cm_expect(s, RDMA_CM_EVENT_ESTABLISHED, "accepting the client's connection");
	}
	return err;
}

/* rdma_cm chose the path MTU; read it back for the report. */
static void cm_read_mtu(struct rb_session *s)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!ibv_query_qp(s->q.qp[0], &a, IBV_QP_PATH_MTU, &ia))
		s->q.mtu = a.path_mtu;
}

int cm_connect(struct rb_session *s)
{
	int err = s->is_client ? cm_connect_client(s) : cm_connect_server(s);

	if (!err)
		cm_read_mtu(s);
	if (!err)
		qps_read_outs(&s->q);
	return err;
}

void cm_close(struct rb_session *s)
{
	struct rb_cm *cm = s->cm;

	for (int i = cm->n - 1; i >= 0; i--) {
		if (!cm->ids || !cm->ids[i])
			continue;
		rdma_disconnect(cm->ids[i]);
		if (cm->ids[i]->qp)
			rdma_destroy_qp(cm->ids[i]);
		if (s->q.qp && i < s->q.n)
			s->q.qp[i] = NULL;
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
