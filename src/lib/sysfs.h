/*
 * Reading /sys/class/infiniband and /sys/class/net.  Every function takes a
 * root prefix ("" for the real system, a canned tree in unit tests), so the
 * logic is tested without a device.
 */
#ifndef RB_SYSFS_H
#define RB_SYSFS_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/gid.h"

/* Read the port's GID table (ports/P/gids/I, gid_attrs/types/I,
 * gid_attrs/ndevs/I).  Returns the number of entries read (max at most) or
 * -errno.  ib_link selects how "IB/RoCE v1" is read. */
int sysfs_gid_table(const char *root, const char *ibdev, int port, bool ib_link,
		    struct gid_entry *out, int max);

/*
 * NUMA node of an RDMA device: device/numa_node when the device has a
 * device link (a PCI HCA); otherwise through its netdev (the "parent" file,
 * else the first gid_attrs/ndevs entry of port 1): /sys/class/net/IF/device
 * and then each parent directory up to the root, the first numa_node file
 * found.  -1 when there is none (rxe on a dummy) or it reads -1.
 * If why is not NULL, writes how it was found ("device/numa_node",
 * "netdev eth0 -> 0000:0b:01.0", "no NUMA information").
 */
int sysfs_device_numa_node(const char *root, const char *ibdev, char *why, size_t len);

/* The netdev under an RDMA device ("" when none).  0 or -ENOENT. */
int sysfs_device_netdev(const char *root, const char *ibdev, char *netdev, size_t len);

/* Read an unsigned counter file ports/P/counters/NAME or ports/P/hw_counters/NAME. */
int sysfs_port_counter(const char *root, const char *ibdev, int port,
		       const char *name, uint64_t *val);
/* The same in one directory, "counters" or "hw_counters" (NULL: as above). */
int sysfs_port_counter_in(const char *root, const char *ibdev, int port, const char *dir,
			  const char *name, uint64_t *val);

/* Read a small text file under root into buf, trailing newline stripped. */
int sysfs_read(const char *root, const char *path, char *buf, size_t len);

#endif
