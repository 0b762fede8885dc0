/*
 * Memory kind "cuda" (--use_cuda=ID, --use_cuda_bus_id=BUS,
 * --use_cuda_dmabuf): NVIDIA GPU memory from cuMemAlloc, in the device's
 * primary context, through libcuda.so.1 loaded at run time (mem_gpu.h).
 * The CPU may not touch it (mem.h): copies go through cuMemcpyHtoD/DtoH.
 * The allocation is confirmed to be device memory (cuPointerGetAttribute):
 * managed or host memory fails the run, naming what it is, rather than
 * measuring the host path under the GPU's name.  Registered as peer memory
 * (ibv_reg_mr on the device address: the kernel's peer-memory client), or
 * with --use_cuda_dmabuf through the dma-buf fd of
 * cuMemGetHandleForAddressRange (ibv_reg_dmabuf_mr).
 */
#include "verbs/mem_gpu.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/log.h"

/* The driver API's types and values (cuda.h), declared here: no build dependency. */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_IS_MANAGED 8
#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 124
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1
#define CUDA_PAGE (64UL << 10)          /* perftest's ACCEL_PAGE_SIZE */

static const char *const cuda_libs[] = { "libcuda.so.1", "libcuda.so", NULL };

static struct {
	CUresult (*init)(unsigned);
	CUresult (*dev_get)(CUdevice *, int);
	CUresult (*dev_by_bus)(CUdevice *, const char *);
	CUresult (*dev_name)(char *, int, CUdevice);
	CUresult (*dev_bus)(char *, int, CUdevice);
	CUresult (*dev_attr)(int *, int, CUdevice);
	CUresult (*ctx_retain)(CUcontext *, CUdevice);
	CUresult (*ctx_release)(CUdevice);
	CUresult (*ctx_set)(CUcontext);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*free)(CUdeviceptr);
	CUresult (*htod)(CUdeviceptr, const void *, size_t);
	CUresult (*dtoh)(void *, CUdeviceptr, size_t);
	CUresult (*memset)(CUdeviceptr, unsigned char, size_t);
	CUresult (*ptr_attr)(void *, int, CUdeviceptr);
	CUresult (*handle)(void *, CUdeviceptr, size_t, int, unsigned long long);
	CUresult (*err_str)(CUresult, const char **);
	int loaded;             /* 1: ready, -errno: failed (said once per call) */
} cu;

#define SYM(n, f, ...) { n, (void **)&cu.f, (const char *const[]){ __VA_ARGS__ } }
static const struct gpu_sym cuda_syms[] = {
	SYM("cuInit", init, NULL),
	SYM("cuDeviceGet", dev_get, NULL),
	SYM("cuDeviceGetByPCIBusId", dev_by_bus, NULL),
	SYM("cuDeviceGetName", dev_name, NULL),
	SYM("cuDeviceGetPCIBusId", dev_bus, NULL),
	SYM("cuDeviceGetAttribute", dev_attr, NULL),
	SYM("cuDevicePrimaryCtxRetain", ctx_retain, NULL),
	SYM("cuDevicePrimaryCtxRelease_v2", ctx_release, "cuDevicePrimaryCtxRelease", NULL),
	SYM("cuCtxSetCurrent", ctx_set, NULL),
	SYM("cuMemAlloc_v2", alloc, NULL),
	SYM("cuMemFree_v2", free, NULL),
	SYM("cuMemcpyHtoD_v2", htod, NULL),
	SYM("cuMemcpyDtoH_v2", dtoh, NULL),
	SYM("cuMemsetD8_v2", memset, NULL),
	SYM("cuPointerGetAttribute", ptr_attr, NULL),
	SYM("cuMemGetHandleForAddressRange", handle, NULL),
	SYM("cuGetErrorString", err_str, NULL),
	{ NULL, NULL, NULL },
};

struct cuda_buf {
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr ptr;
	char name[96];
	char bus[32];
};

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static void *cuda_handle;

static void cuda_load(void)
{
	cuda_handle = gpu_lib_open(cuda_libs, "--use_cuda");
	if (!cuda_handle) {
		cu.loaded = -ENOENT;
		return;
	}
	cu.loaded = gpu_lib_syms(cuda_handle, cuda_libs[0], cuda_syms);
	if (cu.loaded == 0)
		cu.loaded = 1;
}

static const char *cuda_err(CUresult r)
{
	const char *s = NULL;

	if (cu.err_str && cu.err_str(r, &s) == 0 && s)
		return s;
	return "unknown error";
}

/* A failed call: a message naming it and the driver's error. */
static int cuda_fail(const char *call, CUresult r)
{
	log_err("--use_cuda: %s failed: %s (CUresult %d)", call, cuda_err(r), r);
	return -EIO;
}

#define CU(call, ...) ((r = cu.call(__VA_ARGS__)) != 0)

/* The GPU the options name, its primary context current in this thread. */
static int cuda_open(struct cuda_buf *c, const struct mem_dev *d)
{
	CUresult r;

	if (CU(init, 0))
		return cuda_fail("cuInit", r);
	if (d->bus_id ? CU(dev_by_bus, &c->dev, d->bus_id) : CU(dev_get, &c->dev, d->id)) {
		if (d->bus_id)
			log_err("--use_cuda_bus_id: no CUDA GPU at bus id %s: %s", d->bus_id, cuda_err(r));
		else
			log_err("--use_cuda: no CUDA GPU %d: %s", d->id, cuda_err(r));
		return -ENODEV;
	}
	if (CU(dev_name, c->name, (int)sizeof(c->name), c->dev) ||
	    CU(dev_bus, c->bus, (int)sizeof(c->bus), c->dev))
		return cuda_fail("cuDeviceGetName/cuDeviceGetPCIBusId", r);
	if (CU(ctx_retain, &c->ctx, c->dev))
		return cuda_fail("cuDevicePrimaryCtxRetain", r);
	if (CU(ctx_set, c->ctx)) {
		cu.ctx_release(c->dev);
		c->ctx = NULL;
		return cuda_fail("cuCtxSetCurrent", r);
	}
	return 0;
}

