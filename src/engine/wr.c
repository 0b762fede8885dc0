/*
 * Work requests and completions: the templates a loop posts, the address
 * of each operation (perftest's buffer cycling), the atomics' self-check,
 * and polling with its error reports.
 */
#include "engine/internal.h"

#include <poll.h>
#include <stddef.h>

#include "lib/explain.h"
#include "lib/log.h"
#include "lib/testfault.h"

/*
 * cq_poll (internal.h) found nothing, with -e and may_sleep: sleep on the
 * completion channel (100 ms at most).  A loop that could still post must
 * not sleep: the next completion may be cq_mod posts away.  With -b one
 * loop waits for sends and receives: both CQs are armed (they share the
 * channel).
 */
int cq_poll_wait(struct rb_session *s, struct ibv_cq *cq, struct ibv_wc *wc, int max)
{
	struct ibv_comp_channel *chan = s->conn.q.chan;
	struct pollfd p;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	if (ibv_req_notify_cq(cq, 0))
		return -EIO;
	if (s->opt->bidir && ibv_req_notify_cq(cq == s->conn.q.send_cq ? s->conn.q.recv_cq : s->conn.q.send_cq, 0))
		return -EIO;
	n = ibv_poll_cq(cq, max, wc);
	if (n)
		return n;
	p = (struct pollfd){ .fd = chan->fd, .events = POLLIN };
	if (poll(&p, 1, 100) <= 0)
		return 0;
	if (ibv_get_cq_event(chan, &ev_cq, &ev_ctx) == 0)
		ibv_ack_cq_events(ev_cq, 1);
	return ibv_poll_cq(cq, max, wc);
}

const char *verb_name(enum rb_verb v)
{
	switch (v) {
	case VERB_SEND: return "send";
	case VERB_WRITE: return "RDMA write";
	case VERB_READ: return "RDMA read";
	case VERB_ATOMIC: return "atomic";
	}
	return "?";
}

int wc_fail(const struct rb_session *s, const struct ibv_wc *wc, const char *what)
{
	const struct explain *e = explain_wc(wc->status);

	log_err("%s completion error on QPN 0x%06x at size %llu: %s (%d): likely %s; check %s", what,
		wc->qp_num, (unsigned long long)s->run.size, e->name, wc->status, e->causes, e->check);
	return -EIO;
}

int post_fail(int err, const struct rb_session *s, const char *call)
{
	if (err)
		log_err("%s failed at size %llu: %s", call, (unsigned long long)s->run.size, strerror(err));
	return -err;
}

static enum ibv_wr_opcode verb_opcode(const struct rb_session *s)
{
	switch (s->bench->verb) {
	case VERB_WRITE: return s->opt->imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	case VERB_READ: return IBV_WR_RDMA_READ;
	case VERB_ATOMIC:
		return s->opt->atomic_op == ATOMIC_CMP_SWAP ? IBV_WR_ATOMIC_CMP_AND_SWP
							    : IBV_WR_ATOMIC_FETCH_AND_ADD;
	case VERB_SEND: break;
	}
	return s->opt->imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
}

static void post_fill(const struct rb_session *s, int i, struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct rb_qps *q = &s->conn.q;

	sge->addr = (uintptr_t)qps_send_area(q, i);
	sge->length = s->bench->verb == VERB_ATOMIC ? 8 : (uint32_t)s->run.size;
	sge->lkey = qps_lkey(q, i);
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = verb_opcode(s);
	if (q->tr == TR_UD) {
		wr->wr.ud.ah = q->ah[i];
		wr->wr.ud.remote_qpn = q->remote[i].qpn;
		wr->wr.ud.remote_qkey = RB_UD_QKEY;
	} else if (s->bench->verb == VERB_ATOMIC) {
		wr->wr.atomic.remote_addr = qps_remote_addr(q, i);
		wr->wr.atomic.rkey = q->remote[i].rkey ^ (test_fault("bad-rkey") ? 0x5a5aa5u : 0);
		wr->wr.atomic.compare_add = 1;
		wr->wr.atomic.swap = 0;
	} else {
		wr->wr.rdma.remote_addr = qps_remote_addr(q, i);
		wr->wr.rdma.rkey = q->remote[i].rkey ^ (test_fault("bad-rkey") ? 0x5a5aa5u : 0);
	}
}

