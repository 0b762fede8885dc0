/*
 * The memory interface (mem.h): the kinds' table, allocation and
 * registration around a kind's operations, and what the kinds share.
 */
#include "verbs/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/options.h"
#include "lib/log.h"

/* ---- the kinds ------------------------------------------------------ */

extern const struct mem_ops mem_host, mem_huge, mem_udmabuf, mem_cuda, mem_rocm;

static const struct mem_ops *const mem_kinds[] = {
	&mem_host,
	&mem_huge,
	&mem_udmabuf,
	&mem_cuda,
	&mem_rocm,
};

const struct mem_ops *mem_kind_for(const struct rb_options *o)
{
	if (o->dmabuf)
		return &mem_udmabuf;
	if (o->cuda_given || o->cuda_bus_id)
		return &mem_cuda;
	if (o->rocm_given)
		return &mem_rocm;
	return o->hugepages ? &mem_huge : &mem_host;
}

const struct mem_ops *mem_kind_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(mem_kinds) / sizeof(mem_kinds[0]); i++)
		if (strcmp(mem_kinds[i]->name, name) == 0)
			return mem_kinds[i];
	return NULL;
}

const char *mem_kind_name(const struct mem_buf *b)
{
	return b->ops ? b->ops->name : "none";
}

/* ---- allocation ----------------------------------------------------- */

/* The kernel's page size of the mapping that holds addr (smaps'
 * KernelPageSize), 0 when unknown. */
static size_t mem_kernel_page(const void *addr)
{
	uintptr_t a = (uintptr_t)addr, lo, hi;
	char line[256];
	bool in = false;
	size_t kb = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2)
			in = a >= lo && a < hi;
		else if (in && sscanf(line, "KernelPageSize: %zu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb * 1024;
}

int mem_alloc(struct mem_buf *b, const struct mem_ops *kind, size_t len, int node)
{
	return mem_alloc_dev(b, kind, len, node, NULL);
}

int mem_alloc_dev(struct mem_buf *b, const struct mem_ops *kind, size_t len, int node,
		  const struct mem_dev *dev)
{
	size_t page;
	int err;

	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
	b->node = -1;
	b->dev = dev ? *dev : (struct mem_dev){ .id = 0 };
	err = kind->alloc(b, len, node);
	if (err) {
		memset(b, 0, sizeof(*b));
		b->dmabuf_fd = -1;
		return err;
	}
	b->ops = kind;
	if (!kind->cpu_access)
		b->cpu = NULL;
	b->view = b->cpu;
	page = kind->cpu_access ? mem_kernel_page(b->addr) : 0;
	if (page)
		b->page = page;
	if (b->dev.stage && !b->cpu && (err = mem_stage_open(b)))
		mem_free(b);
	return err;
}

int mem_fits_n(const struct mem_ops *kind, size_t len, size_t n)
{
	return kind->fits ? kind->fits(len, n) : 0;
}

void mem_free(struct mem_buf *b)
{
	mem_stage_close(b);
	if (b->ops)
		b->ops->free(b);
	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
}

int mem_node_of(const void *addr)
{
	int node = -1;

	if (numa_available() < 0 ||
	    get_mempolicy(&node, NULL, 0, (void *)addr, MPOL_F_NODE | MPOL_F_ADDR))
		return -1;
	return node;
}

/* ---- registration --------------------------------------------------- */

static void memlock_text(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		snprintf(buf, len, "unknown");
	else if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
}

static struct ibv_mr *mem_reg_once(struct ibv_pd *pd, const struct mem_buf *b, int access)
{
	if (b->ops && b->ops->reg)
		return b->ops->reg(pd, b, access);
	if (b->dmabuf_fd >= 0)
		return ibv_reg_dmabuf_mr(pd, b->dmabuf_offset, b->len, (uint64_t)(uintptr_t)b->addr,
					 b->dmabuf_fd, access);
	return ibv_reg_mr(pd, b->addr, b->len, (unsigned)access);
}

struct ibv_mr *mem_register(struct ibv_pd *pd, const struct mem_buf *b, int *access)
{
	struct ibv_mr *mr = mem_reg_once(pd, b, *access);
	char limit[32];
	int err = errno;

	if (!mr && (*access & IBV_ACCESS_RELAXED_ORDERING) && (err == EINVAL || err == EOPNOTSUPP)) {
		log_verbose("ibv_reg_mr with IBV_ACCESS_RELAXED_ORDERING: %s; registering without it",
			    strerror(err));
		*access &= ~IBV_ACCESS_RELAXED_ORDERING;
		mr = mem_reg_once(pd, b, *access);
		err = errno;
	}
	if (mr)
		return mr;
	if (b->dmabuf_fd >= 0 && (err == EOPNOTSUPP || err == EPROTONOSUPPORT)) {
		log_err("%s cannot register dma-buf memory (ibv_reg_dmabuf_mr of %zu bytes of %s: %s)",
			ibv_get_device_name(pd->context->device), b->len, mem_kind_name(b), strerror(err));
	} else if ((*access & IBV_ACCESS_ON_DEMAND) && (err == EOPNOTSUPP || err == EINVAL)) {
		log_err("%s refused an on-demand paging MR (ibv_reg_mr with IBV_ACCESS_ON_DEMAND of %zu bytes: %s)",
			ibv_get_device_name(pd->context->device), b->len, strerror(err));
	} else if (err == ENOMEM || err == EPERM) {
		memlock_text(limit, sizeof(limit));
		log_err("cannot register %zu bytes: %s; the locked-memory limit is %s: "
			"raise it with `ulimit -l unlimited` (or memlock in "
			"/etc/security/limits.conf)", b->len, strerror(err), limit);
	} else {
		log_err("ibv_reg_mr of %zu bytes: %s", b->len, strerror(err));
	}
	errno = err;
	return NULL;
}

/* ---- on-demand paging ---------------------------------------------- */

int mem_drop_pages(struct mem_buf *b)
{
	if (b->dmabuf_fd >= 0)
		return -EOPNOTSUPP;
	if (!b->cpu)
		return 0;       /* GPU memory: nothing of the kernel's to give back */
	if (madvise(b->addr, b->len, MADV_DONTNEED) == 0)
		return 0;
	log_err("--odp: cannot give back the buffer's %zu bytes (madvise MADV_DONTNEED): %s",
		b->len, strerror(errno));
	return -errno;
}

size_t mem_resident_bytes(const struct mem_buf *b)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = b->len / page, res = 0;
	unsigned char *vec;

	if (!b->cpu)
		return SIZE_MAX;        /* GPU memory: not the kernel's pages */
	vec = calloc(n ? n : 1, 1);
	if (!vec || mincore(b->addr, b->len, vec)) {
		free(vec);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++)
		res += vec[i] & 1;
	free(vec);
	return res * page;
}

