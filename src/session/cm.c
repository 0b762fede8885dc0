/* -R: rdma_cm's ids and their events (cm_internal.h): open and close. */
#include "session/cm_internal.h"

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


/* Wait for the next event up to the deadline; the caller acks it. */
static int cm_next_event(struct rb_session *s, struct rdma_cm_event **ev, const char *phase)
{
	struct pollfd p = { .fd = s->conn.cm->ec->fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, cm_timeout_ms(s));
	while (r < 0 && errno == EINTR && !*s->stop);
	if (r == 0) {
		log_err("rdma_cm: %s: no event within %.1f s (--timeout)", phase, s->opt->timeout_s);
		return -ETIMEDOUT;
	}
	if (r < 0)
		return -errno;
	if (rdma_get_cm_event(s->conn.cm->ec, ev)) {
		log_err("rdma_cm: %s: rdma_get_cm_event failed: %s", phase, strerror(errno));
		return -errno;
	}
	return 0;
}

int cm_expect(struct rb_session *s, enum rdma_cm_event_type want, const char *phase)
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
	s->conn.cm = calloc(1, sizeof(*s->conn.cm));
	if (!s->conn.cm)
		return -ENOMEM;
	s->conn.cm->n = s->conn.q.n ? s->conn.q.n : (int)s->opt->qps;
	s->conn.cm->ids = calloc((size_t)s->conn.cm->n, sizeof(*s->conn.cm->ids));
	s->conn.cm->ec = rdma_create_event_channel();
	if (!s->conn.cm->ids || !s->conn.cm->ec) {
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
		if (!rdma_create_id(s->conn.cm->ec, id, NULL, RDMA_PS_TCP) && (!addr || !rdma_bind_addr(*id, addr)))
			return 0;
	} else if (!rdma_create_ep(id, &ai, NULL, NULL)) {
		if (!rdma_migrate_id(*id, s->conn.cm->ec))
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
int cm_set_options(const struct rb_session *s, struct rdma_cm_id *id)
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
	int err = rdma_resolve_addr(id, NULL, (struct sockaddr *)&s->conn.cm->dst, cm_timeout_ms(s));

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
	struct rb_cm *cm = s->conn.cm;
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

	for (int i = 0; i < s->conn.cm->n && !err; i++)
		err = cm_resolve(s, s->conn.cm->ids[i]);
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
	err = cm_create_id(s, &s->conn.cm->listen, ai->ai_addr, ai->ai_family);
	if (err)
		log_err("rdma_cm: creating the listening %s id on %s failed: %s",
			options_transport_name(s->opt->transport),
			s->opt->bind_addr ? s->opt->bind_addr : "all addresses", strerror(-err));
	if (!err && rdma_listen(s->conn.cm->listen, s->conn.cm->n)) {
		err = -errno;
		log_err("rdma_cm: listening on port %s failed: %s", port, strerror(errno));
	}
	freeaddrinfo(ai);
	return err;
}

/* Take the next connect request's id (the server's side of one QP). */
int cm_take_request(struct rb_session *s)
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
	s->conn.cm->ids[s->conn.cm->requests++] = ev->id;
	s->conn.cm->req_depth = ev->param.conn.initiator_depth < ev->param.conn.responder_resources ?
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
	int err = oob_chan_send(s->conn.chan, WIRE_READY, NULL, 0, cm_timeout_ms(s));

	if (!err)
		err = oob_chan_expect(s->conn.chan, WIRE_READY, buf, sizeof(buf), &len, cm_timeout_ms(s));
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
	return device_adopt(s->conn.cm->ids[0]->verbs, s->conn.cm->ids[0]->port_num, s->opt->gid_index,
			    &s->conn.dev);
}

const char *cm_local_addr(const struct rb_session *s, char *buf, size_t len)
{
	struct sockaddr *sa = s->conn.cm && s->conn.cm->ids[0] ? rdma_get_local_addr(s->conn.cm->ids[0]) : NULL;
	socklen_t sl = sa && sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	if (!sa || getnameinfo(sa, sl, buf, (socklen_t)len, NULL, 0, NI_NUMERICHOST))
		snprintf(buf, len, "unknown");
	return buf;
}

void cm_close(struct rb_session *s)
{
	struct rb_cm *cm = s->conn.cm;

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
	s->conn.cm = NULL;
}
