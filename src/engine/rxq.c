/*
 * The general receive path (qp.h's rx_general): immediate data checked
 * (--write_with_imm, --send_with_imm), one shared receive queue
 * (--use_srq), receives posted rx_list at a time (--recv_post_list),
 * --validate's receive buffers.  The plain path (recv.c's recv_complete
 * and recv_post) stays as it is: a loop without these pays nothing.
 *
 * Which QP a message came on: its receive's wr_id (a QP's own receive
 * queue), or with an SRQ its qp_num (any QP's message may take any
 * receive, whose wr_id names its buffer).  Each QP's count of messages
 * (--validate's ring_done) and next immediate are that QP's, whatever
 * queue the receive came from.
 */
#include "engine/internal.h"

#include "lib/log.h"
#include "lib/testfault.h"

/* Receive buffer b's offset: an SRQ's b (qp.h), or QP i's n-th. */
static size_t rx_off(const struct rb_qps *q, int i, uint64_t b)
{
	if (q->srq)
		i = (int)(b % (unsigned)q->n), b /= (unsigned)q->n;
	return q->ring ? qps_ring_off(q, i, b) : qps_recv_off(q, i);
}

/* The QP whose area holds receive buffer b: QP i's own, or with an SRQ the
 * one rx_off took it from. */
static int rx_owner(const struct rb_qps *q, int i, uint64_t b)
{
	return q->srq ? (int)(b % (unsigned)q->n) : i;
}

static uint32_t rx_len(const struct rb_qps *q)
{
	return (uint32_t)q->max_size + (q->tr == TR_UD ? RB_UD_GRH : 0);
}

/* Post the receives waiting in list l (QP l's, or the SRQ's). */
static int rx_flush(struct rb_session *s, unsigned l)
{
	struct rb_qps *q = &s->conn.q;
	unsigned n = q->rx_pend[l];
	struct ibv_recv_wr *first = &q->rx_wr[(size_t)l * q->rx_list], *bad;
	int err;

	if (!n)
		return 0;
	first[n - 1].next = NULL;
	if (test_fault("no-recv"))
		err = 0;
	else
		err = q->srq ? ibv_post_srq_recv(q->srq, first, &bad) : ibv_post_recv(q->qp[l], first, &bad);
	if (!err)
		s->run.recvs_outstanding += n;
	q->rx_pend[l] = 0;
	return check_post(err, s, q->srq ? "ibv_post_srq_recv" : "ibv_post_recv");
}

/* A receive into buffer b (SRQ) or QP i's next one joins its list; a
 * full list is posted.  A ping-pong's --validate buffer is poisoned first:
 * its one payload is fixed, a receive that brought nothing must show. */
static int rx_add(struct rb_session *s, int i, uint32_t b)
{
	struct rb_qps *q = &s->conn.q;
	unsigned l = q->srq ? 0 : (unsigned)i, j = q->rx_pend[l]++;
	struct ibv_recv_wr *wr = &q->rx_wr[(size_t)l * q->rx_list + j];
	struct ibv_sge *sge = &q->rx_sge[(size_t)l * q->rx_list + j];
	size_t off = rx_off(q, i, q->srq ? b : q->ring ? q->ring_posted[i]++ : 0);
	int a = rx_owner(q, i, b);

	if (q->ring)
		validate_poison_at(s, off);
	*sge = (struct ibv_sge){ .addr = qps_addr_at(q, a, off), .length = rx_len(q), .lkey = qps_lkey(q, a) };
	*wr = (struct ibv_recv_wr){ .wr_id = q->srq ? b : (uint64_t)i, .sg_list = sge, .num_sge = 1, .next = wr + 1 };
	return q->rx_pend[l] == q->rx_list ? rx_flush(s, l) : 0;
}

/* Receives waiting in the lists, all QPs'. */
static unsigned rx_waiting(const struct rb_qps *q)
{
	unsigned n = 0;

	for (int l = 0; l < (q->srq ? 1 : q->n); l++)
		n += q->rx_pend[l];
	return n;
}

static int rx_flush_all(struct rb_session *s)
{
	int err = 0;

	for (unsigned l = 0; !err && l < (s->conn.q.srq ? 1u : (unsigned)s->conn.q.n); l++)
		err = rx_flush(s, l);
	return err;
}

/*
 * Before a size: each QP's immediates start again from 0 (the sender's
 * operations count from 0 each size), and the receives are topped up to
 * -r per QP (an SRQ: -r in all), the lists posted whole or not.
 */
