/*
 * The local checks: device, port, GID table, MTU, locked memory, rdma_cm,
 * NUMA, hugepages, CPU frequency governor.  Each adds one or more lines
 * to the report and what it learnt to the facts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "lib/child.h"
#include "verbs/device.h"
#include "prog/doctor/doctor.h"
#include "lib/gid.h"
#include "lib/sysfs.h"

#define KIB 1024ul
/* What a default run registers: two slots of 64 KiB plus GRH room
 * (qps_create), rounded up; a -a sweep goes to 8 MiB messages. */
#define NEED_DEFAULT (160 * KIB)
#define NEED_SWEEP (16384 * KIB)

static void provider_of(const char *dev, char *buf, size_t len)
{
	char path[256], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(buf, len, "%.40s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	} else {
		snprintf(buf, len, "%s", strncmp(dev, "rxe", 3) == 0 ? "rxe (Soft-RoCE)" : "unknown");
	}
}

/* The device list and the one the benchmarks would open; NULL when none. */
static struct ibv_context *open_device(const struct dr_opts *o, struct dr_report *r)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	char names[256] = "", prov[64];
	int n = 0, pick = -1;

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		provider_of(name, prov, sizeof(prov));
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s (%s)",
			 i ? ", " : "", name, prov);
		if (pick < 0 && (!o->dev || strcmp(o->dev, name) == 0))
			pick = i;
	}
	if (n <= 0)
		dr_add(r, "devices", DR_FAIL, "load the driver (lsmod | grep ib_); for Soft-RoCE: "
		       "rdma link add rxe0 type rxe netdev IF", "no RDMA device");
	else if (pick < 0)
		dr_add(r, "devices", DR_FAIL, "-d with one of the names listed", "no device %s among: %s",
		       o->dev, names);
	else
		dr_add(r, "devices", DR_OK, NULL, "%d: %s", n, names);
	if (pick >= 0 && !(ctx = ibv_open_device(list[pick])))
		dr_add(r, "open", DR_FAIL, "permissions of /dev/infiniband/uverbs*, the rdma group",
		       "ibv_open_device(%s): %s", ibv_get_device_name(list[pick]), strerror(errno));
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static const char *phys_state_name(uint8_t s)
{
	static const char *const names[] = { "none", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest" };

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

static void check_port(const struct ibv_port_attr *a, struct dr_facts *f, struct dr_report *r)
{
	bool ib = a->link_layer == IBV_LINK_LAYER_INFINIBAND;
	char down[200];

	snprintf(down, sizeof(down), ib ? "the cable and the switch port (ibstat); a subnet manager "
		 "(opensm) must run" : "the netdev %s: ip link set %s up, and its cable", f->netdev,
		 f->netdev);
	f->port_active = a->state == IBV_PORT_ACTIVE;
	dr_add(r, "port state", f->port_active ? DR_OK : DR_FAIL, down, "%s port %d: %s", f->dev,
	       f->port, ibv_port_state_str(a->state));
	dr_add(r, "physical state", a->phys_state == 5 || a->phys_state == 0 ? DR_OK : DR_FAIL,
	       down, "%s", phys_state_name(a->phys_state));
	snprintf(f->link_layer, sizeof(f->link_layer), "%s", ib ? "InfiniBand" : "Ethernet");
	dr_add(r, "link layer", DR_OK, NULL, "%s%s", f->link_layer, ib ? "" : " (RoCE)");
	if (ib)
		dr_add(r, "LID", a->lid ? DR_OK : DR_FAIL, "start a subnet manager (opensm)",
		       "LID %u, SM LID %u", a->lid, a->sm_lid);
}

static void count_gids(const struct gid_entry *t, int n, char *buf, size_t len)
{
	int v1 = 0, v2 = 0, ib = 0, v4 = 0, v6 = 0;

	for (int i = 0; i < n; i++) {
		if (t[i].empty)
			continue;
		v1 += t[i].type == GID_TYPE_ROCE_V1;
		v2 += t[i].type == GID_TYPE_ROCE_V2;
		ib += t[i].type == GID_TYPE_IB;
		v4 += gid_is_ipv4_mapped(t[i].raw);
		v6 += !gid_is_ipv4_mapped(t[i].raw);
	}
	snprintf(buf, len, "%d RoCE v2, %d RoCE v1, %d IB; %d IPv4, %d IPv6", v2, v1, ib, v4, v6);
}

/* The subnet of a RoCE GID's address, from the netdev's addresses. */
static void gid_subnet(const char *ip, char *buf, size_t len)
{
	struct ifaddrs *ifa, *i;
	struct in_addr want, a, m;

	snprintf(buf, len, "%s", ip);
	if (inet_pton(AF_INET, ip, &want) != 1 || getifaddrs(&ifa))
		return;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask)
			continue;
		a = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
		m = ((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr;
		if (a.s_addr != want.s_addr)
			continue;
		a.s_addr &= m.s_addr;
		inet_ntop(AF_INET, &a, buf, (socklen_t)len);
		snprintf(buf + strlen(buf), len - strlen(buf), "/%d", __builtin_popcount(m.s_addr));
	}
	freeifaddrs(ifa);
}

static void gid_facts(const struct gid_entry *e, bool ib, struct dr_facts *f)
{
	f->gid_index = e->index;
	snprintf(f->gid_type, sizeof(f->gid_type), "%s", gid_type_name(e->type));
	if (ib) {
		snprintf(f->gid_prefix, sizeof(f->gid_prefix), "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 e->raw[0], e->raw[1], e->raw[2], e->raw[3], e->raw[4], e->raw[5], e->raw[6],
			 e->raw[7]);
		return;
	}
	gid_ip(e->raw, f->gid_ip, sizeof(f->gid_ip));
	gid_subnet(f->gid_ip, f->gid_prefix, sizeof(f->gid_prefix));
}

static void check_gid_given(const struct dr_opts *o, const struct gid_entry *t, int n, bool ib,
			    struct dr_facts *f, struct dr_report *r)
{
	const struct gid_entry *e = o->gid_index < n ? &t[o->gid_index] : NULL;

	if (!e || e->empty) {
		dr_add(r, "GID index", DR_FAIL, "an index listed by rb_devices (or leave -x out)",
		       "-x %d: %s", o->gid_index, e ? "empty entry" : "past the table");
		return;
	}
	gid_facts(e, ib, f);
	dr_add(r, "GID index", e->type == GID_TYPE_ROCE_V1 ? DR_WARN : DR_OK,
	       "both sides must use the same RoCE version: prefer a RoCE v2 index",
	       "-x %d: %s %s", o->gid_index, f->gid_type, f->gid_ip);
}

static void check_gids(const struct dr_opts *o, struct ibv_context *ctx,
		       const struct ibv_port_attr *a, struct dr_facts *f, struct dr_report *r)
{
	bool ib = a->link_layer == IBV_LINK_LAYER_INFINIBAND;
	int max = a->gid_tbl_len > 0 ? a->gid_tbl_len : 1;
	struct gid_entry *t = calloc((size_t)max, sizeof(*t));
	int n = t ? device_gid_table(ctx, f->port, ib, t, max) : -ENOMEM;
	char why[160] = "", counts[96];
	int pick;

	f->gid_index = -1;
	if (n < 0) {
		dr_add(r, "GID table", DR_FAIL, "the driver's sysfs files", "unreadable: %s", strerror(-n));
		free(t);
		return;
	}
	count_gids(t, n, counts, sizeof(counts));
	pick = gid_choose(t, n, ib, why, sizeof(why));
	dr_add(r, "GID table", pick < 0 ? DR_FAIL : DR_OK, ib ? "the port's state" :
	       "give the netdev an IP address (ip addr add ADDR/24 dev IF)", "%s", counts);
	if (o->gid_index >= 0)
		check_gid_given(o, t, n, ib, f, r);
	else if (pick >= 0) {
		gid_facts(&t[pick], ib, f);
		dr_add(r, "GID index", DR_OK, NULL, "%d, as the benchmarks choose: %s", pick, why);
	}
	free(t);
}

/* The largest IB MTU that fits in a netdev MTU with RoCE v2's headers
 * (rxe and mlx5 subtract 96 bytes: GRH/IP, UDP, BTH, extended headers, ICRC). */
static int roce_mtu_for(int netdev_mtu)
{
	int m = 4096;

	while (m > 256 && m > netdev_mtu - 96)
		m /= 2;
	return m;
}

static void check_mtu(const struct ibv_port_attr *a, struct dr_facts *f, struct dr_report *r)
{
	char path[128], buf[32], adv[200];
	int fits;

	f->active_mtu = device_mtu_bytes(a->active_mtu);
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", f->netdev);
	if (!f->netdev[0] || sysfs_read("", path, buf, sizeof(buf))) {
		dr_add(r, "MTU", DR_OK, NULL, "active %d B (max %d B), no netdev", f->active_mtu,
		       device_mtu_bytes(a->max_mtu));
		return;
	}
	f->netdev_mtu = atoi(buf);
	fits = roce_mtu_for(f->netdev_mtu);
	snprintf(adv, sizeof(adv), "for %d B packets raise the netdev MTU: ip link set %s mtu %d "
		 "(on every host and switch in the path)", device_mtu_bytes(a->max_mtu), f->netdev,
		 device_mtu_bytes(a->max_mtu) + 96 > 4200 ? 4200 : device_mtu_bytes(a->max_mtu) + 96);
	if (f->active_mtu > f->netdev_mtu)
		dr_add(r, "MTU", DR_FAIL, "the netdev MTU and the driver", "active %d B above netdev "
		       "%s's %d B", f->active_mtu, f->netdev, f->netdev_mtu);
	else if (f->active_mtu < device_mtu_bytes(a->max_mtu))
		dr_add(r, "MTU", DR_WARN, adv, "active %d B (fits netdev %s's %d B: %d B), max %d B",
		       f->active_mtu, f->netdev, f->netdev_mtu, fits, device_mtu_bytes(a->max_mtu));
	else
		dr_add(r, "MTU", DR_OK, NULL, "active %d B, netdev %s %d B", f->active_mtu, f->netdev,
		       f->netdev_mtu);
}

/* Register len bytes: 0 or the errno of ibv_reg_mr. */
static int try_register(struct ibv_pd *pd, size_t len)
{
	void *p = NULL;
	struct ibv_mr *mr;
	int err = 0;

	if (posix_memalign(&p, 4096, len))
		return ENOMEM;
	memset(p, 0, len);
	mr = ibv_reg_mr(pd, p, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		err = errno ? errno : EIO;
	else
		ibv_dereg_mr(mr);
	free(p);
	return err;
}

static bool has_ipc_lock(void)
{
	char line[256];
	unsigned long long cap = 0;
	FILE *s = fopen("/proc/self/status", "r");

	while (s && fgets(line, sizeof(line), s))
		if (sscanf(line, "CapEff: %llx", &cap) == 1)
			break;
	if (s)
		fclose(s);
	return cap & (1ull << 14);     /* CAP_IPC_LOCK */
}

static void check_memlock(struct ibv_context *ctx, struct dr_report *r)
{
	static const char adv[] = "raise it: ulimit -l unlimited (memlock in "
		"/etc/security/limits.conf, LimitMEMLOCK= for a service)";
	struct rlimit rl = { 0, 0 };
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	char lim[64] = "unlimited";
	int e1, e2;

	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long)rl.rlim_cur / KIB);
	e1 = pd ? try_register(pd, NEED_DEFAULT) : errno;
	e2 = pd && !e1 ? try_register(pd, NEED_SWEEP) : e1;
	if (pd)
		ibv_dealloc_pd(pd);
	if (e1)
		dr_add(r, "ulimit -l", DR_FAIL, adv, "%s%s: registering %lu KiB (a default run) "
		       "failed: %s", lim, has_ipc_lock() ? " (CAP_IPC_LOCK)" : "", NEED_DEFAULT / KIB,
		       strerror(e1));
	else if (e2)
		dr_add(r, "ulimit -l", DR_WARN, adv, "%s: a default run fits, a -a sweep (%lu KiB) "
		       "does not: %s", lim, NEED_SWEEP / KIB, strerror(e2));
	else
		dr_add(r, "ulimit -l", DR_OK, NULL, "%s%s: registered %lu KiB (a -a sweep)", lim,
		       has_ipc_lock() ? ", CAP_IPC_LOCK lifts it" : "", NEED_SWEEP / KIB);
}

/* Bind an rdma_cm id to the GID's address: the device it finds. */
static int cm_device_of(const char *ip, char *dev, size_t len)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	struct addrinfo hint = { .ai_flags = AI_NUMERICHOST }, *ai = NULL;
	int err = 0;

	if (!ch)
		return -errno;
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		err = -errno;
	else if ((err = getaddrinfo(ip, NULL, &hint, &ai)) != 0)
		err = -EINVAL;
	else if (rdma_bind_addr(id, ai->ai_addr))
		err = -errno;
	else
		snprintf(dev, len, "%s", id->verbs ? ibv_get_device_name(id->verbs->device) : "none");
	if (ai)
		freeaddrinfo(ai);
	if (id)
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return err;
}

