/*
 * Reading /sys/class/infiniband and /sys/class/net under a root prefix.
 * Pure file reading: no verbs calls, tested on canned trees.
 */
#include "lib/sysfs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IB_CLASS "/sys/class/infiniband"
#define NET_CLASS "/sys/class/net"
#define GID_SCAN_MAX 4096     /* a bound on tables read without a max */

/* 0 or -errno.  Empty files read as "". */
int sysfs_read(const char *root, const char *path, char *buf, size_t len)
{
	char full[PATH_MAX];
	ssize_t n;
	int fd, err = 0;

	if (len == 0)
		return -EINVAL;
	if (snprintf(full, sizeof(full), "%s%s", root, path) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* sysfs_read of IB_CLASS/ibdev/rel */
static int ib_read(const char *root, const char *ibdev, const char *rel,
		   char *buf, size_t len)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), IB_CLASS "/%s/%s", ibdev, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return sysfs_read(root, path, buf, len);
}

/* sysfs_read of IB_CLASS/ibdev/ports/port/sub/idx ("gids", "gid_attrs/types") */
static int port_read(const char *root, const char *ibdev, int port, const char *sub,
		     int idx, char *buf, size_t len)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "ports/%d/%s/%d", port, sub, idx);
	return ib_read(root, ibdev, rel, buf, len);
}

static int parse_gid(const char *text, uint8_t raw[16])
{
	return inet_pton(AF_INET6, text, raw) == 1 ? 0 : -EINVAL;
}

static bool raw_is_zero(const uint8_t raw[16])
{
	for (int i = 0; i < 16; i++)
		if (raw[i])
			return false;
	return true;
}

/* One entry.  -ENOENT: past the end of the table. */
static int gid_entry_read(const char *root, const char *ibdev, int port, int idx,
			  bool ib_link, struct gid_entry *e)
{
	char text[64];
	int err;

	memset(e, 0, sizeof(*e));
	e->index = idx;
	e->type = GID_TYPE_UNKNOWN;
	err = port_read(root, ibdev, port, "gids", idx, text, sizeof(text));
	if (err)
		return err;
	if (parse_gid(text, e->raw))
		return -EINVAL;
	e->empty = raw_is_zero(e->raw);
	if (e->empty)
		return 0;   /* the kernel refuses to read the attrs of empty slots */
	if (!port_read(root, ibdev, port, "gid_attrs/types", idx, text, sizeof(text)))
		e->type = gid_type_parse(text, ib_link);
	if (port_read(root, ibdev, port, "gid_attrs/ndevs", idx, e->netdev, sizeof(e->netdev)))
		e->netdev[0] = '\0';
	return 0;
}

int sysfs_gid_table(const char *root, const char *ibdev, int port, bool ib_link,
		    struct gid_entry *out, int max)
{
	int n;

	for (n = 0; n < max; n++) {
		int err = gid_entry_read(root, ibdev, port, n, ib_link, &out[n]);

		if (err == -ENOENT)
			break;
		if (err)
			return err;
	}
	return n == 0 && max > 0 ? -ENOENT : n;
}

int sysfs_device_netdev(const char *root, const char *ibdev, char *netdev, size_t len)
{
	if (!ib_read(root, ibdev, "parent", netdev, len) && netdev[0])
		return 0;
	for (int i = 0; i < GID_SCAN_MAX; i++) {
		int err = port_read(root, ibdev, 1, "gid_attrs/ndevs", i, netdev, len);

		if (err == -ENOENT)
			break;
		if (!err && netdev[0])
			return 0;
	}
	if (len)
		netdev[0] = '\0';
	return -ENOENT;
}

static int parse_node(const char *text)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (end == text || v < 0 || v > INT_MAX)
		return -1;
	return (int)v;
}

/* The first numa_node file in dir or one of its parents, staying inside
 * top.  Leaves in dir the directory where it was found. */
static int numa_walk_up(const char *top, char *dir)
{
	size_t top_len = strlen(top);
	char text[32];

	while (strlen(dir) > top_len && strncmp(dir, top, top_len) == 0) {
		char *slash;

		if (!sysfs_read(dir, "/numa_node", text, sizeof(text)))
			return parse_node(text);
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return -2;          /* no numa_node file at all */
}

static int numa_via_netdev(const char *root, const char *ibdev, char *why, size_t len)
{
	char netdev[64], path[PATH_MAX], top[PATH_MAX], dir[PATH_MAX];
	char sys[PATH_MAX];
	int node;

	if (sysfs_device_netdev(root, ibdev, netdev, sizeof(netdev))) {
		snprintf(why, len, "no NUMA information (no device link, no netdev)");
		return -1;
	}
	snprintf(path, sizeof(path), "%s" NET_CLASS "/%s/device", root, netdev);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	if (!realpath(path, dir) || !realpath(sys, top)) {
		snprintf(why, len, "no NUMA information (netdev %s has no device)", netdev);
		return -1;
	}
	node = numa_walk_up(top, dir);
	if (node == -2) {
		snprintf(why, len, "no NUMA information (netdev %s)", netdev);
		return -1;
	}
	snprintf(why, len, "netdev %s -> %s%s", netdev, strrchr(dir, '/') + 1,
		 node < 0 ? " (numa_node -1)" : "");
	return node;
}

int sysfs_device_numa_node(const char *root, const char *ibdev, char *why, size_t len)
{
	char text[32], dummy[8];
	int node;

	if (!why) {
		why = dummy;
		len = sizeof(dummy);
	}
	if (!ib_read(root, ibdev, "device/numa_node", text, sizeof(text))) {
		node = parse_node(text);
		if (node < 0)
			snprintf(why, len, "no NUMA information (device/numa_node %s)", text);
		else
			snprintf(why, len, "device/numa_node");
		return node;
	}
	return numa_via_netdev(root, ibdev, why, len);
}

/* One counter file, ports/P/DIR/NAME. */
static int port_counter_file(const char *root, const char *ibdev, int port, const char *dir,
			     const char *name, uint64_t *val)
{
	char path[PATH_MAX], text[32];
	int err;

	if (snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%d/%s/%s",
		     ibdev, port, dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	err = sysfs_read(root, path, text, sizeof(text));
	if (err)
		return err;
	return sscanf(text, "%" SCNu64, val) == 1 ? 0 : -EINVAL;
}

int sysfs_port_counter_in(const char *root, const char *ibdev, int port, const char *dir,
			  const char *name, uint64_t *val)
{
	int err;

	if (dir)
		return port_counter_file(root, ibdev, port, dir, name, val);
	err = port_counter_file(root, ibdev, port, "counters", name, val);
	if (err == -ENOENT)
		err = port_counter_file(root, ibdev, port, "hw_counters", name, val);
	return err;
}

int sysfs_port_counter(const char *root, const char *ibdev, int port,
		       const char *name, uint64_t *val)
{
	return sysfs_port_counter_in(root, ibdev, port, NULL, name, val);
}
