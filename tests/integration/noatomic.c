/* An LD_PRELOAD shim for bench/atomic.sh and feature/semantics.sh.
 *
 * Without RB_CORRUPT_ATOMICS: ibv_query_device reports a device without
 * atomic operations (atomic_cap NONE), as some devices are; rxe has them,
 * so this is how the "no atomics" path is reached on the test bed.
 *
 * With RB_CORRUPT_ATOMICS=1: the device keeps its atomics, but every
 * atomic work request posted is changed on its way to the device, as a
 * device whose atomics are not what they say would behave: fetch-and-add
 * adds 2 instead of 1, compare-and-swap swaps in one more than asked.  The
 * benchmark's own checks of the values returned must then fail the run.
 * With RB_CORRUPT_ATOMICS=once: only the 65th atomic work request posted
 * (operation 64 of QP 0 with -q 1, slot 0's second) is changed.
 * (ibv_post_send is an inline call through the context's ops: the shim
 * replaces that pointer when a QP is created.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

static int corrupting(void)
{
	const char *v = getenv("RB_CORRUPT_ATOMICS");

	return v && (*v == '1' || *v == 'o');
}

/* Change this atomic WR?  Every one, or (once) the 65th only. */
static int corrupt_this(void)
{
	static unsigned long n;
	const char *v = getenv("RB_CORRUPT_ATOMICS");

	return *v == '1' || n++ == 64;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	int (*next)(struct ibv_context *, struct ibv_device_attr *) =
		(int (*)(struct ibv_context *, struct ibv_device_attr *))dlsym(RTLD_NEXT, "ibv_query_device");
	int err = next ? next(ctx, attr) : -1;

	if (!err && !corrupting())
		attr->atomic_cap = IBV_ATOMIC_NONE;
	return err;
}

typedef int (*post_send_fn)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
static post_send_fn real_post_send;

static int corrupt_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	for (struct ibv_send_wr *w = wr; w; w = w->next) {
		if ((w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP) &&
		    !corrupt_this())
			continue;
		if (w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			w->wr.atomic.compare_add = 2;
		else if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP)
			w->wr.atomic.swap += 1;
	}
	return real_post_send(qp, wr, bad);
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *(*next)(struct ibv_pd *, struct ibv_qp_init_attr *) =
		(struct ibv_qp *(*)(struct ibv_pd *, struct ibv_qp_init_attr *))dlsym(RTLD_NEXT, "ibv_create_qp");
	struct ibv_qp *qp = next ? next(pd, attr) : NULL;

	if (qp && corrupting() && qp->context->ops.post_send != corrupt_post_send) {
		real_post_send = qp->context->ops.post_send;
		qp->context->ops.post_send = corrupt_post_send;
	}
	return qp;
}