/* In a child: librdmacm keeps every device open once used, and the probe's
 * children must not inherit those contexts (verbs objects do not survive a
 * fork).  The child writes the device name, or "!errno", to stderr. */
static int cm_child(void *arg)
{
	char dev[64] = "";
	int err = cm_device_of(arg, dev, sizeof(dev));

	if (err)
		fprintf(stderr, "!%d", -err);
	else
		fprintf(stderr, "%s", dev);
	return 0;
}

static int cm_device_forked(const char *ip, char *dev, size_t len)
{
	struct child c;
	int err = child_start(&c, cm_child, (void *)ip, CHILD_QUIET | CHILD_CAPTURE);

	if (!err)
		err = child_wait(&c, 10000, dev, len);
	if (err)
		return err < 0 ? err : -EIO;
	return dev[0] == '!' ? -atoi(dev + 1) : 0;
}

static void check_rdma_cm(const struct dr_facts *f, struct dr_report *r)
{
	char dev[64] = "";
	int err;

	if (access("/dev/infiniband/rdma_cm", R_OK | W_OK)) {
		dr_add(r, "rdma_cm", DR_FAIL, "modprobe rdma_ucm; the permissions of /dev/infiniband",
		       "/dev/infiniband/rdma_cm: %s", strerror(errno));
		return;
	}
	if (!f->gid_ip[0]) {
		dr_add(r, "rdma_cm", DR_OK, NULL, "present (no GID address to resolve)");
		return;
	}
	err = cm_device_forked(f->gid_ip, dev, sizeof(dev));
	if (err)
		dr_add(r, "rdma_cm", DR_FAIL, "the address is on this host's RDMA netdev (ip addr)",
		       "binding %s: %s", f->gid_ip, strerror(-err));
	else
		dr_add(r, "rdma_cm", strcmp(dev, f->dev) ? DR_WARN : DR_OK,
		       "-R picks the device by address: use -d with the device rdma_cm finds",
		       "%s resolves to %s", f->gid_ip, dev);
}

