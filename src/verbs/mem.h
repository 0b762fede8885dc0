/*
 * The buffers' memory behind one interface.  A memory kind is a table of
 * operations (struct mem_ops) in a file of its own:
 *
 *   mem.h, mem.c   the interface; the kinds' table; registration (the MR,
 *                  with its relaxed-ordering fallback and locked-memory
 *                  message); what the kinds share (mapping, NUMA binding)
 *   mem_host.c     ordinary pages: the default
 *   mem_huge.c     huge pages (--use-hugepages)
 *   mem_udmabuf.c  host memory exported as a dma-buf through /dev/udmabuf
 *                  (--use-dmabuf), registered with ibv_reg_dmabuf_mr
 * On-demand paging (--odp) is a way of registering, not a kind: its pages
 * are given back (mem_drop_pages) before an ODP MR covers them, so that the
 * first touch, the CPU's or the device's, faults each one in.
 *   mem_cuda.c     NVIDIA GPU memory (--use_cuda), libcuda loaded at run time
 *   mem_rocm.c     AMD GPU memory (--use_rocm), libamdhip64 loaded at run time
 *   mem_gpu.c      what the GPU kinds share (the library's loading, the
 *                  metadata) and the host copy (mem_stage_*)
 *
 * Adding a kind is a file mem_NAME.c defining `const struct mem_ops
 * mem_NAME`, plus its row in mem.c's table (and the option that picks it).
 *
 * Two addresses per buffer.  addr is where the device finds the bytes: what
 * SGEs and the peer's RDMA (rkey) name.  cpu is the same bytes for the CPU
 * to load and store, NULL for a kind the CPU may not touch (device memory):
 * the engine touches bytes only through cpu (qp.h's qps_cpu_* accessors),
 * after the one check at setup (mem_cpu_ok: engine/touch.c refuses
 * --validate, the write ping-pong and atomics cleanly), never by addr.
 * Such a kind copies with to_host/from_host instead: --validate works on
 * a host copy of the buffer (stage, with the same layout: view points at
 * it), pushed before the device reads and pulled after it wrote
 * (mem_push, mem_pull).
 */
#ifndef RB_MEM_H
#define RB_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

struct rb_options;
struct mem_buf;

struct mem_ops {
	const char *name;       /* the metadata's memory_kind */
	bool cpu_access;        /* the CPU may load and store its bytes (b->cpu) */
	/* len bytes (len > 0) on NUMA node (-1: the kernel's choice), zeroed:
	 * addr, cpu (when cpu_access), len (rounded up to its page), page,
	 * and dmabuf_fd where it has one.  -errno after a message. */
	int (*alloc)(struct mem_buf *b, size_t len, int node);
	void (*free)(struct mem_buf *b);
	/* Optional: whether n buffers of len bytes, each rounded up to the
	 * kind's page, fit in what it has free now.  0, or -ENOMEM after a
	 * message; NULL: not known (mem_fits_n passes). */
	int (*fits)(size_t len, size_t n);
	/* Optional: NULL registers with ibv_reg_mr (b->addr), or with
	 * ibv_reg_dmabuf_mr where b->dmabuf_fd >= 0.  NULL and errno set on
	 * failure, no message (mem_register says it). */
	struct ibv_mr *(*reg)(struct ibv_pd *pd, const struct mem_buf *b, int access);
	/* For kinds without cpu_access (NULL otherwise): copies between host
	 * memory and the buffer at off.  0 or -errno. */
	int (*to_host)(void *dst, const struct mem_buf *b, size_t off, size_t len);
	int (*from_host)(struct mem_buf *b, size_t off, const void *src, size_t len);
	/* Optional: the device for the metadata (its name, its PCI bus id). */
	void (*device)(const struct mem_buf *b, const char **name, const char **bus_id);
	/* Optional: what --gpu_touch ran on b so far, for the metadata (a kind
	 * that touches: mem_dev.touch asks it of alloc, free stops it). */
	void (*touch_text)(const struct mem_buf *b, char *buf, size_t len);
};

/* The device a device kind allocates on, as the options name it. */
struct mem_dev {
	int id;                 /* --use_cuda=ID, --use_rocm=ID */
	const char *bus_id;     /* --use_cuda_bus_id, NULL: by id */
	bool dmabuf;            /* register through a dma-buf fd */
	bool stage;             /* --validate: a host copy where the CPU may not touch */
	int touch;              /* --gpu_touch: cli/options.h's enum gpu_touch (0: none) */
};

struct mem_buf {
	void *addr;             /* the device's address of the bytes */
	void *cpu;              /* the CPU's, NULL where it may not touch them */
	size_t len;             /* rounded up to the page */
	size_t page;            /* the page size backing it: the kernel's
				   (/proc/self/smaps' KernelPageSize), else the kind's */
	int node;               /* NUMA node of its pages, -1: unknown */
	int dmabuf_fd;          /* a dma-buf kind's, -1: none */
	uint64_t dmabuf_offset; /* the buffer's offset in it */
	void *view;             /* what the engine's CPU touches: cpu, or stage */
	void *stage;            /* a host copy of a buffer without cpu, NULL: none */
	struct mem_dev dev;     /* what it was asked to allocate on */
	void *priv;             /* the kind's own */
	const struct mem_ops *ops;      /* its kind; NULL: none allocated */
};

/* The kind the options pick: udmabuf with --use-dmabuf, huge pages with
 * --use-hugepages, else host. */