/* ---- for the kinds -------------------------------------------------- */

size_t mem_meminfo_bytes(const char *name)
{
	char line[128];
	size_t n = strlen(name), kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, n) == 0 && line[n] == ':') {
			kb = strtoull(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb * 1024;
}

int mem_round(size_t len, size_t page, size_t *out)
{
	if (len == 0 || len > SIZE_MAX - page)
		return -EINVAL;
	*out = (len + page - 1) / page * page;
	return 0;
}

int mem_fits(size_t len, size_t avail, const char *what)
{
	if (!avail || len <= avail)
		return 0;
	log_err("a buffer of %zu MiB does not fit: %zu MiB %s available", len >> 20,
		avail >> 20, what);
	return -ENOMEM;
}

int mem_fits_many(size_t len, size_t n, size_t avail, const char *what)
{
	if (n <= 1)
		return mem_fits(len, avail, what);
	if (!avail || (len <= avail && n <= avail / len))
		return 0;
	log_err("%zu buffers of %zu KiB (%zu MiB in all) do not fit: %zu MiB %s available", n,
		len >> 10, n <= SIZE_MAX / len ? (n * len) >> 20 : SIZE_MAX >> 20, avail >> 20, what);
	return -ENOMEM;
}

static int mem_bind(void *addr, size_t len, int node)
{
	unsigned long mask[16] = { 0 };

	if (node < 0 || numa_available() < 0)
		return 0;
	if ((size_t)node >= sizeof(mask) * CHAR_BIT)
		return -EINVAL;
	mask[node / (sizeof(long) * CHAR_BIT)] = 1UL << (node % (sizeof(long) * CHAR_BIT));
	if (mbind(addr, len, MPOL_BIND, mask, sizeof(mask) * CHAR_BIT, 0) == 0)
		return 0;
	log_err("cannot bind the buffer to node %d: %s", node, strerror(errno));
	return -errno;
}

int mem_map_anon(struct mem_buf *b, int extra, int node, const char *hint)
{
	int err;

	b->addr = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
	if (b->addr == MAP_FAILED) {
		err = -errno;
		b->addr = NULL;
		log_err("cannot map %zu bytes%s: %s", b->len, hint, strerror(-err));
		return err;
	}
	err = mem_bind(b->addr, b->len, node);
	if (err) {
		mem_unmap(b);
		return err;
	}
	b->cpu = b->addr;
	memset(b->cpu, 0, b->len);      /* first touch places the pages */
	b->node = mem_node_of(b->addr);
	return 0;
}

void mem_unmap(struct mem_buf *b)
{
	if (b->addr)
		munmap(b->addr, b->len);
	b->addr = NULL;
	b->cpu = NULL;
}