static void check_numa(const struct dr_facts *f, struct dr_report *r)
{
	char why[160], path[96], cpus[128] = "";
	int node = sysfs_device_numa_node("", f->dev, why, sizeof(why));

	if (node < 0) {
		dr_add(r, "NUMA", DR_OK, NULL, "no NUMA node: %s; any CPU", why);
		return;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	sysfs_read("", path, cpus, sizeof(cpus));
	dr_add(r, "NUMA", cpus[0] ? DR_OK : DR_WARN, "pin with --cpu to CPUs that exist",
	       "node %d (%s), CPUs %s", node, why, cpus[0] ? cpus : "none");
}

static long meminfo(const char *key)
{
	char line[128];
	long v = -1;
	FILE *m = fopen("/proc/meminfo", "r");

	while (m && fgets(line, sizeof(line), m))
		if (strncmp(line, key, strlen(key)) == 0)
			v = atol(line + strlen(key));
	if (m)
		fclose(m);
	return v;
}

static void check_hugepages(struct dr_report *r)
{
	long total = meminfo("HugePages_Total:"), free_ = meminfo("HugePages_Free:");
	long size = meminfo("Hugepagesize:");

	dr_add(r, "hugepages", free_ > 0 ? DR_OK : DR_FAIL,
	       "reserve some: echo 64 > /proc/sys/vm/nr_hugepages",
	       "%ld free of %ld, %ld KiB each", free_, total, size);
}

static void check_governor(struct dr_report *r)
{
	char path[96], gov[32], seen[160] = "";
	bool slow = false;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
		if (sysfs_read("", path, gov, sizeof(gov)))
			break;
		if (!strstr(seen, gov) && strlen(seen) + strlen(gov) + 3 < sizeof(seen))
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s", seen[0] ? ", " : "", gov);
		slow |= strcmp(gov, "performance") != 0;
	}
	if (!cpu)
		dr_add(r, "CPU governor", DR_OK, NULL, "no cpufreq: the kernel does not scale the "
		       "frequency (a VM, or fixed by firmware)");
	else
		dr_add(r, "CPU governor", slow ? DR_WARN : DR_OK, "latency includes frequency ramp-up: "
		       "cpupower frequency-set -g performance", "%s on %d CPUs", seen, cpu);
}

void dr_local(const struct dr_opts *o, struct dr_report *r, struct dr_facts *f)
{
	struct ibv_context *ctx = open_device(o, r);
	struct ibv_port_attr a;
	int err;

	memset(f, 0, sizeof(*f));
	f->port = o->port;
	f->gid_index = -1;
	if (ctx) {
		snprintf(f->dev, sizeof(f->dev), "%s", ibv_get_device_name(ctx->device));
		sysfs_device_netdev("", f->dev, f->netdev, sizeof(f->netdev));
		err = ibv_query_port(ctx, (uint8_t)o->port, &a);
		if (err)
			dr_add(r, "port state", DR_FAIL, "-i with a port of the device (rb_devices)",
			       "%s port %d: %s", f->dev, o->port, strerror(err));
		else {
			check_port(&a, f, r);
			check_gids(o, ctx, &a, f, r);
			check_mtu(&a, f, r);
			check_memlock(ctx, r);
		}
		ibv_close_device(ctx);
		check_rdma_cm(f, r);
		check_numa(f, r);
	}
	if (o->hugepages)
		check_hugepages(r);
	check_governor(r);
}