const struct mem_ops *mem_kind_for(const struct rb_options *o);
/* The kind named name (its mem_ops name), NULL when none is. */
const struct mem_ops *mem_kind_by_name(const char *name);

/* Allocate len bytes of kind on node (-1: the kernel's choice), zeroed.
 * 0, or -errno after a message (-ENOMEM: it does not fit, said how). */
int mem_alloc(struct mem_buf *b, const struct mem_ops *kind, size_t len, int node);
/* Whether n buffers of len bytes of kind fit (mem_ops' fits), before
 * allocating any: 0, or -ENOMEM after a message. */
int mem_fits_n(const struct mem_ops *kind, size_t len, size_t n);
/* mem_alloc on the device the options name (mem_dev_for), with its host
 * copy where dev->stage asks and the CPU may not touch the kind. */
int mem_alloc_dev(struct mem_buf *b, const struct mem_ops *kind, size_t len, int node,
		  const struct mem_dev *dev);
void mem_dev_for(const struct rb_options *o, struct mem_dev *dev);
/* Free (nothing allocated: nothing happens); b is then empty. */
void mem_free(struct mem_buf *b);

/* Register b: NULL on failure, after a message (ENOMEM/EPERM name the
 * locked-memory limit, its current value and `ulimit -l`).  When *access
 * holds IBV_ACCESS_RELAXED_ORDERING (an optional flag: providers that do
 * not support it ignore it) and the registration is refused with EINVAL
 * or EOPNOTSUPP all the same, it registers without the flag and clears it
 * in *access: the caller records what was registered.  A dma-buf the
 * device cannot register (EOPNOTSUPP, EPROTONOSUPPORT: rxe) is named so,
 * as is an ODP MR (IBV_ACCESS_ON_DEMAND in *access) it refuses. */
struct ibv_mr *mem_register(struct ibv_pd *pd, const struct mem_buf *b, int *access);

/* --odp: give b's pages back to the kernel (madvise MADV_DONTNEED: what
 * is touched next reads zeros, faulted in anew, on b's NUMA policy).
 * 0; 0 with nothing done for a kind the CPU may not touch (GPU memory:
 * its pages are its driver's, none to give back; the ODP MR still maps
 * them on demand); -EOPNOTSUPP for a dma-buf; or -errno after a message. */
int mem_drop_pages(struct mem_buf *b);
/* Bytes of b's pages present in memory now (mincore); SIZE_MAX unknown. */
size_t mem_resident_bytes(const struct mem_buf *b);

/* Whether the CPU may touch b's bytes (through b->cpu). */
static inline bool mem_cpu_ok(const struct mem_buf *b)
{
	return b->cpu != NULL;
}

/* "host", "hugepages": b's kind for the metadata; "none" before mem_alloc. */
const char *mem_kind_name(const struct mem_buf *b);

/* Whether the engine works on a host copy of b (mem_stage_open). */
static inline bool mem_staged(const struct mem_buf *b)
{
	return b->stage != NULL;
}

/* The host copy: open (b->view points at it) and close.  0 or -errno. */
int mem_stage_open(struct mem_buf *b);
void mem_stage_close(struct mem_buf *b);
/* len bytes at view + off: from the host copy into the buffer (push), or
 * back (pull).  Nothing where b has no host copy.  0 or -errno (said). */
int mem_push(const struct mem_buf *b, size_t off, size_t len);
int mem_pull(const struct mem_buf *b, size_t off, size_t len);

/* The metadata of b's memory, where it is a GPU's or goes through the
 * host buffer bounce (--bounce; ops NULL: none): memory_device,
 * memory_bus_id, memory_registration, memory_staging, memory_bounce, and
 * memory_touch with --gpu_touch (what ran so far). */
struct out;
void mem_meta(struct out *out, const struct mem_buf *b, const struct mem_buf *bounce);

/* len bytes of b at off to the host's dst (b_to_host), or from src
 * (b_from_host): memcpy where the CPU may touch b, else the kind's copy.
 * 0 or -errno (said). */
int mem_to_host(void *dst, const struct mem_buf *b, size_t off, size_t len);
int mem_from_host(struct mem_buf *b, size_t off, const void *src, size_t len);

/* Node of the page at addr (get_mempolicy MPOL_F_NODE|MPOL_F_ADDR), -1 unknown. */
int mem_node_of(const void *addr);

/* ---- for the kinds' files ------------------------------------------- */

/* A "Name:   123 kB" line of /proc/meminfo in bytes; 0 when absent. */
size_t mem_meminfo_bytes(const char *name);
/* len rounded up to page into *out; -EINVAL when len is 0 or too large. */
int mem_round(size_t len, size_t page, size_t *out);
/* -ENOMEM with a message when len (bytes) exceeds avail (0: unknown,
 * passes); what: "of memory (MemAvailable)" and the like. */
int mem_fits(size_t len, size_t avail, const char *what);
/* The same for n buffers of len bytes each (n x len within avail). */
int mem_fits_many(size_t len, size_t n, size_t avail, const char *what);
/* An anonymous private mapping of b->len bytes (mmap flags added: extra),
 * bound to node, touched (zeroed) so that its pages exist there: addr and
 * cpu.  hint: said after "cannot map N bytes" on failure ("" none). */
int mem_map_anon(struct mem_buf *b, int extra, int node, const char *hint);
/* mem_map_anon's free. */
void mem_unmap(struct mem_buf *b);

#endif
