/*
 * Opening an RDMA device, checking its port and choosing the GID.  Every
 * error names the device, port and index and says what to try next.
 */
#include "verbs/device.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/sysfs.h"

#define NO_DEVICES_HINT "list them with `rb_devices` or `ibv_devices`; " DEVICE_HINT_RXE

int device_mtu_bytes(enum ibv_mtu mtu)
{
	if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
		return 0;
	return 128 << mtu;
}

enum ibv_mtu device_mtu_enum(int bytes)
{
	for (int m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if (128 << m == bytes)
			return (enum ibv_mtu)m;
	return 0;
}

/* "mlx5_0, mlx5_1" */
static void device_names(struct ibv_device **list, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 ibv_get_device_name(list[i]));
}

struct ibv_device **device_list(int *n, const char *hint)
{
	struct ibv_device **list = ibv_get_device_list(n);

	if (list && *n > 0)
		return list;
	if (list)
		ibv_free_device_list(list);
	else if (errno != ENOSYS)
		log_warn("ibv_get_device_list: %s", strerror(errno));
	log_err("no RDMA devices found; %s", hint);
	*n = 0;
	return NULL;
}

struct ibv_device *device_find(struct ibv_device **list, int n, const char *name)
{
	char names[512];

	if (!name)
		return list[0];
	for (int i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			return list[i];
	device_names(list, n, names, sizeof(names));
	log_err("no RDMA device named %s; the devices are: %s", name, names);
	return NULL;
}

/* "0-1, 4": the non-empty entries, for error messages. */
static void gid_valid_list(const struct gid_entry *t, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		int j = i;

		if (t[i].empty)
			continue;
		while (j + 1 < n && !t[j + 1].empty)
			j++;
		if (j > i)
			used += snprintf(buf + used, len - used, "%s%d-%d", used ? ", " : "",
					 t[i].index, t[j].index);
		else
			used += snprintf(buf + used, len - used, "%s%d", used ? ", " : "",
					 t[i].index);
		i = j;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static enum gid_type gid_type_of_verbs(uint32_t t, bool ib_link)
{
	if (t == IBV_GID_TYPE_ROCE_V2)
		return GID_TYPE_ROCE_V2;
	return ib_link ? GID_TYPE_IB : GID_TYPE_ROCE_V1;
}

/* Slot index of the table: empty, or what verbs says of it (ge). */
static void gid_from_verbs(struct gid_entry *e, int index, const struct ibv_gid_entry *ge,
			   bool ib_link)
{
	*e = (struct gid_entry){ .index = index, .empty = ge == NULL };
	if (!ge)
		return;
	memcpy(e->raw, ge->gid.raw, 16);
	e->type = gid_type_of_verbs(ge->gid_type, ib_link);
	if (!ge->ndev_ifindex || !if_indextoname(ge->ndev_ifindex, e->netdev))
		e->netdev[0] = '\0';
}

/* Where sysfs is not readable (a container without /sys): ask verbs. */
static int gid_table_verbs(struct ibv_context *ctx, int port, bool ib_link,
			   struct gid_entry *t, int max)
{
	for (int i = 0; i < max; i++) {
		struct ibv_gid_entry ge;
		int err = ibv_query_gid_ex(ctx, (uint32_t)port, (uint32_t)i, &ge, 0);

		gid_from_verbs(&t[i], i, err ? NULL : &ge, ib_link);
	}
	return max;
}

/*
 * Every valid entry of every port in one call (rdma-core 29, kernel 5.9):
 * rxe's 1024-slot table is one ioctl instead of 1024 sysfs reads, a third
 * of a client's start-up system calls.  -errno where it is not supported.
 */
static int gid_table_bulk(struct ibv_context *ctx, int port, bool ib_link,
			  struct gid_entry *t, int max)
{
	struct ibv_device_attr dattr;
	struct ibv_gid_entry *all;
	size_t cap = 0;
	ssize_t n;

	if (ibv_query_device(ctx, &dattr))
		return -EIO;
	for (int p = 1; p <= dattr.phys_port_cnt; p++) {
		struct ibv_port_attr pattr;

		if (ibv_query_port(ctx, (uint8_t)p, &pattr))
			return -EIO;
		cap += pattr.gid_tbl_len > 0 ? (size_t)pattr.gid_tbl_len : 0;
	}
	all = calloc(cap ? cap : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	n = ibv_query_gid_table(ctx, all, cap, 0);
	if (n < 0) {
		free(all);
		return (int)n;
	}
	for (int i = 0; i < max; i++)
		gid_from_verbs(&t[i], i, NULL, ib_link);
	for (ssize_t k = 0; k < n; k++) {
		const struct ibv_gid_entry *ge = &all[k];

		if ((int)ge->port_num == port && ge->gid_index < (uint32_t)max)
			gid_from_verbs(&t[ge->gid_index], (int)ge->gid_index, ge, ib_link);
	}
	free(all);
	return max;
}

int device_gid_table(struct ibv_context *ctx, int port, bool ib_link,
		     struct gid_entry *t, int max)
{
	const char *name = ibv_get_device_name(ctx->device);
	int n = gid_table_bulk(ctx, port, ib_link, t, max);

	if (n > 0)
		return n;
	n = sysfs_gid_table("", name, port, ib_link, t, max);
	if (n > 0)
		return n;
	log_verbose("%s port %d: GID table not readable in sysfs (%s), asking verbs",
		    name, port, strerror(-n));
	return gid_table_verbs(ctx, port, ib_link, t, max);
}

static int gid_pick(struct rb_device *d, const struct gid_entry *t, int n, int want)
{
	char valid[256];

	gid_valid_list(t, n, valid, sizeof(valid));
	if (want >= n || (want >= 0 && t[want].empty)) {
		log_err("GID index %d on %s port %d is %s (the table has %d entries); "
			"valid indexes: %s", want, d->name, d->port,
			want >= n ? "out of range" : "empty", n, valid);
		return -EINVAL;
	}
	if (want >= 0) {
		snprintf(d->gid_why, sizeof(d->gid_why), "-x %d", want);
		return want;
	}
	want = gid_choose(t, n, d->ib_link, d->gid_why, sizeof(d->gid_why));
	if (want < 0)
		log_err("no usable GID on %s port %d: is its netdev up with an IP address?",
			d->name, d->port);
	return want;
}

static int device_gid(struct rb_device *d, int gid_index)
{
	int max = d->port_attr.gid_tbl_len > 0 ? d->port_attr.gid_tbl_len : 1;
	struct gid_entry *t = calloc((size_t)max, sizeof(*t));
	int n, i;

	if (!t)
		return -ENOMEM;
	n = device_gid_table(d->ctx, d->port, d->ib_link, t, max);
	i = gid_pick(d, t, n, gid_index);
	if (i >= 0) {
		d->gid = t[i];
		d->gid_auto = gid_index < 0;
	}
	free(t);
	return i < 0 ? i : 0;
}

static int port_check(struct rb_device *d, int port)
{
	int err;

	if (port < 1 || port > d->attr.phys_port_cnt) {
		log_err("%s has no port %d; its ports are 1 to %d", d->name, port,
			d->attr.phys_port_cnt);
		return -EINVAL;
	}
	d->port = port;
	err = ibv_query_port(d->ctx, (uint8_t)port, &d->port_attr);
	if (err) {
		log_err("%s port %d: ibv_query_port: %s", d->name, port, strerror(err));
		return -err;
	}
	if (d->port_attr.state != IBV_PORT_ACTIVE) {
		log_err("%s port %d is %s, not ACTIVE: check the link (`rdma link show`) "
			"and, for rxe, that its netdev is up", d->name, port,
			ibv_port_state_str(d->port_attr.state));
		return -ENETDOWN;
	}
	d->ib_link = d->port_attr.link_layer == IBV_LINK_LAYER_INFINIBAND;
	return 0;
}

static int device_setup(struct rb_device *d, int port, int gid_index)
{
	int err;

	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(d->ctx->device));
	err = ibv_query_device(d->ctx, &d->attr);
	if (err) {
		log_err("%s: ibv_query_device: %s", d->name, strerror(err));
		return -err;
	}
	err = port_check(d, port);
	if (!err)
		err = device_gid(d, gid_index);
	if (err)
		return err;
	d->numa_node = sysfs_device_numa_node("", d->name, d->numa_why, sizeof(d->numa_why));
	log_verbose("%s port %d: GID index %d (%s); NUMA node %d (%s)", d->name, d->port,
		    d->gid.index, d->gid_why, d->numa_node, d->numa_why);
	return 0;
}

static struct ibv_context *device_open_ctx(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device *dev;
	int n = 0;
	struct ibv_device **list = device_list(&n, NO_DEVICES_HINT);

	if (!list)
		return NULL;
	dev = device_find(list, n, name);
	if (!dev)
		goto out;
	ctx = ibv_open_device(dev);
	if (!ctx)
		log_err("cannot open %s: %s", ibv_get_device_name(dev), strerror(errno));
out:
	ibv_free_device_list(list);
	return ctx;
}

int device_open(const char *name, int port, int gid_index, struct rb_device *d)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->numa_node = -1;
	d->ctx = device_open_ctx(name);
	if (!d->ctx)
		return -ENODEV;
	d->own_ctx = true;
	err = device_setup(d, port, gid_index);
	if (err)
		device_close(d);
	return err;
}

int device_adopt(struct ibv_context *ctx, int port, int gid_index, struct rb_device *d)
{
	memset(d, 0, sizeof(*d));
	d->numa_node = -1;
	d->ctx = ctx;
	d->own_ctx = false;
	return device_setup(d, port, gid_index);
}

void device_close(struct rb_device *d)
{
	if (d->ctx && d->own_ctx)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
	d->own_ctx = false;
}
