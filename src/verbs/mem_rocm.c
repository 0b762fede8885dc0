/*
 * Memory kind "rocm" (--use_rocm=ID, --use_rocm_dmabuf): AMD GPU memory
 * from hipMalloc, through libamdhip64.so loaded at run time (mem_gpu.h);
 * with --use_rocm_dmabuf its dma-buf fd from libhsa-runtime64's
 * hsa_amd_portable_export_dmabuf (as perftest), registered with
 * ibv_reg_dmabuf_mr; else peer memory (ibv_reg_mr).  The CPU may not touch
 * it: copies go through hipMemcpy.  hipMalloc gives device memory only
 * (managed memory is hipMallocManaged, never called here).
 */
#include "verbs/mem_gpu.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/log.h"

typedef int hipError_t;
#define HIP_HTOD 1                      /* hipMemcpyHostToDevice */
#define HIP_DTOH 2                      /* hipMemcpyDeviceToHost */
#define ROCM_PAGE (64UL << 10)

static const char *const hip_libs[] = { "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", NULL };
static const char *const hsa_libs[] = { "libhsa-runtime64.so.1", "libhsa-runtime64.so", NULL };

static struct {
	hipError_t (*init)(unsigned);
	hipError_t (*set)(int);
	hipError_t (*name)(char *, int, int);
	hipError_t (*bus)(char *, int, int);
	hipError_t (*alloc)(void **, size_t);
	hipError_t (*free)(void *);
	hipError_t (*copy)(void *, const void *, size_t, int);
	hipError_t (*memset)(void *, int, size_t);
	const char *(*err_str)(hipError_t);
	int (*export)(const void *, size_t, int *, uint64_t *);
	int loaded, hsa_loaded;
} hip;

#define SYM(n, f) { n, (void **)&hip.f, NULL }
static const struct gpu_sym hip_syms[] = {
	SYM("hipInit", init), SYM("hipSetDevice", set), SYM("hipDeviceGetName", name),
	SYM("hipDeviceGetPCIBusId", bus), SYM("hipMalloc", alloc), SYM("hipFree", free),
	SYM("hipMemcpy", copy), SYM("hipMemset", memset), SYM("hipGetErrorString", err_str),
	{ NULL, NULL, NULL },
};
static const struct gpu_sym hsa_syms[] = {
	SYM("hsa_amd_portable_export_dmabuf", export),
	{ NULL, NULL, NULL },
};

struct rocm_buf {
	int dev;
	void *ptr;
	char name[96];
	char bus[32];
};

static pthread_once_t hip_once = PTHREAD_ONCE_INIT, hsa_once = PTHREAD_ONCE_INIT;

static void hip_load(void)
{
	void *h = gpu_lib_open(hip_libs, "--use_rocm");

	hip.loaded = h ? gpu_lib_syms(h, hip_libs[0], hip_syms) : -ENOENT;
	if (hip.loaded == 0)
		hip.loaded = 1;
}

static void hsa_load(void)
{
	void *h = gpu_lib_open(hsa_libs, "--use_rocm_dmabuf");

	hip.hsa_loaded = h ? gpu_lib_syms(h, hsa_libs[0], hsa_syms) : -ENOENT;
	if (hip.hsa_loaded == 0)
		hip.hsa_loaded = 1;
}

static int rocm_fail(const char *call, hipError_t r)
{
	log_err("--use_rocm: %s failed: %s (hipError_t %d)", call, hip.err_str(r), r);
	return -EIO;
}

#define HIP(call, ...) ((r = hip.call(__VA_ARGS__)) != 0)

static int rocm_export(struct mem_buf *b, struct rocm_buf *c)
{
	uint64_t off = 0;
	int fd = -1, st;

	pthread_once(&hsa_once, hsa_load);
	if (hip.hsa_loaded < 0)
		return hip.hsa_loaded;
	st = hip.export(c->ptr, b->len, &fd, &off);
	if (st != 0) {
		log_err("--use_rocm_dmabuf: hsa_amd_portable_export_dmabuf of %zu bytes on GPU %s (%s) failed (hsa_status_t %#x)",
			b->len, c->bus, c->name, (unsigned)st);
		return -EIO;
	}
	b->dmabuf_fd = fd;
	b->dmabuf_offset = off;
	return 0;
}

static int rocm_fill(struct mem_buf *b, struct rocm_buf *c)
{
	hipError_t r;

	if (HIP(init, 0))
		return rocm_fail("hipInit", r);
	if (HIP(set, c->dev)) {
		log_err("--use_rocm: no ROCm GPU %d: %s", c->dev, hip.err_str(r));
		return -ENODEV;
	}
	if (HIP(name, c->name, (int)sizeof(c->name), c->dev) ||
	    HIP(bus, c->bus, (int)sizeof(c->bus), c->dev))
		return rocm_fail("hipDeviceGetName/hipDeviceGetPCIBusId", r);
	if (HIP(alloc, &c->ptr, b->len)) {
		c->ptr = NULL;
		log_err("--use_rocm: hipMalloc of %zu bytes on GPU %s (%s) failed: %s", b->len, c->bus,
			c->name, hip.err_str(r));
		return -ENOMEM;
	}
	if (HIP(memset, c->ptr, 0, b->len))
		return rocm_fail("hipMemset", r);
	return b->dev.dmabuf ? rocm_export(b, c) : 0;
}

static void rocm_release(struct rocm_buf *c)
{
	if (c->ptr) {
		hip.set(c->dev);
		hip.free(c->ptr);
	}
	free(c);
}

static int rocm_alloc(struct mem_buf *b, size_t len, int node)
{
	struct rocm_buf *c;
	int err;

	(void)node;
	pthread_once(&hip_once, hip_load);
	if (hip.loaded < 0)
		return hip.loaded;
	err = mem_round(len, ROCM_PAGE, &b->len);
	if (err)
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->dev = b->dev.id;
	err = rocm_fill(b, c);
	if (err) {
		if (b->dmabuf_fd >= 0)
			close(b->dmabuf_fd);
		b->dmabuf_fd = -1;
		rocm_release(c);
		return err;
	}
	b->priv = c;
	b->addr = c->ptr;
	b->page = ROCM_PAGE;
	return 0;
}

static void rocm_free(struct mem_buf *b)
{
	if (b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	b->dmabuf_fd = -1;
	if (b->priv)
		rocm_release(b->priv);
	b->priv = NULL;
	b->addr = NULL;
}

static int rocm_to_host(void *dst, const struct mem_buf *b, size_t off, size_t len)
{
	const struct rocm_buf *c = b->priv;
	hipError_t r;

	if (HIP(set, c->dev) || HIP(copy, dst, (const char *)c->ptr + off, len, HIP_DTOH))
		return rocm_fail("hipMemcpy (device to host)", r);
	return 0;
}

static int rocm_from_host(struct mem_buf *b, size_t off, const void *src, size_t len)
{
	const struct rocm_buf *c = b->priv;
	hipError_t r;

	if (HIP(set, c->dev) || HIP(copy, (char *)c->ptr + off, src, len, HIP_HTOD))
		return rocm_fail("hipMemcpy (host to device)", r);
	return 0;
}

static void rocm_device(const struct mem_buf *b, const char **name, const char **bus)
{
	const struct rocm_buf *c = b->priv;

	*name = c ? c->name : NULL;
	*bus = c ? c->bus : NULL;
}

const struct mem_ops mem_rocm = {
	.name = "rocm",
	.cpu_access = false,
	.alloc = rocm_alloc,
	.free = rocm_free,
	.to_host = rocm_to_host,
	.from_host = rocm_from_host,
	.device = rocm_device,
};
