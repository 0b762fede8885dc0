/*
 * Verbs objects of one session: PD, buffer and MR, completion channel, CQs,
 * QPs (and UD address handles), their creation, connection (INIT -> RTR ->
 * RTS with the peer's attributes) and destruction in reverse order.
 */
#ifndef RB_QP_H
#define RB_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <infiniband/verbs.h>

#include "bench.h"
#include "memory.h"
#include "wire.h"

#define RB_UD_GRH 40
/* perftest's cycle_buffer (the page size) and cache line: operations step
 * through the first RB_CYCLE_BYTES of an area (loops.c loop_addr_slots). */
#define RB_CYCLE_BYTES 4096u
#define RB_LINE_BYTES 64u
#define RB_UD_QKEY 0x11111111u

struct rb_options;
struct rb_device;

struct rb_qps {
	struct ibv_pd *pd;
	struct rb_buf buf;
	struct ibv_mr *mr;
	struct ibv_comp_channel *chan;
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_qp **qp;
	struct ibv_ah **ah;             /* UD only */
	int n;
	size_t slot;                    /* bytes per QP: [send area | recv area],
					 * each at least RB_CYCLE_BYTES */
	size_t max_size;
	uint32_t max_inline;            /* granted by the device */
	unsigned outs;                  /* outstanding reads/atomics granted */
	enum ibv_mtu mtu;               /* the path MTU in use */
	struct wire_qp *local, *remote;
	enum rb_transport tr;
	int access;                     /* MR access flags */
};

/* Per QP i: where this side sends from and receives into. */
static inline char *qps_send_area(const struct rb_qps *q, int i)
{
	return (char *)q->buf.addr + (size_t)i * q->slot;
}

static inline char *qps_recv_area(const struct rb_qps *q, int i)
{
	return qps_send_area(q, i) + q->slot / 2;
}

/* Which QP's send area holds local address addr. */
static inline int qps_area_qp(const struct rb_qps *q, uint64_t addr)
{
	return (int)((addr - (uint64_t)(uintptr_t)q->buf.addr) / q->slot);
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
/* After QP creation: read back the granted inline size, fill local[]. */
void qps_describe(struct rb_qps *q, const struct rb_device *d);
/* Manual connection with the peer's attributes in q->remote. */
int qps_connect(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o,
		const struct rb_bench *b);
void qps_destroy(struct rb_qps *q);

/* The completion status with what it usually means ("remote access
 * error: wrong rkey or address?"). */
const char *qps_wc_hint(enum ibv_wc_status st);

#endif