int rx_prepare(struct rb_session *s)
{
	struct rb_qps *q = &s->conn.q;
	unsigned want = q->srq ? q->rx_depth : q->rx_depth * (unsigned)q->n;
	int err = rx_flush_all(s);

	memset(q->imm_next, 0, (size_t)q->n * sizeof(*q->imm_next));
	while (!err && q->srq && q->rx_nfree)
		err = rx_add(s, 0, q->rx_free[--q->rx_nfree]);
	while (!err && !q->srq && s->run.recvs_outstanding + rx_waiting(q) < want)
		err = rx_add(s, (int)((s->run.recvs_outstanding + rx_waiting(q)) % (unsigned)q->n), 0);
	return err ? err : rx_flush_all(s);
}

/* A message's immediate: QP i's next sequence number (RC: exactly; UC and
 * UD may lose messages: a later one), and the opcode its verb gives. */
static int rx_imm_check(struct rb_session *s, int i, const struct ibv_wc *wc)
{
	struct rb_qps *q = &s->conn.q;
	enum ibv_wc_opcode op = s->bench->verb == VERB_WRITE ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	uint32_t want = q->imm_next[i], got = be32toh(wc->imm_data) & RB_IMM_SEQ;
	uint32_t ahead = (got - want) & RB_IMM_SEQ;

	if (!(wc->wc_flags & IBV_WC_WITH_IMM) || wc->opcode != op) {
		log_err("immediate data on QP %d (QPN 0x%06x) at size %llu: a receive completion without it (opcode %d, flags 0x%x), expected sequence %u",
			i, wc->qp_num, (unsigned long long)s->run.size, wc->opcode, wc->wc_flags, want);
		return -EPROTO;
	}
	if (ahead && (q->tr == TR_RC || ahead > RB_IMM_SEQ / 2)) {
		log_err("immediate data on QP %d (QPN 0x%06x) at size %llu: expected sequence %u, got %u",
			i, wc->qp_num, (unsigned long long)s->run.size, want, got);
		return -EPROTO;
	}
	q->imm_next[i] = (got + 1) & RB_IMM_SEQ;
	return 0;
}

/*
 * One receive completion (the caller counts it outstanding no more): its
 * QP, its immediate, its payload (--validate: message ring_done of that
 * QP, in the buffer it took), then a receive in its place, unless it ends
 * a ping-pong (ends: the caller's is one), whose last message is replaced
 * by none (an SRQ's buffer is kept for the next size).  *last: that end
 * (the immediate's top bit; a plain send's SEND_WITH_IMM).
 */
int rx_one(struct rb_session *s, const struct ibv_wc *wc, bool ends, bool *last)
{
	struct rb_qps *q = &s->conn.q;
	int i = q->srq ? qps_index_of(q, wc->qp_num) : (int)wc->wr_id;
	uint32_t b = (uint32_t)wc->wr_id;

	if (wc_check(s, wc, "receive"))
		return -EIO;
	if (i < 0) {
		log_err("a receive at size %llu came on QPN 0x%06x, none of this side's QPs", (unsigned long long)s->run.size, wc->qp_num);
		return -EPROTO;
	}
	if (q->imm && rx_imm_check(s, i, wc))
		return -EPROTO;
	*last = q->imm ? (be32toh(wc->imm_data) & RB_IMM_LAST) != 0 : (wc->wc_flags & IBV_WC_WITH_IMM) != 0;
	if (q->ring) {
		uint64_t c = q->ring_done[i]++;

		validate_recv_at(s, i, c, rx_owner(q, i, b), rx_off(q, i, q->srq ? b : c));
	}
	if (!(ends && *last))
		return rx_add(s, i, b);
	if (q->srq)
		q->rx_free[q->rx_nfree++] = b;
	return 0;
}

/* The bandwidth receivers' n completions (recv.c's recv_reap), each
 * replaced by a receive. */
int rx_complete(struct rb_session *s, struct recv_state *r, const struct ibv_wc *wc, int n)
{
	bool last;

	for (int k = 0; k < n; k++) {
		int err = rx_one(s, &wc[k], false, &last);

		if (err)
			return err;
		r->total++;
		s->run.recvs_outstanding--;
	}
	return 0;
}

rb_loop_fn loop_pick(const struct rb_session *s, rb_loop_fn f)
{
	if (!s->conn.q.rx_general)
		return f;
	if (f == loop_lat_send_ping || f == loop_lat_write_ping)
		return loop_lat_rx_ping;
	if (f == loop_lat_send_pong || f == loop_lat_write_pong)
		return loop_lat_rx_pong;
	return f == loop_passive && s->opt->imm ? loop_bw_recv : f;
}
