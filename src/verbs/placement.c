/*
 * NUMA placement of the measuring thread and of its buffers (libnuma):
 * which CPU the thread is pinned to and which node mem.c allocates on.
 */
#include "verbs/placement.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cpuset.h"
#include "lib/log.h"

/* ---- CPU order and claims --------------------------------------- */

/*
 * The CPUs of set in the order a side tries them: the server from the
 * first, the client from the second (the first last).  Both sides of a
 * test on one host (loopback) then start apart even without claims: two
 * busy-polling loops on one CPU take turns at the scheduler's tick, and a
 * ping-pong round trip becomes two ticks (8 ms at HZ=250) instead of
 * microseconds.  Their count.
 */
static int cpuset_role_order(const cpu_set_t *set, bool client, int *order)
{
	int n = 0;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			order[n++] = c;
	if (client && n > 1) {
		int first = order[0];

		memmove(order, order + 1, (size_t)(n - 1) * sizeof(*order));
		order[n - 1] = first;
	}
	return n;
}

/* The CPUs of avoid (this process's other measuring threads') last, each
 * part in its order: a slot of a CPU of its own first. */
static void order_avoid_last(int *order, int n, const cpu_set_t *avoid)
{
	int out[CPU_SETSIZE], k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if (CPU_ISSET(order[i], avoid) == pass)
				out[k++] = order[i];
	memcpy(order, out, (size_t)n * sizeof(*order));
}

/* How the CPU was chosen, for the placement note: "the first free CPU of
 * node 0, claim /run/rdmabench/cpu2.0" and the like, into buf. */
static void claim_text(const struct placement *p, const char *where, int ncpus,
		       bool client, char *buf, size_t len)
{
	const struct cpuclaim *c = &p->claim;

	if (c->fd < 0)
		snprintf(buf, len, "no CPU claim (no usable lock folder, or every slot taken: "
			 "--verbose says which): %s of %s",
			 client ? "the client takes the second" : "the server takes the first", where);
	else if (c->slot == 0)
		snprintf(buf, len, "the first free CPU of %s, claim %s%s", where, c->path,
			 ncpus == 1 ? ", its only one: yields when idle" : "");
	else
		snprintf(buf, len, "shared: all %d CPUs of %s taken by other rdmabench instances, "
			 "claim %s, yields when idle", ncpus, where, c->path);
}

/* A shared CPU is said once on stderr, where the figures will suffer. */
static void claim_warn(const struct placement *p, const char *where, int ncpus)
{
	if (p->claim.slot > 0)
		log_warn("CPU %d is shared with %d other rdmabench instance%s: all %d CPUs of %s "
			 "are taken (claims in %.*s); figures may suffer", p->claim.cpu,
			 p->claim.slot, p->claim.slot > 1 ? "s" : "", ncpus, where,
			 (int)(strrchr(p->claim.path, '/') - p->claim.path), p->claim.path);
}

/*
 * The CPU of set that a side pins its thread to, claimed host-wide
 * (cpuclaim.h): the first free one in the side's order, else the least
 * shared.  Without a lock folder, the first in the side's order, unclaimed.
 */
static int cpu_claim(const cpu_set_t *set, bool client, struct placement *p)
{
	int order[CPU_SETSIZE];
	int n = cpuset_role_order(set, client, order);
	char dir[128] = "";
	int err = cpuclaim_dir(dir, sizeof(dir));

	if (p->avoid)
		order_avoid_last(order, n, p->avoid);
	if (!err)
		err = cpuclaim_take(&p->claim, dir, order, n);
	if (err) {
		log_verbose("CPU claim: none (%s; lock folder %s)", strerror(-err),
			    dir[0] ? dir : "none usable");
		return n ? order[0] : -1;
	}
	p->shares_cpu = p->claim.slot > 0;
	return p->claim.cpu;
}

static int thread_pin(const cpu_set_t *set, const char *what)
{
	if (sched_setaffinity(0, sizeof(*set), set) == 0)
		return 0;
	log_err("%s: cannot pin the thread: %s", what, strerror(errno));
	return -errno;
}

/* ---- placement policies --------------------------------------------- */

static bool numa_ok(void)
{
	return numa_available() >= 0;
}

static int cpu_node(int cpu)
{
	return numa_ok() ? numa_node_of_cpu(cpu) : -1;
}

/* Allowed CPUs of node into out; their count. */
static int node_cpus(int node, const cpu_set_t *allowed, cpu_set_t *out)
{
	CPU_ZERO(out);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed) && cpu_node(c) == node)
			CPU_SET(c, out);
	return CPU_COUNT(out);
}

