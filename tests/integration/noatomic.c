/* An LD_PRELOAD shim for t_16_atomic.sh: ibv_query_device reports a device
 * without atomic operations (atomic_cap NONE), as some devices are; rxe has
 * them, so this is how the "no atomics" path is reached on the test bed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <infiniband/verbs.h>

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	int (*next)(struct ibv_context *, struct ibv_device_attr *) =
		(int (*)(struct ibv_context *, struct ibv_device_attr *))dlsym(RTLD_NEXT, "ibv_query_device");
	int err = next ? next(ctx, attr) : -1;

	if (!err)
		attr->atomic_cap = IBV_ATOMIC_NONE;
	return err;
}
