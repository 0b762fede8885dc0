/*
 * Verbs objects of one session: PD, buffer and MR, completion channel, CQs,
 * QPs (and UD address handles), their creation, connection (INIT -> RTR ->
 * RTS with the peer's attributes) and destruction in reverse order.
 *
 *   qp.c           creation (the buffer's layout, inline sizes, CQs) and
 *                  destruction
 *   qp_buf.c       the buffers and MRs: one for all, or one per QP
 *   qp_connect.c   the states, address handles, what the QPs got (MTU,
 *                  outstanding reads, attributes read back)
 */
#ifndef RB_QP_H
#define RB_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "cli/bench.h"
#include "verbs/mem.h"
#include "verbs/odp.h"
#include "verbs/placement.h"
#include "lib/wire.h"

#define RB_UD_GRH 40
/* perftest's cycle_buffer (the page size) and cache line: operations step
 * through the first RB_CYCLE_BYTES of an area (src/engine/wr.c loop_addr_slots). */
#define RB_CYCLE_BYTES 4096u
#define RB_LINE_BYTES 64u
#define RB_UD_QKEY 0x11111111u

struct rb_options;
struct rb_device;

/* What a connected QP runs with, read back with ibv_query_qp(). */
struct rb_qp_attrs {
	uint32_t qpn;
	int path_mtu;                   /* bytes */
	unsigned timeout, retry_cnt, rnr_retry, min_rnr_timer;
	unsigned sl, traffic_class;     /* UD: those of the address handles */
	unsigned flow_label, hop_limit; /* the GRH's (UD: the address handles') */
	unsigned sl_given;              /* the SL given at RTR (rxe reports 0) */
	unsigned max_rd_atomic, max_dest_rd_atomic;
	uint32_t max_inline;
};

/* QP i's area: its start for the device (SGEs, the peer's RDMA) and for
 * the CPU (the buffer's view: NULL-based where the kind forbids it), and
 * its MR's keys. */
struct rb_qp_area {
	char *addr;
	uint8_t *cpu;
	uint32_t lkey, rkey;
};

struct rb_qps {
	struct ibv_pd *pd;
	struct mem_buf buf;               /* its kind: mem.h */
	/* --bounce: the registered host buffer that buf's bytes are staged
	 * through, a copy each message (validate.c); empty (ops NULL): none */
	struct mem_buf bounce;
	char *dma;                      /* the registered bytes: buf's, or bounce's */
	struct ibv_mr *mr;
	/* --mr_per_qp (qp_buf.c): buf and mr are QP 0's, more[i - 1] and
	 * more_mr[i - 1] QP i's; nbufs MRs in all (1 without it) */
	struct mem_buf *more;
	struct ibv_mr **more_mr;
	int nbufs;
	struct rb_qp_area *area;        /* per QP: where its area is, in either */
	struct ibv_comp_channel *chan;
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_qp **qp;
	struct ibv_ah **ah;             /* UD only */
	int n;
	size_t slot;                    /* bytes per QP: [send area | recv area],
					 * each at least RB_CYCLE_BYTES */
	size_t max_size;
	uint32_t inline_ask;            /* what QPs are created with: -I or the test's default */
	uint32_t inline_granted;        /* cap.max_inline_data the device wrote back */
	uint32_t max_inline;            /* in use: sizes up to this go inline */
	unsigned outs;                  /* outstanding reads/atomics, both sides agreed */
	enum ibv_mtu mtu;               /* the path MTU in use */
	unsigned mtu_ask;               /* -m, or the peer's when smaller (HELLO); 0: none */
	struct wire_qp *local, *remote;
	enum rb_transport tr;
	int access;                     /* MR access flags */
	/* --odp: the device's capabilities, and the buffer's bytes in
	 * memory once its ODP MR was registered (0: none faulted in yet) */
	struct odp_caps odp;
	size_t odp_resident;
	enum { RO_OFF, RO_REQUESTED, RO_REFUSED } relaxed; /* PCIe relaxed ordering of the MR */
	struct rb_qp_attrs attrs;       /* QP 0's, read back after connection */
	unsigned cm_sl;                 /* -R: the SL cm.c gave at RTR */
	/* --validate with sends: each of a QP's -r receives has a buffer of
	 * its own in the receive area (a ring, in posting order: a QP's
	 * receives complete in the order they were posted), so that a
	 * message is checked before another lands on it.  ring 0: off. */
	unsigned ring;
	size_t ring_stride;
	uint64_t *ring_posted, *ring_done;      /* per QP */
	/* --validate on a bandwidth loop's posting side (sends, writes,
	 * reads, atomics): the k-th WR of a QP has buffer k mod tx_ring of
	 * the send area (stride ring_stride) to itself, -t of them, so that
	 * each message's payload (its sequence number, pattern.h) is written,
	 * or a read's or an atomic's landing place poisoned, only once the WR
	 * that used the buffer before has completed.  0: off (perftest's
	 * slots). */
	unsigned tx_ring;
	/*
	 * Receives.  --use_srq: the QPs' one shared receive queue (-r deep),
	 * each receive's wr_id its buffer b (QP b mod n's area, or with
	 * --validate that QP's ring buffer b / n), the message's QP found by
	 * its qp_num (qps_index_of).  The engine's general receive path
	 * (rx_general: immediate data, SRQ, receive post lists, --validate's
	 * ring; engine/recv.c) keeps its state here: each QP's next immediate
	 * sequence number, the receives waiting to be posted rx_list at a time
	 * (a list per QP, one with an SRQ), the SRQ's buffers not posted.
	 */
	struct ibv_srq *srq;
	bool rx_general;
	bool imm;                       /* receives carry immediate data, checked */
	unsigned rx_list;               /* receives per post, at least 1 */
	unsigned rx_depth;              /* receives posted at most: -r per QP, or the SRQ's -r */
	uint32_t *imm_next;             /* per QP */
	struct ibv_recv_wr *rx_wr;      /* lists x rx_list, waiting */
	struct ibv_sge *rx_sge;
	unsigned *rx_pend;              /* per list: how many wait */
	uint32_t *rx_free;              /* SRQ: buffers not posted, rx_nfree of them */
	unsigned rx_nfree;
	struct rb_mcast *mc;            /* -g (verbs/mcast.h), NULL: off */
};

