#include "verbs/qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/device.h"
#include "lib/explain.h"
#include "lib/log.h"
#include "cli/options.h"
#include "lib/testfault.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

static int mr_access_for(enum rb_verb verb)
{
	switch (verb) {
	case VERB_WRITE: return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	case VERB_READ: return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	case VERB_ATOMIC: return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	case VERB_SEND: break;
	}
	return IBV_ACCESS_LOCAL_WRITE;
}

static enum ibv_qp_type qp_type_for(enum rb_transport tr)
{
	return tr == TR_UD ? IBV_QPT_UD : tr == TR_UC ? IBV_QPT_UC : IBV_QPT_RC;
}

void qps_init_attr(const struct rb_qps *q, const struct rb_options *o,
		   struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->send_cq = q->send_cq;
	attr->recv_cq = q->recv_cq;
	attr->qp_type = qp_type_for(q->tr);
	attr->cap.max_send_wr = o->tx_depth;
	attr->cap.max_recv_wr = o->rx_depth;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->cap.max_inline_data = q->inline_ask;
	attr->sq_sig_all = 0;
}

/* -I, or perftest's default (options_inline_default). */
static uint32_t inline_ask(const struct rb_bench *b, const struct rb_options *o)
{
	bool can_inline = b->verb == VERB_SEND || b->verb == VERB_WRITE;

	if (!can_inline)
		return 0;
	return o->inline_size >= 0 ? (uint32_t)o->inline_size : options_inline_default(b, o->transport);
}

/* The next smaller inline size to try after a refusal (0: none left). */
static uint32_t inline_lower(uint32_t ask)
{
	static const uint32_t steps[] = { 512, 256, 128, 64, 32, 16 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] < ask)
			return steps[i];
	return 0;
}

/* The largest inline size the device accepts below ask (for a message). */
static uint32_t inline_probe_max(struct rb_qps *q, const struct rb_options *o, uint32_t ask)
{
	struct ibv_qp_init_attr attr;
	struct rb_qps t = *q;
	struct ibv_qp *qp;

	for (t.inline_ask = inline_lower(ask); t.inline_ask; t.inline_ask = inline_lower(t.inline_ask)) {
		qps_init_attr(&t, o, &attr);
		qp = ibv_create_qp(q->pd, &attr);
		if (qp) {
			ibv_destroy_qp(qp);
			return t.inline_ask;
		}
	}
	return 0;
}

static void qps_take_inline(struct rb_qps *q, const struct rb_options *o, uint32_t granted)
{
	bool first = !q->qp[0];

	q->inline_granted = granted;
	q->max_inline = granted < q->inline_ask ? granted : q->inline_ask;
	if (first && granted < q->inline_ask)
		log_warn("%s %u: the device granted %u bytes of inline data; sending inline up to %u",
			 o->inline_size >= 0 ? "-I/--inline-size" : "the default inline size",
			 q->inline_ask, granted, q->max_inline);
	if (first)
		log_verbose("inline: asked %u, granted %u, in use %u", q->inline_ask, granted, q->max_inline);
}

static void qp_create_failed(struct rb_qps *q, const struct rb_options *o, int err)
{
	if (o->inline_size > 0) {
		uint32_t max = inline_probe_max(q, o, q->inline_ask);

		log_err("-I/--inline-size %d: the device refused a QP with that much inline data (%s); it accepts at most %u bytes with -t %u: use -I %u or less",
			o->inline_size, strerror(err), max, o->tx_depth, max);
		return;
	}
	log_err("ibv_create_qp (%s, send depth %u, receive depth %u, inline %u) failed: %s",
		options_transport_name(q->tr), o->tx_depth, o->rx_depth, q->inline_ask, strerror(err));
}

struct ibv_qp *qps_create_qp(struct rb_qps *q, const struct rb_options *o)
{
	uint32_t first_ask = q->inline_ask;
	struct ibv_qp_init_attr attr;
	struct ibv_qp *qp;

	for (;;) {
		qps_init_attr(q, o, &attr);
		qp = ibv_create_qp(q->pd, &attr);
		if (qp || o->inline_size >= 0 || !q->inline_ask)
			break;
		q->inline_ask = inline_lower(q->inline_ask);
	}
	if (!qp) {
		int err = errno ? errno : EIO;

		qp_create_failed(q, o, err);
		errno = err;
		return NULL;
	}
	if (q->inline_ask < first_ask)
		log_warn("the device refused the default inline size %u; asking %u", first_ask, q->inline_ask);
	qps_take_inline(q, o, attr.cap.max_inline_data);
	return qp;
}

const char *qps_inline_text(const struct rb_qps *q, char *buf, size_t len)
{
	if (!q->max_inline)
		return "off";
	snprintf(buf, len, "sizes <= %u B", q->max_inline);
	return buf;
}

