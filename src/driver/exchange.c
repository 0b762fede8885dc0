/*
 * The messages of a session over its out-of-band channel, each within
 * --timeout: HELLO (the parameters both sides must agree on, hello.h),
 * the QPs' attributes, READY (a barrier), DONE and RESULT (the rows).
 */
#include "driver/internal.h"

#include <errno.h>

#include "driver/loadrun.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/wire.h"
#include "session/hello.h"

static int oob_timeout_ms(const struct rb_session *s)
{
	return (int)(s->opt->timeout_s * 1000);
}

/* -o and the device's read/atomic limits (0 under -R: rdma_cm has not
 * picked the device yet), offers that may differ between the sides. */
static void hello_put_offer(const struct rb_session *s, struct wire_hello *h)
{
	const struct rb_device *d = &s->conn.dev;

	h->params[h->nparams++] = (struct wire_param){ WIRE_P_OUTS_ASKED, s->opt->outs };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_RD_ATOM,
		d->ctx ? (uint64_t)d->attr.max_qp_rd_atom : 0 };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_INIT_RD_ATOM,
		d->ctx ? (uint64_t)d->attr.max_qp_init_rd_atom : 0 };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_LOAD_PORT, loadrun_port(s->load) };
	h->params[h->nparams++] = (struct wire_param){ WIRE_P_MTU_ASKED, (uint64_t)s->opt->mtu };
}

static void hello_build(const struct rb_session *s, struct wire_hello *h)
{
	hello_params(s->opt, s->bench, h);
	hello_put_offer(s, h);
}

static const struct wire_param *param_find(const struct wire_hello *h, uint16_t id)
{
	for (int i = 0; i < h->nparams; i++)
		if (h->params[i].id == id)
			return &h->params[i];
	return NULL;
}

