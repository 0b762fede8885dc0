/*
 * The QPs' memory (qp.h): the buffers behind the memory interface (mem.h)
 * and their MRs.  Without --mr_per_qp one buffer holds every QP's area
 * (q->slot bytes each, in QP order) under one MR; with it each QP has a
 * buffer and an MR of its own, as perftest's create_mr() makes them, and
 * the peer learns each QP's address and rkey in the QP exchange (each
 * wire_qp carries both either way: qp_connect.c).  The limits a run of
 * many MRs meets are checked before the first allocation, so that -q 1024
 * fails up front, naming -q and --mr_per_qp, rather than at MR 700.
 */
#include "verbs/qp.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "cli/options.h"
#include "lib/log.h"

int qps_mr_count(const struct rb_qps *q)
{
	return q->nbufs;
}

/* -q N, or "-q N -j J" where J threads each make N. */
static const char *qps_text(int n, unsigned threads, char *buf, size_t len)
{
	if (threads > 1)
		snprintf(buf, len, "-q %d -j %u", n, threads);
	else
		snprintf(buf, len, "-q %d", n);
	return buf;
}

/* The device's max_mr against all threads' MRs. */
static int mr_count_fits(struct ibv_context *ctx, size_t all, const char *qs)
{
	struct ibv_device_attr a;

	if (ibv_query_device(ctx, &a) || all <= (size_t)a.max_mr)
		return 0;
	log_err("%s with --mr_per_qp needs %zu MRs, over %s's max_mr %d: give fewer QPs, or drop --mr_per_qp",
		qs, all, ibv_get_device_name(ctx->device), a.max_mr);
	return -EINVAL;
}

/* The locked-memory limit against all buffers of len bytes (root, and an
 * unlimited limit, pass: the kernel charges neither). */
static int memlock_fits(size_t len, size_t all, const char *qs)
{
	struct rlimit rl;

	if (geteuid() == 0 || getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    len * all <= rl.rlim_cur)
		return 0;
	log_err("%s with --mr_per_qp registers %zu buffers of %zu KiB (%zu KiB in all), over the locked-memory limit of %llu KiB: raise it with `ulimit -l unlimited`, or give fewer QPs",
		qs, all, len >> 10, (len * all) >> 10, (unsigned long long)rl.rlim_cur >> 10);
	return -ENOMEM;
}

/* Before the first buffer: every thread's (-j: each makes as many). */
static int bufs_check(const struct rb_qps *q, struct ibv_context *ctx, const struct rb_options *o,
		      const struct mem_ops *kind)
{
	size_t all = (size_t)q->nbufs * (o->threads > 1 ? o->threads : 1);
	char qs[32];

	if (q->nbufs == 1)
		return 0;
	qps_text(q->n, o->threads, qs, sizeof(qs));
	if (mr_count_fits(ctx, all, qs))
		return -EINVAL;
	if (mem_fits_n(kind, q->slot, all)) {
		log_err("%s with --mr_per_qp: a buffer of %zu KiB per QP does not fit; give fewer QPs, or drop --mr_per_qp (one buffer for all)",
			qs, q->slot >> 10);
		return -ENOMEM;
	}
	return memlock_fits(q->slot, all, qs);
}

/* --mr_per_qp: QPs 1 .. n - 1, a buffer and an MR each. */
static int bufs_more(struct rb_qps *q, const struct mem_ops *kind, int node, int *access)
{
	for (int b = 0; b < q->nbufs - 1; b++) {
		int err = mem_alloc(&q->more[b], kind, q->slot, node);

		if (err) {
			log_err("--mr_per_qp: the buffer of QP %d of %d failed", b + 1, q->n);
			return err;
		}
		q->more_mr[b] = mem_register(q->pd, &q->more[b], access);
		if (!q->more_mr[b]) {
			log_err("--mr_per_qp: the MR of QP %d of %d failed", b + 1, q->n);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Where each QP's area is: its slot of the one buffer, or its own. */
static void bufs_areas(struct rb_qps *q)
{
	for (int i = 0; i < q->n; i++) {
		bool own = q->nbufs > 1 && i > 0;
		size_t off = q->nbufs == 1 ? qps_send_off(q, i) : 0;
		const struct mem_buf *b = own ? &q->more[i - 1] : &q->buf;
		const struct ibv_mr *mr = own ? q->more_mr[i - 1] : q->mr;

		q->area[i] = (struct rb_qp_area){
			.addr = (own ? (char *)b->addr : q->dma) + off,
			.cpu = (uint8_t *)b->view + off,
			.lkey = mr->lkey,
			.rkey = mr->rkey,
		};
	}
}

int qps_bufs_check(struct rb_qps *q, struct ibv_context *ctx, const struct rb_options *o)
{
	q->nbufs = o->mr_per_qp ? q->n : 1;
	q->area = calloc((size_t)q->n, sizeof(*q->area));
	q->more = calloc((size_t)q->nbufs, sizeof(*q->more));
	q->more_mr = calloc((size_t)q->nbufs, sizeof(*q->more_mr));
	if (!q->area || !q->more || !q->more_mr)
		return -ENOMEM;
	return bufs_check(q, ctx, o, mem_kind_for(o));
}

/* After the first buffer's MR (qp.c: relaxed ordering as it got it). */
int qps_bufs_more(struct rb_qps *q, const struct rb_options *o, int node)
{
	int access = q->access | (q->relaxed == RO_REQUESTED ? IBV_ACCESS_RELAXED_ORDERING : 0);
	int err = bufs_more(q, mem_kind_for(o), node, &access);

	if (err)
		return err;
	bufs_areas(q);
	return 0;
}

void qps_bufs_free(struct rb_qps *q)
{
	for (int b = q->nbufs - 2; b >= 0 && q->more && q->more_mr; b--) {
		if (q->more_mr[b])
			ibv_dereg_mr(q->more_mr[b]);
		mem_free(&q->more[b]);
	}
	if (q->mr)
		ibv_dereg_mr(q->mr);
	mem_free(&q->bounce);
	mem_free(&q->buf);
	free(q->more_mr);
	free(q->more);
	free(q->area);
	q->mr = NULL;
	q->more_mr = NULL;
	q->more = NULL;
	q->area = NULL;
	q->nbufs = 0;
}