const char *qps_relaxed_text(const struct rb_qps *q)
{
	switch (q->relaxed) {
	case RO_REQUESTED: return "requested";
	case RO_REFUSED: return "refused";
	case RO_OFF: break;
	}
	return "off";
}

static int qps_create_qps(struct rb_qps *q, const struct rb_options *o)
{
	for (int i = 0; i < q->n; i++) {
		q->qp[i] = qps_create_qp(q, o);
		if (!q->qp[i])
			return -EIO;    /* a device limit: a runtime failure, said */
	}
	return 0;
}

/* PCIe relaxed ordering unless --disable-pcie-relaxed, as perftest does
 * (setup_mr_flags(), perftest_resources.c); the QPs' access flags stay
 * without it. */
static int qps_register(struct rb_qps *q, const struct rb_options *o)
{
	int access = q->access | (o->no_relaxed ? 0 : IBV_ACCESS_RELAXED_ORDERING);

	q->mr = mr_register(q->pd, &q->buf, &access);
	if (!q->mr)
		return -ENOMEM;
	q->relaxed = o->no_relaxed ? RO_OFF : access & IBV_ACCESS_RELAXED_ORDERING ? RO_REQUESTED : RO_REFUSED;
	return 0;
}

static int qps_create_cqs(struct rb_qps *q, struct ibv_context *ctx, const struct rb_options *o)
{
	int send_cqe = (int)(o->tx_depth * (unsigned)q->n);
	int recv_cqe = (int)(o->rx_depth * (unsigned)q->n);

	if (o->events) {
		q->chan = ibv_create_comp_channel(ctx);
		if (!q->chan) {
			log_err("ibv_create_comp_channel failed: %s", strerror(errno));
			return -errno;
		}
	}
	q->send_cq = ibv_create_cq(ctx, send_cqe, NULL, q->chan, 0);
	if (!q->send_cq) {
		log_err("ibv_create_cq (%d entries) failed: %s", send_cqe, strerror(errno));
		return -errno;
	}
	q->recv_cq = ibv_create_cq(ctx, recv_cqe, NULL, q->chan, 0);
	if (!q->recv_cq) {
		log_err("ibv_create_cq (%d entries) failed: %s", recv_cqe, strerror(errno));
		return -errno;
	}
	return 0;
}

static size_t max_size_area(size_t max_size)
{
	return ALIGN_UP(max_size + RB_UD_GRH, RB_CYCLE_BYTES);
}

static int qps_alloc_arrays(struct rb_qps *q)
{
	q->qp = calloc((size_t)q->n, sizeof(*q->qp));
	q->ah = calloc((size_t)q->n, sizeof(*q->ah));
	q->local = calloc((size_t)q->n, sizeof(*q->local));
	q->remote = calloc((size_t)q->n, sizeof(*q->remote));
	if (!q->qp || !q->ah || !q->local || !q->remote)
		return -ENOMEM;
	if (!q->ring)
		return 0;
	q->ring_posted = calloc((size_t)q->n, sizeof(*q->ring_posted));
	q->ring_done = calloc((size_t)q->n, sizeof(*q->ring_done));
	return q->ring_posted && q->ring_done ? 0 : -ENOMEM;
}

/* Bytes per QP: a send area and a receive area, the latter holding -r
 * receive buffers with --validate's sends (qp.h's ring). */
static void qps_layout(struct rb_qps *q, const struct rb_bench *b, const struct rb_options *o)
{
	size_t area = max_size_area(q->max_size);

	q->ring_stride = ALIGN_UP(q->max_size + RB_UD_GRH, RB_LINE_BYTES);
	if (o->validate && b->verb == VERB_SEND) {
		q->ring = o->rx_depth;
		if (q->ring * q->ring_stride > area)
			area = ALIGN_UP(q->ring * q->ring_stride, RB_CYCLE_BYTES);
	}
	if (o->validate && b->metric == METRIC_BW) {
		q->tx_ring = o->tx_depth;
		if (q->tx_ring * q->ring_stride > area)
			area = ALIGN_UP(q->tx_ring * q->ring_stride, RB_CYCLE_BYTES);
	}
	q->slot = 2 * area;
}