/* Per QP i, offsets in the one buffer (without --mr_per_qp; with it
 * each QP's areas are at qps_in_area's offsets of its own): its send area, its receive area, the
 * buffer of its n-th receive (--validate with sends, from 0), of its k-th
 * WR (--validate's posting side, from 0). */
static inline size_t qps_send_off(const struct rb_qps *q, int i)
{
	return (size_t)i * q->slot;
}

static inline size_t qps_recv_off(const struct rb_qps *q, int i)
{
	return qps_send_off(q, i) + q->slot / 2;
}

static inline size_t qps_ring_off(const struct rb_qps *q, int i, uint64_t n)
{
	return qps_recv_off(q, i) + n % q->ring * q->ring_stride;
}

static inline size_t qps_tx_off(const struct rb_qps *q, int i, uint64_t k)
{
	return qps_send_off(q, i) + k % q->tx_ring * q->ring_stride;
}

/* Those places as the device's addresses (SGEs, the peer's RDMA): where
 * this side sends from and receives into.  Each QP's area (q->area) starts
 * at its offset in the one buffer, or at its own buffer (--mr_per_qp):
 * the places are taken from it (in_area: the offset past its start). */
static inline size_t qps_in_area(const struct rb_qps *q, int i, size_t off)
{
	return off - qps_send_off(q, i);
}

static inline char *qps_send_area(const struct rb_qps *q, int i)
{
	return q->area[i].addr;
}

static inline char *qps_recv_area(const struct rb_qps *q, int i)
{
	return q->area[i].addr + q->slot / 2;
}

static inline char *qps_ring_buf(const struct rb_qps *q, int i, uint64_t n)
{
	return q->area[i].addr + qps_in_area(q, i, qps_ring_off(q, i, n));
}

static inline char *qps_tx_buf(const struct rb_qps *q, int i, uint64_t k)
{
	return q->area[i].addr + qps_in_area(q, i, qps_tx_off(q, i, k));
}

/* The same places for the CPU to load and store: only where the memory
 * kind lets it (mem_cpu_ok(&q->buf), checked once at setup:
 * engine/touch.c), or on its host copy (--validate: mem.h's stage);
 * NULL-based otherwise, never a device address. */
static inline uint8_t *qps_cpu_send_area(const struct rb_qps *q, int i)
{
	return q->area[i].cpu;
}

static inline uint8_t *qps_cpu_recv_area(const struct rb_qps *q, int i)
{
	return q->area[i].cpu + q->slot / 2;
}

static inline uint8_t *qps_cpu_ring_buf(const struct rb_qps *q, int i, uint64_t n)
{
	return q->area[i].cpu + qps_in_area(q, i, qps_ring_off(q, i, n));
}

