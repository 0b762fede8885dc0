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
 *
 * --gpu_touch (perftest's, whose CUDA kernel writes a 0 at every 4096th
 * byte of the buffer): the same writes with no kernel compiled, one
 * cuMemsetD2D8Async of 1-byte rows 4096 bytes apart on a stream of our
 * own, waited for on a blocking-sync event.  once: one pass in alloc,
 * before the MR is registered.  infinite: that pass, then pass after pass
 * on a thread of its own (its CPUs: the others than the allocating, i.e.
 * measuring, thread's where there are any) until free stops it: free
 * joins the thread before the stream, the event and the memory go.  The
 * CPU never touches the memory; the engine's loops are not involved.
 */
#include "verbs/mem_gpu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/options.h"
#include "lib/log.h"

/* The driver API's types and values (cuda.h), declared here: no build dependency. */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;
typedef void *CUstream;
typedef void *CUevent;
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_IS_MANAGED 8
#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 124
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1
#define CUDA_PAGE (64UL << 10)          /* perftest's ACCEL_PAGE_SIZE */
#define CU_STREAM_NON_BLOCKING 1
#define CU_EVENT_BLOCKING_SYNC 1
#define CU_EVENT_DISABLE_TIMING 2
#define TOUCH_STRIDE 4096UL             /* perftest's GPU_TOUCH_STEP */

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
	CUresult (*stream_new)(CUstream *, unsigned);
	CUresult (*stream_del)(CUstream);
	CUresult (*event_new)(CUevent *, unsigned);
	CUresult (*event_rec)(CUevent, CUstream);
	CUresult (*event_sync)(CUevent);
	CUresult (*event_del)(CUevent);
	CUresult (*memset2d)(CUdeviceptr, size_t, unsigned char, size_t, size_t, CUstream);
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
	SYM("cuStreamCreate", stream_new, NULL),
	SYM("cuStreamDestroy_v2", stream_del, "cuStreamDestroy", NULL),
	SYM("cuEventCreate", event_new, NULL),
	SYM("cuEventRecord", event_rec, NULL),
	SYM("cuEventSynchronize", event_sync, NULL),
	SYM("cuEventDestroy_v2", event_del, "cuEventDestroy", NULL),
	SYM("cuMemsetD2D8Async", memset2d, NULL),
	{ NULL, NULL, NULL },
};

/* --gpu_touch's state: passes counts the finished ones (atomic: the
 * thread adds, the metadata reads); stop is free's word to the thread. */
struct cuda_touch {
	int mode;               /* enum gpu_touch */
	CUstream stream;
	CUevent event;
	size_t rows;            /* pages touched per pass: len / TOUCH_STRIDE */
	unsigned long passes;
	int stop;
	bool thread, apart;     /* a thread runs; on CPUs apart from the measuring one's */
	pthread_t tid;
};

struct cuda_buf {
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr ptr;
	char name[96];
	char bus[32];
	struct cuda_touch touch;
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

/* ---- --gpu_touch ---------------------------------------------------- */

/* One pass: byte 0 of each TOUCH_STRIDE bytes set to 0 by the GPU, waited for. */
static int touch_pass(struct cuda_buf *c)
{
	CUresult r;

	if (CU(memset2d, c->ptr, TOUCH_STRIDE, 0, 1, c->touch.rows, c->touch.stream))
		return cuda_fail("cuMemsetD2D8Async (--gpu_touch)", r);
	if (CU(event_rec, c->touch.event, c->touch.stream) || CU(event_sync, c->touch.event))
		return cuda_fail("cuEventRecord/cuEventSynchronize (--gpu_touch)", r);
	__atomic_add_fetch(&c->touch.passes, 1, __ATOMIC_RELAXED);
	return 0;
}

static void *touch_loop(void *arg)
{
	struct cuda_buf *c = arg;
	CUresult r;

	if (CU(ctx_set, c->ctx)) {
		cuda_fail("cuCtxSetCurrent (--gpu_touch's thread)", r);
		return NULL;
	}
	while (!__atomic_load_n(&c->touch.stop, __ATOMIC_ACQUIRE))
		if (touch_pass(c)) {
			log_err("--gpu_touch=infinite: the touch stopped after %lu passes; the rest of the run went untouched",
				__atomic_load_n(&c->touch.passes, __ATOMIC_RELAXED));
			break;
		}
	return NULL;
}

/* The CPUs that the calling (measuring) thread is not pinned to: false
 * when there are none. */
static bool touch_cpus(cpu_set_t *other)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t mine;