int qps_create(struct rb_qps *q, struct ibv_context *ctx, const struct rb_bench *b,
	       const struct rb_options *o, size_t max_size, const struct placement *p,
	       bool create_qps)
{
	int err;

	memset(q, 0, sizeof(*q));
	q->n = (int)o->qps;
	q->tr = o->transport;
	q->mtu_ask = o->mtu > 0 ? (unsigned)o->mtu : 0;
	q->max_size = max_size;
	qps_layout(q, b, o);
	q->access = mr_access_for(b->verb);
	q->inline_ask = inline_ask(b, o);
	err = qps_alloc_arrays(q);
	if (err)
		goto fail;
	q->pd = ibv_alloc_pd(ctx);
	if (!q->pd) {
		err = -errno;
		log_err("ibv_alloc_pd failed: %s", strerror(errno));
		goto fail;
	}
	err = buf_alloc(&q->buf, q->slot * (size_t)q->n, p, o->hugepages);
	if (err)
		goto fail;
	err = qps_register(q, o);
	if (!err)
		err = qps_create_cqs(q, ctx, o);
	if (!err && create_qps)
		err = qps_create_qps(q, o);
	if (err)
		goto fail;
	return 0;
fail:
	qps_destroy(q);
	return err;
}

void qps_describe(struct rb_qps *q, const struct rb_device *d)
{
	for (int i = 0; i < q->n; i++) {
		struct wire_qp *l = &q->local[i];

		l->qpn = q->qp[i]->qp_num;
		l->psn = (uint32_t)lrand48() & 0xffffff;
		l->lid = d->port_attr.lid;
		memcpy(l->gid, d->gid.raw, 16);
		l->rkey = q->mr->rkey;
		l->addr = (uint64_t)(uintptr_t)qps_recv_area(q, i);
		l->mtu = (uint32_t)device_mtu_bytes(d->port_attr.active_mtu);
	}
}

static int qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *state, int i)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err) {
		const struct explain *e = explain_qp(state, err);

		log_err("ibv_modify_qp to %s (QP %d, QPN 0x%06x) failed: %s: likely %s; check %s", state, i,
			qp->qp_num, strerror(err), e->causes, e->check);
	}
	return -err;
}

static int qp_to_init(struct rb_qps *q, int i, const struct rb_device *d)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
				 .port_num = (uint8_t)d->port };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (q->tr == TR_UD) {
		a.qkey = RB_UD_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = (unsigned)(q->access & ~IBV_ACCESS_LOCAL_WRITE);
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return qp_modify(q->qp[i], &a, mask, "INIT", i);
}

static void qp_fill_ah(struct ibv_ah_attr *ah, const struct wire_qp *r, const struct rb_device *d,
		       const struct rb_options *o)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = r->lid;
	ah->sl = (uint8_t)o->sl;
	ah->port_num = (uint8_t)d->port;
	if (d->ib_link && o->gid_index < 0)
		return;
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, r->gid, 16);
	ah->grh.sgid_index = (uint8_t)d->gid.index;
	ah->grh.hop_limit = 64;
	ah->grh.traffic_class = o->tclass >= 0 ? (uint8_t)o->tclass : 0;
}

static int qp_to_rtr(struct rb_qps *q, int i, const struct rb_device *d, const struct rb_options *o)
{
	const struct wire_qp *r = &q->remote[i];
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = IBV_QP_STATE;

	if (q->tr != TR_UD) {
		a.path_mtu = q->mtu;
		a.dest_qp_num = r->qpn;
		a.rq_psn = r->psn;
		qp_fill_ah(&a.ah_attr, r, d, o);
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	}
	if (q->tr == TR_RC) {
		a.max_dest_rd_atomic = (uint8_t)q->outs;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return qp_modify(q->qp[i], &a, mask, "RTR", i);
}

static int qp_to_rts(struct rb_qps *q, int i, const struct rb_options *o)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .sq_psn = q->local[i].psn };
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (q->tr == TR_RC) {
		a.timeout = (uint8_t)o->qp_timeout;
		a.retry_cnt = 7;
		a.rnr_retry = test_fault("no-recv") ? 1 : 7;
		a.max_rd_atomic = (uint8_t)q->outs;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return qp_modify(q->qp[i], &a, mask, "RTS", i);
}

static int qp_make_ah(struct rb_qps *q, int i, const struct rb_device *d, const struct rb_options *o)
{
	struct ibv_ah_attr ah;

	qp_fill_ah(&ah, &q->remote[i], d, o);
	q->ah[i] = ibv_create_ah(q->pd, &ah);
	if (!q->ah[i]) {
		log_err("ibv_create_ah for the peer's QP %d failed: %s", i, strerror(errno));
		return -errno;
	}
	return 0;
}

/* The smaller of both sides' active MTU, and -m when it is smaller still. */
static enum ibv_mtu qps_pick_mtu(const struct rb_qps *q)
{
	uint32_t mtu = q->local[0].mtu < q->remote[0].mtu ? q->local[0].mtu : q->remote[0].mtu;

	if (q->mtu_ask && q->mtu_ask < mtu)
		mtu = q->mtu_ask;
	else if (q->mtu_ask && q->mtu_ask > mtu)
		log_warn("-m/--mtu %u is larger than the active MTU %u; using %u", q->mtu_ask, mtu, mtu);
	return device_mtu_enum((int)mtu);
}

