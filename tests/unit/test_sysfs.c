/*
 * sysfs readers on canned trees under tests/unit/data/sysfs/<case>/ (found
 * through $top_srcdir, else ".").  The trees use relative symlinks, as the
 * real /sys does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/sysfs.h"
#include "tap.h"

static char root[4096];

static const char *tree(const char *name)
{
	const char *top = getenv("top_srcdir");

	snprintf(root, sizeof(root), "%s/tests/unit/data/sysfs/%s",
		 top && *top ? top : ".", name);
	return root;
}

/* make dist dereferences symlinks: say so instead of failing obscurely. */
static void check_links(void)
{
	struct stat st;
	char path[4200];

	snprintf(path, sizeof(path), "%s/sys/class/net/eth0", tree("rxe-virtio"));
	ok(lstat(path, &st) == 0 && S_ISLNK(st.st_mode),
	   "fixture symlinks intact (%s is a symlink)", path);
}

static void test_numa_pci(void)
{
	char why[160];

	is_int(sysfs_device_numa_node(tree("pci-ib"), "mlx5_0", why, sizeof(why)), 1,
	       "PCI HCA: device/numa_node 1");
	is_str(why, "device/numa_node", "PCI HCA: how");
	is_int(sysfs_device_numa_node(tree("pci-no-numa"), "mlx5_1", why, sizeof(why)), -1,
	       "PCI HCA with numa_node -1: -1");
	is_str(why, "no NUMA information (device/numa_node -1)", "numa_node -1: how");
	is_int(sysfs_device_numa_node(tree("pci-ib"), "mlx5_0", NULL, 0), 1, "why NULL is fine");
}

static void test_numa_rxe(void)
{
	char why[160];

	is_int(sysfs_device_numa_node(tree("rxe-virtio"), "rxe0", why, sizeof(why)), 1,
	       "rxe on virtio eth0: the PCI ancestor's node 1");
	is_str(why, "netdev eth0 -> 0000:0b:01.0", "rxe on virtio: how");
	is_int(sysfs_device_numa_node(tree("rxe-dummy"), "rxe0", why, sizeof(why)), -1,
	       "rxe on a dummy: -1");
	is_str(why, "no NUMA information (netdev rxedummy0 has no device)", "rxe on a dummy: how");
	is_int(sysfs_device_numa_node(tree("rxe-dummy"), "nosuch0", why, sizeof(why)), -1,
	       "unknown device: -1");
}

static void test_netdev(void)
{
	char nd[64];

	is_int(sysfs_device_netdev(tree("rxe-virtio"), "rxe0", nd, sizeof(nd)), 0, "netdev from parent");
	is_str(nd, "eth0", "netdev from parent: eth0");
	is_int(sysfs_device_netdev(tree("rxe-dummy"), "rxe0", nd, sizeof(nd)), 0, "netdev from gid_attrs/ndevs");
	is_str(nd, "rxedummy0", "netdev from ndevs: rxedummy0");
	is_int(sysfs_device_netdev(tree("pci-no-numa"), "mlx5_1", nd, sizeof(nd)), 0, "RoCE HCA netdev");
	is_str(nd, "ens5f0", "RoCE HCA netdev: ens5f0");
	is_int(sysfs_device_netdev(tree("pci-ib"), "mlx5_0", nd, sizeof(nd)), -ENOENT, "IB HCA: no netdev");
	is_str(nd, "", "IB HCA: netdev empty");
}

static void test_gid_table_rxe(void)
{
	struct gid_entry t[16];
	char why[160], s[64];
	int n = sysfs_gid_table(tree("rxe-virtio"), "rxe0", 1, false, t, 16);

	is_int(n, 4, "rxe table: 4 entries");
	if (n < 4)
		return;
	is_int(t[0].type, GID_TYPE_ROCE_V2, "rxe[0] RoCE v2");
	ok(gid_is_link_local(t[0].raw), "rxe[0] link-local");
	is_str(t[0].netdev, "eth0", "rxe[0] netdev");
	gid_format(t[1].raw, s, sizeof(s));
	is_str(s, "::ffff:192.0.2.1", "rxe[1] GID");
	ok(t[2].empty && t[3].empty && !t[1].empty, "rxe[2..3] empty, [1] not");
	is_int(t[3].index, 3, "index field");
	is_int(gid_choose(t, n, false, why, sizeof(why)), 1, "rxe table from sysfs: choose 1");
	is_str(why, "RoCE v2, IPv4-mapped 192.0.2.1 on eth0", "rxe: reason");
	is_int(sysfs_gid_table(tree("rxe-virtio"), "rxe0", 1, false, t, 2), 2, "max caps the count");
}

static void test_gid_table_hca(void)
{
	struct gid_entry t[16];
	char why[160];
	int n = sysfs_gid_table(tree("pci-no-numa"), "mlx5_1", 1, false, t, 16);

	is_int(n, 6, "RoCE HCA: 6 entries");
	is_int(t[0].type, GID_TYPE_ROCE_V1, "IB/RoCE v1 on Ethernet is RoCE v1");
	is_int(gid_choose(t, n, false, why, sizeof(why)), 3, "RoCE HCA: v2 IPv4-mapped is 3");
	n = sysfs_gid_table(tree("pci-ib"), "mlx5_0", 1, true, t, 16);
	is_int(n, 4, "IB HCA: 4 entries");
	is_int(t[0].type, GID_TYPE_IB, "IB/RoCE v1 on IB is IB");
	is_str(t[0].netdev, "", "IB: no netdev");
	is_int(gid_choose(t, n, true, why, sizeof(why)), 0, "IB HCA: 0");
	is_int(sysfs_gid_table(tree("pci-ib"), "mlx5_0", 2, true, t, 16), -ENOENT, "no port 2: -ENOENT");
}

static void test_counters(void)
{
	uint64_t v = 0;

	is_int(sysfs_port_counter(tree("pci-ib"), "mlx5_0", 1, "port_xmit_data", &v), 0, "counters/");
	is_int(v, 123456789, "port_xmit_data value");
	is_int(sysfs_port_counter(tree("pci-ib"), "mlx5_0", 1, "duplicate_request", &v), 0, "hw_counters/");
	is_int(v, 7, "duplicate_request value");
	is_int(sysfs_port_counter(tree("rxe-virtio"), "rxe0", 1, "sent_pkts", &v), 0, "rxe hw_counters");
	is_int(v, 4200, "sent_pkts value");
	is_int(sysfs_port_counter(tree("pci-ib"), "mlx5_0", 1, "nosuch", &v), -ENOENT, "missing counter");
}

static void test_read(void)
{
	char buf[32];

	is_int(sysfs_read(tree("pci-ib"), "/sys/class/infiniband/mlx5_0/ports/1/state", buf, sizeof(buf)),
	       0, "sysfs_read");
	is_str(buf, "4: ACTIVE", "sysfs_read strips the newline");
	is_int(sysfs_read(tree("pci-ib"), "/sys/class/infiniband/mlx5_0/ports/1/state", buf, 3),
	       0, "sysfs_read into a small buffer");
	is_str(buf, "4:", "truncated, terminated");
	is_int(sysfs_read(tree("pci-ib"), "/nosuch", buf, sizeof(buf)), -ENOENT, "missing file: -ENOENT");
}

int main(void)
{
	check_links();
	test_numa_pci();
	test_numa_rxe();
	test_netdev();
	test_gid_table_rxe();
	test_gid_table_hca();
	test_counters();
	test_read();
	return tap_done();
}
