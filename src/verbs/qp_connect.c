/*
 * A session's QPs connected (qp.h): INIT -> RTR -> RTS with the peer's
 * attributes, UD's address handles, and what the QPs got, read back.
 */
#include "verbs/qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs/device.h"
#include "verbs/mcast.h"
#include "lib/explain.h"
#include "lib/log.h"
#include "cli/options.h"
#include "lib/testfault.h"

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
		if (q->mc && q->mc->receiving) {	/* the peer sends to the group */
			l->qpn = RB_MCAST_QPN;
			l->lid = q->mc->mlid;
			memcpy(l->gid, q->mc->mgid, 16);
		}
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

/* QP i's address vector: -S, and where there is a GRH, -L, --tclass and
 * QP i's --flow_label (perftest sets the label at RTR; UD: in the AH). */
static void qp_fill_ah(struct ibv_ah_attr *ah, const struct wire_qp *r, const struct rb_device *d,
		       const struct rb_options *o, int i)
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
	ah->grh.hop_limit = (uint8_t)o->hop_limit;
	ah->grh.traffic_class = o->tclass >= 0 ? (uint8_t)o->tclass : 0;
	ah->grh.flow_label = options_flow_label(o, i);
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
		qp_fill_ah(&a.ah_attr, r, d, o, i);
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
		a.retry_cnt = (uint8_t)o->retry_count;
		a.rnr_retry = test_fault("no-recv") ? 1 : 7;
		a.max_rd_atomic = (uint8_t)q->outs;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return qp_modify(q->qp[i], &a, mask, "RTS", i);
}

static int qp_make_ah(struct rb_qps *q, int i, const struct rb_device *d, const struct rb_options *o)
{
	struct ibv_ah_attr ah;

	qp_fill_ah(&ah, &q->remote[i], d, o, i);
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

static int qp_query(struct ibv_qp *qp, int i, const struct rb_options *o, struct rb_qp_attrs *r)
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
		.flow_label = a.ah_attr.grh.flow_label, .hop_limit = a.ah_attr.grh.hop_limit,
		.max_rd_atomic = a.max_rd_atomic, .max_dest_rd_atomic = a.max_dest_rd_atomic,
		.max_inline = a.cap.max_inline_data,
	};
	if (qp->qp_type == IBV_QPT_UD) {	/* the AV is in the address handles (qp_fill_ah) */
		r->sl = o->sl;
		r->traffic_class = o->tclass >= 0 ? (unsigned)o->tclass : 0;
		r->hop_limit = (unsigned)o->hop_limit;
		r->flow_label = options_flow_label(o, i);
	}
	return 0;
}

/* What the device reports back against what was given (-L, --flow_label,
 * --retry_count): a provider that drops one says so here, once. */
static void qp_check_path(const struct rb_qps *q, int i, const struct rb_options *o,
			  const struct rb_qp_attrs *r)
{
	bool grh = q->tr != TR_UD && r->hop_limit;   /* 0 read back: no GRH (InfiniBand) */

	if (grh && o->flow_labels && r->flow_label != options_flow_label(o, i))
		log_warn("--flow_label: QP %d reports flow label 0x%x, 0x%x given", i, r->flow_label,
			 options_flow_label(o, i));
	else if (grh && o->hop_limit_given && r->hop_limit != (unsigned)o->hop_limit)
		log_warn("-L/--hop_limit: QP %d reports hop limit %u, %d given", i, r->hop_limit, o->hop_limit);
	else if (q->tr == TR_RC && r->retry_cnt != o->retry_count)
		log_warn("--retry_count: QP %d reports retry count %u, %u asked", i, r->retry_cnt, o->retry_count);
}

int qps_read_attrs(struct rb_qps *q, const struct rb_options *o)
{
	for (int i = 0; i < q->n; i++) {
		struct rb_qp_attrs r;
		int err = qp_query(q->qp[i], i, o, &r);

		if (err)
			return err;
		if (q->tr == TR_UD)	/* no path in a UD QP: the MTU its messages fit */
			r.path_mtu = device_mtu_bytes(q->mtu);
		r.sl_given = o->rdma_cm ? q->cm_sl : o->sl;
		log_verbose("QP 0x%06x attributes: path MTU %d, timeout %u, SL %u (given %u), traffic class %u, "
			    "flow label 0x%x, hop limit %u, max inline %u, max_rd_atomic %u, max_dest_rd_atomic %u, "
			    "retry %u, RNR retry %u, min RNR timer %u",
			    r.qpn, r.path_mtu, r.timeout, r.sl, r.sl_given, r.traffic_class, r.flow_label,
			    r.hop_limit, r.max_inline, r.max_rd_atomic, r.max_dest_rd_atomic, r.retry_cnt,
			    r.rnr_retry, r.min_rnr_timer);
		qp_check_path(q, i, o, &r);
		if (i == 0)
			q->attrs = r;
	}
	if (q->tr != TR_UD)
		q->mtu = device_mtu_enum(q->attrs.path_mtu);
	return 0;
}

/* What the device can pace (--rate_limit_type=HW, PP): its packet pacing
 * caps, 0 when it has none (rxe: none; nor a provider's
 * modify_qp_rate_limit). */
static uint32_t device_pacing_max_kbps(const struct rb_device *d)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0, sizeof(a));
	if (ibv_query_device_ex(d->ctx, NULL, &a))
		return 0;
	return a.packet_pacing_caps.qp_rate_limit_max;
}

int device_check_pacing(const struct rb_device *d, const struct rb_options *o)
{
	const char *t = o->rate_type == RT_HW ? "HW" : "PP";
	uint32_t max = device_pacing_max_kbps(d);

	if (!(o->rate_limit > 0) || o->rate_type == RT_SW)
		return 0;
	if (max)
		return 0;
	log_err("--rate_limit_type=%s: device %s cannot pace its QPs (no packet pacing: qp_rate_limit_max is 0; "
		"Soft-RoCE refuses IB_QP_RATE_LIMIT); use --rate_limit_type=SW, the posting loop's pacing",
		t, d->name);
	return -EOPNOTSUPP;
}

/* --rate_limit_type=HW (ibv_modify_qp_rate_limit) or PP (ibv_modify_qp's
 * IBV_QP_RATE_LIMIT) on every QP in RTS, in kbit/s of payload. */
int qps_rate_limit(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o)
{
	uint32_t kbps = (uint32_t)(o->rate_limit * pace_pps(1, o->rate_units, 1) * 8 / 1000);

	if (!(o->rate_limit > 0) || o->rate_type == RT_SW)
		return 0;
	for (int i = 0; i < q->n; i++) {
		struct ibv_qp_rate_limit_attr rl = { .rate_limit = kbps };
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .rate_limit = kbps };
		int err = o->rate_type == RT_HW ? ibv_modify_qp_rate_limit(q->qp[i], &rl)
						: ibv_modify_qp(q->qp[i], &a, IBV_QP_STATE | IBV_QP_RATE_LIMIT);

		if (err) {
			log_err("--rate_limit_type=%s: device %s refused %u kbit/s on QP %d: %s; use --rate_limit_type=SW",
				o->rate_type == RT_HW ? "HW" : "PP", d->name, kbps, i, strerror(err));
			return -err;
		}
	}
	return 0;
}