/* The path MTU the QP got, for the report. */
static void qps_read_mtu(struct rb_qps *q)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (!ibv_query_qp(q->qp[0], &a, IBV_QP_PATH_MTU, &ia))
		q->mtu = a.path_mtu;
}

void qps_read_outs(struct rb_qps *q)
{
	int mask = IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	unsigned got;

	if (q->tr != TR_RC || ibv_query_qp(q->qp[0], &a, mask, &ia))
		return;
	got = a.max_rd_atomic < a.max_dest_rd_atomic ? a.max_rd_atomic : a.max_dest_rd_atomic;
	if (got < q->outs)
		log_warn("outstanding reads/atomics: the QP got %u of the %u asked; using %u", got, q->outs, got);
	else if (got != q->outs)
		log_verbose("outstanding reads/atomics: the QP got %u (asked %u)", got, q->outs);
	q->outs = got;
}

int qps_connect(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o,
		const struct rb_bench *b)
{
	int err = 0;

	q->mtu = qps_pick_mtu(q);
	for (int i = 0; i < q->n && !err; i++) {
		err = qp_to_init(q, i, d);
		if (!err)
			err = qp_to_rtr(q, i, d, o);
		if (!err)
			err = qp_to_rts(q, i, o);
		if (!err && q->tr == TR_UD)
			err = qp_make_ah(q, i, d, o);
	}
	if (!err && q->tr != TR_UD)
		qps_read_mtu(q);
	if (!err)
		qps_read_outs(q);
	(void)b;
	return err;
}

static int qp_query(struct ibv_qp *qp, const struct rb_options *o, struct rb_qp_attrs *r)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int err = ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
			       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER | IBV_QP_AV |
			       IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_CAP, &ia);

	if (err) {
		log_err("ibv_query_qp (QPN 0x%06x) failed: %s", qp->qp_num, strerror(err));
		return -err;
	}
	*r = (struct rb_qp_attrs){
		.qpn = qp->qp_num, .path_mtu = device_mtu_bytes(a.path_mtu), .timeout = a.timeout,
		.retry_cnt = a.retry_cnt, .rnr_retry = a.rnr_retry, .min_rnr_timer = a.min_rnr_timer,
		.sl = a.ah_attr.sl, .traffic_class = a.ah_attr.grh.traffic_class,
		.max_rd_atomic = a.max_rd_atomic, .max_dest_rd_atomic = a.max_dest_rd_atomic,
		.max_inline = a.cap.max_inline_data,
	};
	if (qp->qp_type == IBV_QPT_UD) {	/* the AV is in the address handles (qp_fill_ah) */
		r->sl = o->sl;
		r->traffic_class = o->tclass >= 0 ? (unsigned)o->tclass : 0;
	}
	return 0;
}

int qps_read_attrs(struct rb_qps *q, const struct rb_options *o)
{
	for (int i = 0; i < q->n; i++) {
		struct rb_qp_attrs r;
		int err = qp_query(q->qp[i], o, &r);

		if (err)
			return err;
		if (q->tr == TR_UD)	/* no path in a UD QP: the MTU its messages fit */
			r.path_mtu = device_mtu_bytes(q->mtu);
		r.sl_given = o->rdma_cm ? q->cm_sl : o->sl;
		log_verbose("QP 0x%06x attributes: path MTU %d, timeout %u, SL %u (given %u), traffic class %u, "
			    "max inline %u, max_rd_atomic %u, max_dest_rd_atomic %u, retry %u, RNR retry %u, min RNR timer %u",
			    r.qpn, r.path_mtu, r.timeout, r.sl, r.sl_given, r.traffic_class, r.max_inline,
			    r.max_rd_atomic, r.max_dest_rd_atomic, r.retry_cnt, r.rnr_retry, r.min_rnr_timer);
		if (i == 0)
			q->attrs = r;
	}
	if (q->tr != TR_UD)
		q->mtu = device_mtu_enum(q->attrs.path_mtu);
	return 0;
}

void qps_destroy(struct rb_qps *q)
{
	for (int i = q->n - 1; i >= 0 && q->ah; i--)
		if (q->ah[i])
			ibv_destroy_ah(q->ah[i]);
	for (int i = q->n - 1; i >= 0 && q->qp; i--)
		if (q->qp[i])
			ibv_destroy_qp(q->qp[i]);
	if (q->recv_cq)
		ibv_destroy_cq(q->recv_cq);
	if (q->send_cq)
		ibv_destroy_cq(q->send_cq);
	if (q->chan)
		ibv_destroy_comp_channel(q->chan);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	buf_free(&q->buf);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
	free(q->ring_done);
	free(q->ring_posted);
	free(q->remote);
	free(q->local);
	free(q->ah);
	free(q->qp);
	memset(q, 0, sizeof(*q));
}