	CPU_ZERO(other);
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return false;
	for (long i = 0; i < n && i < CPU_SETSIZE; i++)
		if (!CPU_ISSET(i, &mine))
			CPU_SET(i, other);
	return CPU_COUNT(other) > 0;
}

/* infinite: the thread, off the measuring thread's CPUs where it can be. */
static int touch_start(struct cuda_buf *c)
{
	pthread_attr_t a;
	cpu_set_t other;
	int err;

	pthread_attr_init(&a);
	c->touch.apart = touch_cpus(&other) && pthread_attr_setaffinity_np(&a, sizeof(other), &other) == 0;
	err = pthread_create(&c->touch.tid, &a, touch_loop, c);
	if (err == EINVAL && c->touch.apart) {  /* none of those CPUs allowed here */
		c->touch.apart = false;
		err = pthread_create(&c->touch.tid, NULL, touch_loop, c);
	}
	pthread_attr_destroy(&a);
	if (err) {
		log_err("--gpu_touch=infinite: cannot start the touch's thread: %s", strerror(err));
		return -err;
	}
	c->touch.thread = true;
	return 0;
}

/* The stream, the event, the first pass (before the MR), and for
 * infinite the thread that goes on. */
static int touch_open(struct mem_buf *b, struct cuda_buf *c)
{
	CUresult r;
	int err;

	c->touch.mode = b->dev.touch;
	c->touch.rows = b->len / TOUCH_STRIDE;
	if (CU(stream_new, &c->touch.stream, CU_STREAM_NON_BLOCKING)) {
		c->touch.stream = NULL;
		return cuda_fail("cuStreamCreate (--gpu_touch)", r);
	}
	if (CU(event_new, &c->touch.event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING)) {
		c->touch.event = NULL;
		return cuda_fail("cuEventCreate (--gpu_touch)", r);
	}
	err = touch_pass(c);
	if (!err && c->touch.mode == GPU_TOUCH_INFINITE)
		err = touch_start(c);
	return err;
}

/* The thread stopped (a pass at most: 10 s), then its stream and event.
 * -ETIMEDOUT (said): a pass hung; the caller leaves the memory be. */
static int touch_close(struct cuda_buf *c)
{
	struct timespec end;

	if (c->touch.thread) {
		__atomic_store_n(&c->touch.stop, 1, __ATOMIC_RELEASE);
		clock_gettime(CLOCK_REALTIME, &end);
		end.tv_sec += 10;
		if (pthread_timedjoin_np(c->touch.tid, NULL, &end)) {
			log_err("--gpu_touch=infinite: the touch's thread did not stop within 10 s (a GPU pass hung?): "
				"its stream, event and the GPU memory are left to the process's exit");
			return -ETIMEDOUT;
		}
		c->touch.thread = false;
		log_verbose("--gpu_touch=infinite: %lu passes over %zu pages", c->touch.passes, c->touch.rows);
	}
	if (c->touch.event)
		cu.event_del(c->touch.event);
	if (c->touch.stream)
		cu.stream_del(c->touch.stream);
	c->touch.event = NULL;
	c->touch.stream = NULL;
	return 0;
}

static void cuda_touch_text(const struct mem_buf *b, char *buf, size_t len)
{
	const struct cuda_buf *c = b->priv;
	unsigned long n = c ? __atomic_load_n(&c->touch.passes, __ATOMIC_RELAXED) : 0;

	if (!c || c->touch.mode == GPU_TOUCH_NONE)
		snprintf(buf, len, "none");
	else if (c->touch.mode == GPU_TOUCH_ONCE)
		snprintf(buf, len, "once: cuMemsetD2D8Async, byte 0 of each of %zu 4096-byte pages set to 0; %lu pass, "
			 "before the MR was registered", c->touch.rows, n);
	else
		snprintf(buf, len, "infinite: cuMemsetD2D8Async, byte 0 of each of %zu 4096-byte pages set to 0, pass "
			 "after pass until the buffer is freed, on a thread %s; %lu passes when the run began",
			 c->touch.rows, c->touch.apart ? "off the measuring thread's CPU" : "on the measuring thread's CPUs", n);
}

static void cuda_release(struct cuda_buf *c)
{
	int hung = 0;

	if (c->ptr) {
		cu.ctx_set(c->ctx);
		hung = touch_close(c);
		if (!hung)
			cu.free(c->ptr);
	}
	if (c->ctx && !hung)
		cu.ctx_release(c->dev);
	if (!hung)
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
	if (!err && b->dev.touch)
		err = touch_open(b, c);
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
	.touch_text = cuda_touch_text,
};
