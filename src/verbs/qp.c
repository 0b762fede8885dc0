/*
 * A session's verbs objects made and destroyed (qp.h): the buffer's
 * layout, the MR's access, inline sizes, CQs, the QPs.
 */
#include "verbs/qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "verbs/mcast.h"
#include "cli/options.h"

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
/* --odp: the device's capabilities checked, the buffer's pages given back
 * and the MR registered on demand (mem.h). */
static int qps_odp_prepare(struct rb_qps *q, struct mem_buf *reg, struct ibv_context *ctx,
			   enum rb_verb verb, int *access)
{
	int err = odp_check(ctx, q->tr, verb, &q->odp);

	if (err)
		return err;
	err = mem_drop_pages(reg);
	if (err == -EOPNOTSUPP)
		log_err("--odp: the %s buffers cannot be paged on demand here", mem_kind_name(reg));
	*access |= IBV_ACCESS_ON_DEMAND;
	return err;
}

static int qps_register(struct rb_qps *q, struct ibv_context *ctx, enum rb_verb verb,
			const struct rb_options *o)
{
	int access = q->access | (o->no_relaxed ? 0 : IBV_ACCESS_RELAXED_ORDERING);

	struct mem_buf *reg = q->bounce.ops ? &q->bounce : &q->buf;     /* what the MR covers */

	if (o->odp && qps_odp_prepare(q, reg, ctx, verb, &access))
		return -EOPNOTSUPP;
	q->mr = mem_register(q->pd, reg, &access);
	if (!q->mr)
		return -ENOMEM;
	if (o->odp)
		q->odp_resident = mem_resident_bytes(reg);
	q->relaxed = o->no_relaxed ? RO_OFF : access & IBV_ACCESS_RELAXED_ORDERING ? RO_REQUESTED : RO_REFUSED;
	return 0;
}

/* A CQ of depth x QPs entries past the device's max_cqe: say which option
 * to lower (-q 1024 meets it at perftest's -t 128 on rxe). */
static int cq_fits(struct ibv_context *ctx, const char *cq, const char *opt, unsigned depth, int n)
{
	struct ibv_device_attr a;

	if (ibv_query_device(ctx, &a) || (uint64_t)depth * (unsigned)n <= (uint64_t)a.max_cqe)
		return 0;
	log_err("the %s CQ needs %llu entries (%s %u x %d QPs), over %s's max_cqe %d: give %s %d or less, or fewer QPs",
		cq, (unsigned long long)depth * (unsigned)n, opt, depth, n, ibv_get_device_name(ctx->device),
		a.max_cqe, opt, a.max_cqe / n);
	return -EINVAL;
}

static int qps_create_cqs(struct rb_qps *q, struct ibv_context *ctx, const struct rb_options *o)
{
	int send_cqe = (int)(o->tx_depth * (unsigned)q->n);
	int recv_cqe = (int)(o->rx_depth * (unsigned)q->n);

	if (cq_fits(ctx, "send", "-t", o->tx_depth, q->n) || cq_fits(ctx, "receive", "-r", o->rx_depth, q->n))
		return -EINVAL;

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
 * receive buffers with --validate's sends (qp.h's ring).  --bounce takes
 * the same rings: a copy per message needs a buffer per message.  With
 * --odp each ring buffer starts a page: a message faults in the fewest
 * pages, and rxe's ODP copy (Linux 6.14 to 7.3.4 at least:
 * __rxe_odp_mr_copy), which copies each packet to the start of its page,
 * keeps a message of one packet of at most a page whole
 * (scripts/testbed/README.testbed.md). */
static void qps_layout(struct rb_qps *q, const struct rb_bench *b, const struct rb_options *o)
{
	size_t area = max_size_area(q->max_size);

	q->ring_stride = ALIGN_UP(q->max_size + RB_UD_GRH, o->odp ? RB_CYCLE_BYTES : RB_LINE_BYTES);
	if ((o->validate || o->bounce) && b->verb == VERB_SEND) {
		q->ring = o->rx_depth;
		if (q->ring * q->ring_stride > area)
			area = ALIGN_UP(q->ring * q->ring_stride, RB_CYCLE_BYTES);
	}
	if ((o->validate || o->bounce) && b->metric == METRIC_BW) {
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
	struct mem_dev dev;
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
	mem_dev_for(o, &dev);
	err = mem_alloc_dev(&q->buf, mem_kind_for(o), q->slot * (size_t)q->n, p ? p->node : -1, &dev);
	if (!err && o->bounce)
		err = mem_alloc(&q->bounce, mem_kind_by_name("host"), q->buf.len, p ? p->node : -1);
	if (err)
		goto fail;
	q->dma = q->bounce.ops ? q->bounce.addr : q->buf.addr;
	err = qps_register(q, ctx, b->verb, o);
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

void qps_destroy(struct rb_qps *q)
{
	mcast_close(q);         /* detached before the QPs go */
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
	mem_free(&q->bounce);
	mem_free(&q->buf);
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
