/*
 * Host-wide CPU claims between rdmabench instances, without a daemon: one
 * lock file per CPU and slot, DIR/cpuN.K, held with flock(LOCK_EX|LOCK_NB)
 * for as long as the claim's file descriptor is open.  The kernel drops the
 * lock when the process dies, however it dies, so a claim never outlives
 * its instance.  Slot K of CPU N held means K other instances were already
 * on N when it was taken: slot 0 is a CPU of its own, slot 1 and up a
 * shared one.  Nothing here blocks (LOCK_NB) and nothing here pins.
 */
#ifndef RB_CPUCLAIM_H
#define RB_CPUCLAIM_H

#include <stddef.h>

#define CPUCLAIM_SLOTS 64       /* instances counted per CPU */

struct cpuclaim {
	int fd;                 /* the held lock, -1: nothing claimed */
	int cpu;                /* the CPU claimed, -1: none */
	int slot;               /* 0: the CPU to itself; K: K instances before it */
	char path[160];         /* the lock file, "" when none */
};

/*
 * The lock folder: the first usable of /run/rdmabench,
 * $XDG_RUNTIME_DIR/rdmabench, /tmp/rdmabench-UID (made if missing, mode
 * 0755).  Usable: a real folder (no symlink), ours or root's, that we may
 * write.  0, or -errno of the last candidate when none is.
 */
int cpuclaim_dir(char *buf, size_t len);
/* The same over a list of candidates (tests). */
int cpuclaim_dir_pick(const char *const *cands, int n, char *buf, size_t len);

/*
 * Claim the first CPU of order[0..n-1] with a free slot, slot by slot: every
 * CPU's slot 0 first, then every CPU's slot 1, ...  So a CPU is shared only
 * when each CPU in order is taken, and then the least shared one is.  0
 * with c filled; -errno when no lock file could be opened in dir (c->cpu
 * -1), -EBUSY when every slot is held.
 */
int cpuclaim_take(struct cpuclaim *c, const char *dir, const int *order, int n);
void cpuclaim_release(struct cpuclaim *c);
void cpuclaim_init(struct cpuclaim *c);

#endif