static void note_remote(struct placement *p, int dev_node, const char *what)
{
	size_t used = strlen(p->note);

	if (dev_node < 0)
		snprintf(p->note + used, sizeof(p->note) - used, "; device node unknown");
	else if (p->remote)
		snprintf(p->note + used, sizeof(p->note) - used,
			 "; %s remote from the device's node %d", what, dev_node);
	else
		snprintf(p->note + used, sizeof(p->note) - used, "; local to the device's node %d",
			 dev_node);
}

/* --cpu N is honoured as given; it is claimed too, so that the instances
 * that choose for themselves avoid it, and sharing it is said (never an
 * error).  A list of CPUs is not claimed. */
static void cpu_claim_given(struct placement *p)
{
	char dir[128];

	if (p->cpu < 0 || cpuclaim_dir(dir, sizeof(dir)) ||
	    cpuclaim_take(&p->claim, dir, &p->cpu, 1))
		return;
	p->shares_cpu = p->claim.slot > 0;
	if (p->shares_cpu)
		log_warn("--cpu %d: that CPU is also used by %d other rdmabench instance%s "
			 "(claims in %s); figures may suffer", p->cpu, p->claim.slot,
			 p->claim.slot > 1 ? "s" : "", dir);
}

static void note_given(struct placement *p)
{
	size_t used = strlen(p->note);

	if (p->claim.fd >= 0)
		snprintf(p->note + used, sizeof(p->note) - used, "; claim %s%s", p->claim.path,
			 p->shares_cpu ? ", shared with other rdmabench instances: yields when idle" : "");
}

static int place_cpu_list(const char *cpu_list, int user_node, int dev_node,
			  const cpu_set_t *allowed, struct placement *p)
{
	cpu_set_t want, bad;

	if (cpuset_parse(cpu_list, &want) || CPU_COUNT(&want) == 0) {
		log_err("--cpu: invalid CPU list \"%s\" (expected e.g. 0,2-3)", cpu_list);
		return -EINVAL;
	}
	CPU_XOR(&bad, &want, allowed);
	CPU_AND(&bad, &bad, &want);
	if (CPU_COUNT(&bad)) {
		char b[64];

		cpuset_format(&bad, b, sizeof(b));
		log_err("--cpu %s: CPU %s is not online or not allowed; allowed CPUs: %s",
			cpu_list, b, p->cpus);
		return -EINVAL;
	}
	if (thread_pin(&want, "--cpu"))
		return -EINVAL;
	p->policy = "--cpu";
	p->cpu = CPU_COUNT(&want) == 1 ? cpuset_first(&want) : -1;
	cpu_claim_given(p);
	p->node = user_node >= 0 ? user_node : cpu_node(cpuset_first(&want));
	p->remote = dev_node >= 0 &&
		    (p->node != dev_node || cpu_node(cpuset_first(&want)) != dev_node);
	cpuset_format(&want, p->cpus, sizeof(p->cpus));
	snprintf(p->note, sizeof(p->note), "--cpu: thread on CPUs %s, buffers on node %d",
		 p->cpus, p->node);
	note_remote(p, dev_node, "CPU or buffers");
	note_given(p);
	return 0;
}

static void place_user_affinity(int user_node, int dev_node, const cpu_set_t *allowed,
				struct placement *p)
{
	cpu_set_t on_dev;

	p->policy = "user affinity";
	p->node = user_node;
	p->remote = dev_node >= 0 && numa_ok() && node_cpus(dev_node, allowed, &on_dev) == 0;
	snprintf(p->note, sizeof(p->note), "user affinity kept: CPUs %s", p->cpus);
	note_remote(p, dev_node, "they are");
}

static bool node_valid(int node)
{
	return numa_ok() && node >= 0 && node <= numa_max_node() &&
	       numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)node);
}

static int node_check(int node)
{
	if (node_valid(node))
		return 0;
	log_err("--numa-node %d: no such node; nodes: 0-%d", node, numa_max_node());
	return -EINVAL;
}

/* Pin to one allowed CPU of node, so the measuring thread stays put (the
 * first free one, claimed: cpu_claim); the buffers go there too. */
static int place_node(int node, int dev_node, const char *policy, const cpu_set_t *allowed,
		      bool client, struct placement *p)
{
	cpu_set_t on_node, one;
	char where[32], how[300];
	int n;

	p->policy = policy;
	p->node = node;
	p->remote = dev_node >= 0 && node != dev_node;
	n = node_cpus(node, allowed, &on_node);
	if (n == 0) {
		snprintf(p->note, sizeof(p->note), "%s: buffers on node %d, node has no allowed "
			 "CPU, thread not pinned", policy, node);
		note_remote(p, dev_node, "buffers");
		return 0;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu_claim(&on_node, client, p), &one);
	if (thread_pin(&one, policy))
		return -EINVAL;
	p->cpu = cpuset_first(&one);
	p->shares_cpu |= n == 1;
	cpuset_format(&one, p->cpus, sizeof(p->cpus));
	snprintf(where, sizeof(where), "node %d", node);
	claim_text(p, where, n, client, how, sizeof(how));
	claim_warn(p, where, n);
	snprintf(p->note, sizeof(p->note), "%s: thread on CPU %d (%s), buffers on node %d",
		 policy, p->cpu, how, node);
	note_remote(p, dev_node, "they are");
	return 0;
}