_Static_assert(offsetof(struct ibv_send_wr, wr.atomic.remote_addr) ==
	       offsetof(struct ibv_send_wr, wr.rdma.remote_addr), "wr_operands sets either through rdma");

/* The most WRs a ring keeps per QP, and for all QPs together. */
#define RING_MAX_WRS 4096u
#define RING_MAX_ALL (1u << 16)

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* post_set's ring: WRs per QP for a whole cycle of addresses, or 0 where
 * each WR's operands must be set as it goes (post_set's comment); at -l 1
 * only where ring says so. */
static uint64_t ring_length(const struct post_set *p, const struct rb_session *s, unsigned list,
			    bool ring)
{
	uint64_t r = p->slots / gcd_u64(p->slots, list) * list;

	if ((list < 2 && !ring) || p->cas || p->stamp || s->conn.q.tx_ring || s->conn.q.n < 1)
		return 0;
#ifdef RB_TEST_DELAY
	if (s->test.delay_ns)
		return 0;
#endif
	if (r > RING_MAX_WRS || r * (uint64_t)s->conn.q.n > RING_MAX_ALL)
		return 0;
	return r;
}

/* WR j of QP i's ring (or list): its operation's addresses (j mod slots),
 * chained to the next WR of its list, unsignalled unless it ends a list of
 * a sig_last template. */
static void post_set_wr(struct post_set *p, const struct rb_session *s, int i, uint64_t j)
{
	struct ibv_send_wr *wr = &p->wr[(size_t)i * p->ring + j];
	bool ends = (j + 1) % p->list == 0;

	post_fill(s, i, wr, &p->sge[(size_t)i * p->ring + j]);
	wr->next = ends ? NULL : wr + 1;
	wr->send_flags = p->base_flags;
	wr->wr_id = WR_ID(i, 0);
	if (p->sig_last && ends) {
		wr->send_flags |= IBV_SEND_SIGNALED;
		wr->wr_id = WR_ID(i, p->list);
	}
	if (p->fixed)
		wr_operands(s, p, i, wr, j);
}

int post_set_init(struct post_set *p, const struct rb_session *s, unsigned list, bool ring)
{
	size_t n;
	bool can_inline = s->bench->verb == VERB_SEND || s->bench->verb == VERB_WRITE;
	unsigned cq_mod = s->run.cq_mod ? s->run.cq_mod : 1;

	memset(p, 0, sizeof(*p));
	p->list = list;
	p->slots = loop_addr_slots(s);
	p->stride = loop_addr_stride(s);
	p->slot_mask = (p->slots & (p->slots - 1)) ? 0 : p->slots - 1;
	p->cas = s->bench->verb == VERB_ATOMIC && s->opt->atomic_op == ATOMIC_CMP_SWAP;
	p->stamp = s->conn.q.tx_ring || s->opt->imm;
	p->remote = s->bench->verb != VERB_SEND && s->conn.q.tr != TR_UD;
	p->ring = ring_length(p, s, list, ring);
	p->fixed = p->ring != 0;
	p->sig_last = p->fixed && cq_mod == list;
	if (!p->fixed)
		p->ring = list;
	n = (size_t)s->conn.q.n * p->ring;
	p->wr = calloc(n, sizeof(*p->wr));
	p->sge = calloc(n, sizeof(*p->sge));
	p->sig = calloc(list, sizeof(*p->sig));
	p->at = calloc((size_t)s->conn.q.n, sizeof(*p->at));
	if (!p->wr || !p->sge || !p->sig || !p->at)
		return -ENOMEM;
	for (int i = 0; i < s->conn.q.n; i++)
		p->at[i] = &p->wr[(size_t)i * p->ring];
	p->base_flags = can_inline && s->run.size <= s->conn.q.max_inline ? IBV_SEND_INLINE : 0;
	for (int i = 0; i < s->conn.q.n; i++)
		for (uint64_t j = 0; j < p->ring; j++)
			post_set_wr(p, s, i, j);
	return 0;
}

