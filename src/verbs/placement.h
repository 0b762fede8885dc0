/*
 * NUMA placement of the measuring thread and of its buffers (mem.h
 * allocates them on the node chosen here).  The device's node wins by
 * default; a user who already restricted the affinity (taskset, numactl)
 * wins over that; --numa-node, --cpu and --no-numa override.
 */
#ifndef RB_PLACEMENT_H
#define RB_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>

#include "lib/cpuclaim.h"

struct placement {
	int node;               /* node of the buffers, -1: left to the kernel */
	int cpu;                /* CPU the thread is pinned to, -1: not pinned */
	char cpus[128];         /* the thread's allowed CPUs, as a list "0-3,8" */
	const char *policy;     /* "device-local", "--numa-node", "--cpu",
				   "user affinity", "--no-numa", "no NUMA info" */
	bool remote;            /* buffers/CPU not on the device's node */
	bool shares_cpu;        /* another measuring thread is on that CPU (the
				   node has one, or every CPU is claimed): a
				   side yields when idle */
	struct cpuclaim claim;  /* the host-wide claim on cpu (cpuclaim.h) */
	const cpu_set_t *avoid; /* while deciding: CPUs to claim last, or NULL */
	char note[480];         /* one line for the report and --verbose */
};

/*
 * Decide and apply: pin the calling thread, set the node for mem_alloc().
 * dev_node -1 means unknown.  user_node -1: not given.  cpu_list NULL: not
 * given ("0,2-3" syntax).  client: the side that names a host.  Where the
 * CPU is ours to choose, each instance claims the first CPU of the node
 * that no other rdmabench instance on this host holds (cpuclaim.h), the
 * server trying from the node's first CPU and the client from its second,
 * so parallel instances and the two sides of a loopback test spread out;
 * when all are held, the least shared one, said on stderr and in the note.
 * avoid (NULL: none): CPUs taken last, those of the process's other
 * measuring threads (-j), so that each has a CPU of its own where the node
 * has enough.
 * An invalid CPU or node (not online, not allowed) returns -EINVAL after
 * logging a message naming the option: a usage error.
 */
int placement_apply(int dev_node, int user_node, bool no_numa,
		    const char *cpu_list, bool client, const cpu_set_t *avoid, struct placement *p);
/* Give the CPU claim back (the process's end does it too). */
void placement_release(struct placement *p);

/* Check --numa-node and --cpu against this machine before anything starts:
 * -EINVAL (a usage error) with a message naming the option. */
int placement_check(int user_node, const char *cpu_list);

#endif
