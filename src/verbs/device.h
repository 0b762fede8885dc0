/*
 * Opening an RDMA device and choosing its port and GID.  Errors are logged
 * with the device, port and index, and a hint (no devices: how to list them
 * or load rxe; port not ACTIVE; GID index out of range or empty).
 */
#ifndef RB_DEVICE_H
#define RB_DEVICE_H

#include <stdbool.h>
#include <infiniband/verbs.h>
#include "lib/gid.h"

struct rb_device {
	struct ibv_context *ctx;
	bool own_ctx;                  /* false when adopted from rdma_cm */
	struct ibv_device_attr attr;
	struct ibv_port_attr port_attr;
	char name[64];
	int port;
	bool ib_link;                  /* link layer InfiniBand (else Ethernet) */
	struct gid_entry gid;          /* the chosen GID */
	bool gid_auto;                 /* chosen by gid_choose, not -x */
	char gid_why[160];
	int numa_node;                 /* -1: none */
	char numa_why[160];
};

/* ibv_get_device_list; with none, logs how to list or create one and
 * returns NULL (nothing to free). */
struct ibv_device **device_list(int *n, const char *hint);
/* The end of every "no RDMA devices found" hint. */
#define DEVICE_HINT_RXE "without hardware create a Soft-RoCE device: " \
	"`rdma link add rxe0 type rxe netdev IF` or use scripts/testbed/rb-testbed"
/* The device called name (NULL: the first), or NULL after logging the names
 * that exist. */
struct ibv_device *device_find(struct ibv_device **list, int n, const char *name);

/* name NULL: the first device.  gid_index -1: choose (gid_choose). */
int device_open(const char *name, int port, int gid_index, struct rb_device *d);
/* Same checks on a context that rdma_cm opened (not closed by device_close). */
int device_adopt(struct ibv_context *ctx, int port, int gid_index, struct rb_device *d);
void device_close(struct rb_device *d);

/* The port's whole GID table, empty slots included: ibv_query_gid_table,
 * else sysfs, else ibv_query_gid_ex slot by slot.  The number of entries (at most max) or -errno. */
int device_gid_table(struct ibv_context *ctx, int port, bool ib_link,
		     struct gid_entry *t, int max);

/* "1024" for IBV_MTU_1024, and back. 0 for an invalid value. */
int device_mtu_bytes(enum ibv_mtu mtu);
enum ibv_mtu device_mtu_enum(int bytes);

#endif