/* What cuMemAlloc gave is device memory: else said, as what it is. */
static int cuda_is_device(const struct cuda_buf *c)
{
	unsigned type = 0, managed = 0;
	CUresult r;

	if (CU(ptr_attr, &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, c->ptr) ||
	    CU(ptr_attr, &managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, c->ptr))
		return cuda_fail("cuPointerGetAttribute", r);
	if (type == CU_MEMORYTYPE_DEVICE && !managed)
		return 0;
	log_err("--use_cuda: GPU %s (%s) gave %s memory, not device memory: the figures would "
		"measure the host path; not run", c->bus, c->name,
		managed ? "managed" : type == CU_MEMORYTYPE_HOST ? "host" : "unknown");
	return -EMEDIUMTYPE;
}

/* The dma-buf fd of the allocation (from a host page boundary, as perftest). */
static int cuda_export(struct mem_buf *b, struct cuda_buf *c)
{
	size_t host_page = (size_t)sysconf(_SC_PAGESIZE);
	CUdeviceptr base = c->ptr & ~(CUdeviceptr)(host_page - 1);
	size_t len = (b->len + (c->ptr - base) + host_page - 1) & ~(host_page - 1);
	int ok = 0, fd = -1;
	CUresult r;

	if (CU(dev_attr, &ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, c->dev))
		return cuda_fail("cuDeviceGetAttribute(DMA_BUF_SUPPORTED)", r);
	if (!ok) {
		log_err("--use_cuda_dmabuf: GPU %s (%s) cannot export dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0: "
			"the open kernel modules are needed); drop --use_cuda_dmabuf for peer memory", c->bus, c->name);
		return -EOPNOTSUPP;
	}
	if (CU(handle, &fd, base, len, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0))
		return cuda_fail("cuMemGetHandleForAddressRange", r);
	b->dmabuf_fd = fd;
	b->dmabuf_offset = c->ptr - base;
	return 0;
}

static void cuda_release(struct cuda_buf *c)
{
	if (c->ptr) {
		cu.ctx_set(c->ctx);
		cu.free(c->ptr);
	}
	if (c->ctx)
		cu.ctx_release(c->dev);
	free(c);
}

static int cuda_fill(struct mem_buf *b, struct cuda_buf *c)
{
	CUresult r;
	int err;

	if (CU(alloc, &c->ptr, b->len)) {
		c->ptr = 0;
		log_err("--use_cuda: cuMemAlloc of %zu bytes on GPU %s (%s) failed: %s", b->len, c->bus,
			c->name, cuda_err(r));
		return -ENOMEM;
	}
	err = cuda_is_device(c);
	if (!err && CU(memset, c->ptr, 0, b->len))
		err = cuda_fail("cuMemsetD8", r);
	if (!err && b->dev.dmabuf)
		err = cuda_export(b, c);
	return err;
}

static int cuda_alloc(struct mem_buf *b, size_t len, int node)
{
	struct cuda_buf *c;
	int err;

	(void)node;     /* the GPU's memory is where the GPU is */
	pthread_once(&cuda_once, cuda_load);
	if (cu.loaded < 0)
		return cu.loaded;
	err = mem_round(len, CUDA_PAGE, &b->len);
	if (err)
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = cuda_open(c, &b->dev);
	if (!err)
		err = cuda_fill(b, c);
	if (err) {
		if (b->dmabuf_fd >= 0)
			close(b->dmabuf_fd);
		b->dmabuf_fd = -1;
		cuda_release(c);
		return err;
	}
	b->priv = c;
	b->addr = (void *)(uintptr_t)c->ptr;
	b->page = CUDA_PAGE;
	return 0;
}

static void cuda_free(struct mem_buf *b)
{
	if (b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	b->dmabuf_fd = -1;
	if (b->priv)
		cuda_release(b->priv);
	b->priv = NULL;
	b->addr = NULL;
}

static int cuda_to_host(void *dst, const struct mem_buf *b, size_t off, size_t len)
{
	const struct cuda_buf *c = b->priv;
	CUresult r;

	if (CU(ctx_set, c->ctx) || CU(dtoh, dst, c->ptr + off, len))
		return cuda_fail("cuMemcpyDtoH", r);
	return 0;
}

static int cuda_from_host(struct mem_buf *b, size_t off, const void *src, size_t len)
{
	const struct cuda_buf *c = b->priv;
	CUresult r;

	if (CU(ctx_set, c->ctx) || CU(htod, c->ptr + off, src, len))
		return cuda_fail("cuMemcpyHtoD", r);
	return 0;
}

static void cuda_device(const struct mem_buf *b, const char **name, const char **bus)
{
	const struct cuda_buf *c = b->priv;

	*name = c ? c->name : NULL;
	*bus = c ? c->bus : NULL;
}

const struct mem_ops mem_cuda = {
	.name = "cuda",
	.cpu_access = false,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.to_host = cuda_to_host,
	.from_host = cuda_from_host,
	.device = cuda_device,
};