static inline uint8_t *qps_cpu_tx_buf(const struct rb_qps *q, int i, uint64_t k)
{
	return q->area[i].cpu + qps_in_area(q, i, qps_tx_off(q, i, k));
}

/* The place at offset off of the one buffer's layout, inside QP a's area:
 * in its own buffer with --mr_per_qp (the device's address, the CPU's). */
static inline uintptr_t qps_addr_at(const struct rb_qps *q, int a, size_t off)
{
	return (uintptr_t)q->area[a].addr + qps_in_area(q, a, off);
}

static inline uint8_t *qps_cpu_at(const struct rb_qps *q, int a, size_t off)
{
	return q->area[a].cpu + qps_in_area(q, a, off);
}

/* The lkey of the MR that holds QP i's area (its own with --mr_per_qp). */
static inline uint32_t qps_lkey(const struct rb_qps *q, int i)
{
	return q->area[i].lkey;
}

/* The peer's receive area of QP i (the target of writes, reads, atomics). */
static inline uint64_t qps_remote_addr(const struct rb_qps *q, int i)
{
	return q->remote[i].addr;
}

/*
 * Allocate PD, buffer (max_size per QP, NUMA-placed), MR (minimum access
 * for the verb), channel, CQs; then the QPs unless create_qps is false
 * (rdma_cm creates them with qps_init_attr()).  On failure everything made
 * so far is released.  0 or -errno.
 */
int qps_create(struct rb_qps *q, struct ibv_context *ctx, const struct rb_bench *b,
	       const struct rb_options *o, size_t max_size, const struct placement *p,
	       bool create_qps);
void qps_init_attr(const struct rb_qps *q, const struct rb_options *o,
		   struct ibv_qp_init_attr *attr);
/*
 * Create one QP (both paths: under -R too, cm.c moves it through the
 * states itself) with the inline size q->inline_ask, then keep what the device
 * granted: q->max_inline = the smaller of both (said on stderr when less
 * than asked).  Without -I, a refused default is lowered step by step (and
 * said); a refused -I fails, naming the largest size the device accepts.
 */
struct ibv_qp *qps_create_qp(struct rb_qps *q, const struct rb_options *o);
/* "sizes <= 220 B", "off": what the metadata says about inline. */
const char *qps_inline_text(const struct rb_qps *q, char *buf, size_t len);
/* The MR's relaxed ordering: "requested" (IBV_ACCESS_RELAXED_ORDERING
 * given; providers without it ignore it), "refused" (ibv_reg_mr failed
 * with it; registered without), "off" (--disable-pcie-relaxed). */
const char *qps_relaxed_text(const struct rb_qps *q);
/* After QP creation: read back the granted inline size, fill local[]. */
void qps_describe(struct rb_qps *q, const struct rb_device *d);
/* Manual connection with the peer's attributes in q->remote. */
int qps_connect(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o,
		const struct rb_bench *b);
/* After connection (either way): read back every QP's attributes, say
 * them with --verbose, keep QP 0's in q->attrs and its path MTU in q->mtu. */
int qps_read_attrs(struct rb_qps *q, const struct rb_options *o);
/* --rate_limit_type=HW or PP: can the device pace (else an error naming
 * it, suggesting SW: -EOPNOTSUPP); then each QP's limit set. */
int device_check_pacing(const struct rb_device *d, const struct rb_options *o);
int qps_rate_limit(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o);
/* After connection: q->outs becomes what the QP got, the smaller of its
 * max_rd_atomic and max_dest_rd_atomic (a provider may round up: rxe to a
 * power of two).  RC only. */
void qps_read_outs(struct rb_qps *q);
void qps_destroy(struct rb_qps *q);
/* The index of the QP whose number is qpn (a completion's qp_num), or -1. */
int qps_index_of(const struct rb_qps *q, uint32_t qpn);

/*
 * qp_buf.c, --mr_per_qp: qps_bufs_check before the first buffer (q->nbufs,
 * the device's max_mr, the memory available, the locked-memory limit);
 * qp.c makes the first buffer and its MR (QP 0's with --mr_per_qp);
 * qps_bufs_more the other QPs' and fills q->area either way.  0 or -errno
 * after a message.  qps_bufs_free: every buffer and MR, in reverse order,
 * any state.
 */
int qps_bufs_check(struct rb_qps *q, struct ibv_context *ctx, const struct rb_options *o);
int qps_bufs_more(struct rb_qps *q, const struct rb_options *o, int node);
void qps_bufs_free(struct rb_qps *q);
/* How many MRs q holds: 1, or with --mr_per_qp one per QP. */
int qps_mr_count(const struct rb_qps *q);

#endif