/* No node to follow: the thread still gets one CPU of its own (cpu_claim),
 * so that two sides on one host do not end up on one CPU; buffers as the
 * kernel likes.  A CPU that cannot be pinned only leaves the thread free. */
static void place_unknown(int dev_node, const cpu_set_t *allowed, bool client,
			  struct placement *p)
{
	const char *why = !numa_ok() ? "NUMA not available" : dev_node < 0 ?
			  "device NUMA node unknown" : "device node not a memory node here";
	int n = CPU_COUNT(allowed);
	char how[300];
	cpu_set_t one;

	p->policy = "no NUMA info";
	CPU_ZERO(&one);
	CPU_SET(cpu_claim(allowed, client, p), &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		snprintf(p->note, sizeof(p->note), "%s: thread and buffers left to the kernel "
			 "(pinning failed: %s)", why, strerror(errno));
		cpuclaim_release(&p->claim);
		p->shares_cpu = false;
		return;
	}
	p->cpu = cpuset_first(&one);
	p->shares_cpu |= n == 1;
	cpuset_format(&one, p->cpus, sizeof(p->cpus));
	claim_text(p, "the allowed set", n, client, how, sizeof(how));
	claim_warn(p, "the allowed set", n);
	snprintf(p->note, sizeof(p->note), "%s: thread on CPU %d (%s), buffers left to the kernel",
		 why, p->cpu, how);
}

static int place_numa(int dev_node, int user_node, const char *cpu_list,
		      const cpu_set_t *allowed, bool client, struct placement *p)
{
	bool restricted = CPU_COUNT(allowed) < sysconf(_SC_NPROCESSORS_ONLN);

	if (user_node >= 0 && !numa_ok()) {
		log_err("--numa-node %d: NUMA is not available on this system", user_node);
		return -EINVAL;
	}
	if (user_node >= 0 && node_check(user_node))
		return -EINVAL;
	if (cpu_list)
		return place_cpu_list(cpu_list, user_node, dev_node, allowed, p);
	if (restricted) {
		place_user_affinity(user_node, dev_node, allowed, p);
		return 0;
	}
	if (user_node >= 0)
		return place_node(user_node, dev_node, "--numa-node", allowed, client, p);
	if (node_valid(dev_node))
		return place_node(dev_node, dev_node, "device-local", allowed, client, p);
	place_unknown(dev_node, allowed, client, p);
	return 0;
}

int placement_check(int user_node, const char *cpu_list)
{
	cpu_set_t want, allowed, bad;
	char b[64];

	if (user_node >= 0 && node_check(user_node))
		return -EINVAL;
	if (!cpu_list)
		return 0;
	if (cpuset_parse(cpu_list, &want) || CPU_COUNT(&want) == 0) {
		log_err("--cpu: invalid CPU list \"%s\" (expected e.g. 0,2-3)", cpu_list);
		return -EINVAL;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return 0;
	CPU_XOR(&bad, &want, &allowed);
	CPU_AND(&bad, &bad, &want);
	if (!CPU_COUNT(&bad))
		return 0;
	cpuset_format(&bad, b, sizeof(b));
	log_err("--cpu %s: CPU %s is not online or not allowed here", cpu_list, b);
	return -EINVAL;
}

int placement_apply(int dev_node, int user_node, bool no_numa,
		    const char *cpu_list, bool client, const cpu_set_t *avoid, struct placement *p)
{
	cpu_set_t allowed;
	int err;

	memset(p, 0, sizeof(*p));
	p->avoid = avoid;
	p->node = -1;
	p->cpu = -1;
	cpuclaim_init(&p->claim);
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -errno;
	cpuset_format(&allowed, p->cpus, sizeof(p->cpus));
	if (no_numa) {
		p->policy = "--no-numa";
		snprintf(p->note, sizeof(p->note), "--no-numa: no pinning, buffers left to "
			 "the kernel (CPUs %s)", p->cpus);
		return 0;
	}
	err = place_numa(dev_node, user_node, cpu_list, &allowed, client, p);
	p->avoid = NULL;	/* the caller's set: only while deciding */
	return err;
}

void placement_release(struct placement *p)
{
	cpuclaim_release(&p->claim);
}