int exchange_hello(struct rb_session *s)
{
	struct wire_hello mine, peer;
	uint8_t buf[WIRE_MAX_PAYLOAD];
	uint32_t len;
	int n, err;

	hello_build(s, &mine);
	n = wire_hello_encode(&mine, buf, sizeof(buf));
	if (n < 0)
		return n;
	err = oob_chan_send(s->conn.chan, WIRE_HELLO, buf, (uint32_t)n, oob_timeout_ms(s));
	if (!err)
		err = oob_chan_expect(s->conn.chan, WIRE_HELLO, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (!err && wire_hello_decode(buf, len, &peer)) {
		log_err("OOB: the peer's HELLO message is malformed");
		err = -EPROTO;
	}
	if (err)
		log_err("exchanging the test parameters (HELLO) with %s failed", s->conn.peer);
	if (!err)
		err = hello_compare(&mine, &peer, s->is_client);
	if (!err)
		wire_hello_offer(&peer, &s->conn.peer_rd);
	if (!err && param_find(&peer, WIRE_P_MTU_ASKED))
		s->conn.peer_mtu = param_find(&peer, WIRE_P_MTU_ASKED)->value;
	if (!err && s->is_client && param_find(&peer, WIRE_P_LOAD_PORT))
		loadrun_peer_port(s->load, param_find(&peer, WIRE_P_LOAD_PORT)->value);
	return err;
}

/* What the peer says about its QPs goes into ibv_modify_qp: check it first. */
static int qps_remote_check(const struct rb_session *s)
{
	for (int i = 0; i < s->conn.q.n; i++) {
		const struct wire_qp *r = &s->conn.q.remote[i];

		if (r->qpn > 0xffffff || r->psn > 0xffffff || !device_mtu_enum((int)r->mtu)) {
			log_err("OOB: the peer's QP %d is invalid (QPN 0x%x, PSN 0x%x: 24 bits; MTU %u: 256..4096)",
				i, r->qpn, r->psn, r->mtu);
			return -EPROTO;
		}
	}
	return 0;
}

int exchange_qps(struct rb_session *s)
{
	uint8_t buf[WIRE_MAX_PAYLOAD];
	uint32_t len;
	int n, got, err;

	n = wire_qp_encode(s->conn.q.local, s->conn.q.n, buf, sizeof(buf));
	if (n < 0)
		return n;
	err = oob_chan_send(s->conn.chan, WIRE_QP, buf, (uint32_t)n, oob_timeout_ms(s));
	if (!err)
		err = oob_chan_expect(s->conn.chan, WIRE_QP, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (!err && (wire_qp_decode(buf, len, s->conn.q.remote, s->conn.q.n, &got) || got != s->conn.q.n)) {
		log_err("OOB: the peer sent a malformed QP list (%d QPs expected)", s->conn.q.n);
		err = -EPROTO;
	}
	if (!err)
		err = qps_remote_check(s);
	if (err)
		log_err("exchanging the QP attributes with %s failed", s->conn.peer);
	return err;
}

int barrier(struct rb_session *s, const char *phase)
{
	uint8_t buf[16];
	uint32_t len;
	int err = oob_chan_send(s->conn.chan, WIRE_READY, NULL, 0, oob_timeout_ms(s));

	if (!err)
		err = oob_chan_expect(s->conn.chan, WIRE_READY, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (err)
		log_err("%s: the peer did not get ready (it failed or is gone)", phase);
	return err;
}

/* The peer's DONE, within --timeout; a heartbeat (READY) it sent before
 * it is skipped: a side halted by its driver (--load) may end its loop
 * while its active peer still runs and beats. */
static int expect_done(struct rb_session *s)
{
	uint64_t deadline = clock_now_ns() + (uint64_t)(s->opt->timeout_s * 1e9);
	uint8_t buf[16];
	uint32_t len;
	uint16_t type;
	int err;

	do
		err = oob_chan_recv(s->conn.chan, &type, buf, sizeof(buf), &len, oob_timeout_ms(s));
	while (!err && type == WIRE_READY && clock_now_ns() < deadline);
	if (!err && type != WIRE_DONE) {
		log_err("OOB: expected a DONE message from %s, got %s", s->conn.peer, wire_type_name(type));
		err = -EPROTO;
	}
	return err;
}

/* Each side says DONE when its loop ends and waits for the peer's. */
int exchange_done(struct rb_session *s)
{
	int err = s->run.done_sent ? 0 : oob_chan_send(s->conn.chan, WIRE_DONE, NULL, 0, oob_timeout_ms(s));

	if (!err && !s->run.peer_done)
		err = expect_done(s);
	if (err)
		log_err("finishing size %llu: the peer did not finish (it failed or is gone)",
			(unsigned long long)s->run.size);
	return err;
}

/* Trade rows (the peer's goes to peer): a side that only served the peer
 * prints the peer's row. */
int exchange_rows(struct rb_session *s, const struct report *r, union out_val *row,
		  union out_val *peer, bool measured)
{
	struct wire_param p[REPORT_MAX_COLS];
	uint8_t buf[1024];
	uint32_t len;
	int n = 0, err;

	for (int i = 0; i < r->nbase; i++)
		p[i] = (struct wire_param){ (uint16_t)i,
			measured || report_traded_always(r, i) ? row[i].u : 0 };
	n = wire_params_encode(p, r->nbase, buf, sizeof(buf));
	err = n < 0 ? n : oob_chan_send(s->conn.chan, WIRE_RESULT, buf, (uint32_t)n, oob_timeout_ms(s));
	if (!err)
		err = oob_chan_expect(s->conn.chan, WIRE_RESULT, buf, sizeof(buf), &len, oob_timeout_ms(s));
	if (!err && (wire_params_decode(buf, len, p, REPORT_MAX_COLS, &n) || n != r->nbase)) {
		log_err("OOB: the peer sent a malformed result");
		err = -EPROTO;
	}
	if (err)
		log_err("exchanging the results of size %llu with %s failed",
			(unsigned long long)s->run.size, s->conn.peer);
	for (int i = 0; !err && i < n; i++)
		peer[p[i].id < r->nbase ? p[i].id : 0].u = p[i].value;
	for (int i = 0; !err && !measured && i < n; i++)
		row[i] = peer[i];
	return err;
}