void post_set_free(struct post_set *p)
{
	free(p->wr);
	free(p->sge);
	free(p->sig);
	free(p->at);
}

/*
 * Addresses, as perftest (perftest_resources.h increase_loc_addr /
 * increase_rem_addr): the k-th operation of a QP (from 0) uses offset
 * (k mod slots) x stride in its local area and in the peer's, the stride
 * being the size rounded up to a cache line (perftest's INC()), the slots
 * those that fit RB_CYCLE_BYTES (perftest's cycle_buffer, a page).  Sizes
 * above half of it, and latency tests, use one address.  Atomics: 64 slots
 * a cache line apart (one with --atomic-same-address), latency too.
 */
uint64_t loop_addr_stride(const struct rb_session *s)
{
	if (s->bench->verb == VERB_ATOMIC || s->run.size <= RB_LINE_BYTES)
		return RB_LINE_BYTES;
	return (s->run.size + RB_LINE_BYTES - 1) / RB_LINE_BYTES * RB_LINE_BYTES;
}

uint64_t loop_addr_slots(const struct rb_session *s)
{
	if (s->bench->verb == VERB_ATOMIC)
		return s->opt->atomic_same_address ? 1 : RB_CYCLE_BYTES / RB_LINE_BYTES;
	if (s->bench->metric == METRIC_LAT || s->run.size > RB_CYCLE_BYTES / 2)
		return 1;
	return RB_CYCLE_BYTES / loop_addr_stride(s);
}

/* Operation k on QP i returned got: what its slot held before it, k /
 * slots.  A wrong one is named on stderr where say. */
int atomic_result(const struct rb_session *s, int i, uint64_t k, uint64_t got, bool say)
{
	uint64_t slots = loop_addr_slots(s), want = k / slots;

	if (got == want)
		return 0;
	if (say)
		log_err("%s at size %llu: operation %llu on QP %d found %llu in its target word (slot %llu of %llu), not %llu (another writer, or the device's atomics are not atomic)",
			options_atomic_name(s->opt->atomic_op), (unsigned long long)s->run.size,
			(unsigned long long)k, i, (unsigned long long)got,
			(unsigned long long)(k % slots), (unsigned long long)slots, (unsigned long long)want);
	return -EIO;
}

/* What the k-th operation on QP i returned (the last one to land in its
 * slot). */
int atomic_check(const struct rb_session *s, int i, uint64_t k)
{
	uint64_t got;

	if (s->bench->verb != VERB_ATOMIC)	/* before any work: reads pass here per sample */
		return 0;
	memcpy(&got, qps_cpu_send_area(&s->conn.q, i) + k % loop_addr_slots(s) * RB_LINE_BYTES, sizeof(got));
	return atomic_result(s, i, k, got, true);
}

/* What the atomics' checks cover (metadata atomic_check): the latency
 * loop checks each result as it completes (one in flight, its slot not
 * reused before).  The bandwidth loop keeps -t in flight over 64 slots, so
 * a slot's result is overwritten by later operations before the loop could
 * look: it checks the last operation into each slot after the run, unless
 * --validate gives each operation in flight a result word of its own
 * (validate.c), checked at its completion. */
const char *atomic_check_method(const struct rb_session *s)
{
	if (s->bench->metric == METRIC_LAT || s->opt->validate)
		return "every-result";
	return "last-result-per-slot";
}

/* The last operation in each slot of QP i, after posted of them. */
int atomic_check_all(const struct rb_session *s, int i, uint64_t posted)
{
	uint64_t slots = loop_addr_slots(s);
	int err = 0;

	for (uint64_t k = posted > slots ? posted - slots : 0; k < posted && !err; k++)
		err = atomic_check(s, i, k);
	return err;
}

/* ---- bandwidth: the posting side ---- */

struct bw_state {
	struct psched sched;            /* what to post and signal (postsched.h) */
	struct psched_qp *c;
	uint64_t total;                 /* completed, all QPs */
	uint64_t ckpt_every, ckpt_next, ckpt_msgs, ckpt_ns;
	double peak_bps;
};
