/*
 * A stand-in for the GPU drivers, for the tests only (never installed):
 * built as libcuda.so.1, libamdhip64.so and libhsa-runtime64.so.1 in
 * build/tests/standin/, so that rdmabench's dlopen (src/verbs/mem_cuda.c,
 * mem_rocm.c) finds it in place of the driver when LD_LIBRARY_PATH names
 * that folder.  The "GPU memory" is host memory (mmap): an RDMA device
 * (rxe) registers it directly.  What runs on it is real RDMA; only the
 * GPU is a stand-in.
 *
 * Every call is checked as the driver would: a call before cuInit/hipInit,
 * an unknown device, no context current in the calling thread, an unknown
 * pointer, a double free, a copy out of an allocation's range, a dma-buf
 * range outside one: an error code and a line on the log.
 *
 * Environment:
 *   RB_STANDIN_LOG=FILE     each call's line and, at exit, the counts:
 *                           "standin: exit pid P allocs A frees F htod H
 *                           dtoh D memsets M exports E errors X touches T
 *                           streams S events V" (S, V: left live)
 *   RB_STANDIN_GPUS=N       devices (default 2): bus ids 0000:a0:00.0, ...
 *   RB_STANDIN_MEMTYPE=managed|host   what cuPointerGetAttribute says of
 *                           an allocation (default: device memory)
 *   RB_STANDIN_DMABUF=0     CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fakegpu.h"

struct standin g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread int cur_ctx;    /* 1 + device whose context is current, 0: none */

void say(const char *fmt, ...)
{
	const char *path = getenv("RB_STANDIN_LOG");
	FILE *f;
	va_list ap;

	if (!path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "standin: pid %d ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

int fail(int code, const char *call, const char *why)
{
	__atomic_add_fetch(&g.errors, 1, __ATOMIC_RELAXED);
	say("error %s: %s (%d)", call, why, code);
	return code;
}

int ngpus(void)
{
	const char *s = getenv("RB_STANDIN_GPUS");
	int n = s ? atoi(s) : 2;

	return n < 0 ? 0 : n > MAX_GPUS ? MAX_GPUS : n;
}

__attribute__((destructor)) static void standin_exit(void)
{
	say("exit allocs %lu frees %lu htod %lu dtoh %lu memsets %lu exports %lu errors %lu touches %lu streams %ld events %ld",
	    g.allocs, g.frees, g.htod, g.dtoh, g.memsets, g.exports, g.errors, g.touches, g.streams, g.events);
}

/* For tests/unit/test_mem_gpu.c: the counts so far. */
EXPORT void rb_standin_counts(unsigned long c[7])
{
	unsigned long v[7] = { g.allocs, g.frees, g.htod, g.dtoh, g.memsets, g.exports, g.errors };

	memcpy(c, v, sizeof(v));
}

/* For tests/unit/test_mem_gpu.c: --gpu_touch's passes, streams and events
 * live, and the calls refused so far. */
EXPORT void rb_standin_touch(long c[4])
{
	pthread_mutex_lock(&g.lock);
	c[0] = (long)g.touches;
	c[1] = g.streams;
	c[2] = g.events;
	c[3] = (long)__atomic_load_n(&g.errors, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g.lock);
}

/* ---- allocations (both APIs) ------------------------------------------ */

int mem_new(uintptr_t *out, size_t len)
{
	void *p;

	if (len == 0)
		return E_VALUE;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 2;       /* CUDA_ERROR_OUT_OF_MEMORY */
	pthread_mutex_lock(&g.lock);
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (!g.a[i].p) {
			g.a[i] = (struct alloc){ (uintptr_t)p, len };
			g.allocs++;
			pthread_mutex_unlock(&g.lock);
			*out = (uintptr_t)p;
			say("alloc %#lx %zu", (unsigned long)*out, len);
			return OK;
		}
	pthread_mutex_unlock(&g.lock);
	munmap(p, len);
	return 2;
}

/* The allocation that holds [p, p + len), or NULL. */
struct alloc *mem_find(uintptr_t p, size_t len)
{
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (g.a[i].p && p >= g.a[i].p && p - g.a[i].p <= g.a[i].len &&
		    len <= g.a[i].len - (p - g.a[i].p))
			return &g.a[i];
	return NULL;
}

int mem_del(uintptr_t p, const char *call)
{
	struct alloc *a;

	pthread_mutex_lock(&g.lock);
	a = mem_find(p, 0);
	if (!a || a->p != p) {
		pthread_mutex_unlock(&g.lock);
		return fail(E_VALUE, call, "not an allocation (a bad pointer or a double free)");
	}
	munmap((void *)a->p, a->len);
	a->p = 0;
	g.frees++;
	pthread_mutex_unlock(&g.lock);
	say("free %#lx", (unsigned long)p);
	return OK;
}

/* A copy of len bytes: dev (the device side) within an allocation. */
int mem_copy(void *dst, const void *src, size_t len, uintptr_t dev, unsigned long *n,
		    const char *call)
{
	int found;

	pthread_mutex_lock(&g.lock);
	found = mem_find(dev, len) != NULL;
	pthread_mutex_unlock(&g.lock);
	if (!found)
		return fail(E_VALUE, call, "out of any allocation's range");
	memcpy(dst, src, len);
	__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
	return OK;
}

int mem_set(uintptr_t p, int v, size_t len, const char *call)
{
	int found;

	pthread_mutex_lock(&g.lock);
	found = mem_find(p, len) != NULL;
	pthread_mutex_unlock(&g.lock);
	if (!found)
		return fail(E_VALUE, call, "out of any allocation's range");
	memset((void *)p, v, len);
	__atomic_add_fetch(&g.memsets, 1, __ATOMIC_RELAXED);
	return OK;
}

int dmabuf_fd(uintptr_t p, size_t len, const char *call)
{
	int fd, found;

	pthread_mutex_lock(&g.lock);
	found = mem_find(p, len) != NULL;
	pthread_mutex_unlock(&g.lock);
	if (!found || len == 0)
		return -fail(E_VALUE, call, "the range is not within one allocation");
	fd = memfd_create("rb-standin-dmabuf", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)len)) {
		if (fd >= 0)
			close(fd);
		return -fail(E_VALUE, call, "memfd_create failed");
	}
	__atomic_add_fetch(&g.exports, 1, __ATOMIC_RELAXED);
	say("export %#lx %zu fd %d", (unsigned long)p, len, fd);
	return fd;
}

/* ---- CUDA driver API (libcuda.so.1) ------------------------------------- */

int cu_ctx(void)
{
	return cur_ctx;
}

EXPORT int cuInit(unsigned flags)
{
	if (flags)
		return fail(E_VALUE, "cuInit", "flags must be 0");
	g.cuda_init = 1;
	say("cuInit");
	return OK;
}

EXPORT int cuDriverGetVersion(int *v)
{
	*v = 12080;
	return OK;
}

EXPORT int cuDeviceGetCount(int *n)
{
	CU_READY("cuDeviceGetCount");
	*n = ngpus();
	return OK;
}

EXPORT int cuDeviceGet(int *dev, int ordinal)
{
	CU_READY("cuDeviceGet");
	if (ordinal < 0 || ordinal >= ngpus())
		return fail(E_DEVICE, "cuDeviceGet", "no such device");
	*dev = ordinal;
	return OK;
}

EXPORT int cuDeviceGetByPCIBusId(int *dev, const char *bus)
{
	unsigned b;

	CU_READY("cuDeviceGetByPCIBusId");
	if (!bus || sscanf(bus, "0000:%x:00.0", &b) != 1 || b < 0xa0 || (int)(b - 0xa0) >= ngpus())
		return fail(E_DEVICE, "cuDeviceGetByPCIBusId", "no device at that bus id");
	*dev = (int)(b - 0xa0);
	return OK;
}

int dev_ok(int dev)
{
	return dev >= 0 && dev < ngpus();
}

EXPORT int cuDeviceGetName(char *name, int len, int dev)
{
	CU_READY("cuDeviceGetName");
	if (!dev_ok(dev) || len <= 0)
		return fail(E_DEVICE, "cuDeviceGetName", "no such device");
	snprintf(name, (size_t)len, "rdmabench stand-in GPU %d (host memory)", dev);
	return OK;
}

EXPORT int cuDeviceGetPCIBusId(char *bus, int len, int dev)
{
	CU_READY("cuDeviceGetPCIBusId");
	if (!dev_ok(dev) || len <= 0)
		return fail(E_DEVICE, "cuDeviceGetPCIBusId", "no such device");
	snprintf(bus, (size_t)len, "0000:%02x:00.0", 0xa0 + dev);
	return OK;
}

EXPORT int cuDeviceGetAttribute(int *v, int attr, int dev)
{
	const char *s = getenv("RB_STANDIN_DMABUF");

	CU_READY("cuDeviceGetAttribute");
	if (!dev_ok(dev))
		return fail(E_DEVICE, "cuDeviceGetAttribute", "no such device");
	*v = attr == 124 ? !(s && !strcmp(s, "0")) : 0;
	return OK;
}

EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
	CU_READY("cuDevicePrimaryCtxRetain");
	if (!dev_ok(dev))
		return fail(E_DEVICE, "cuDevicePrimaryCtxRetain", "no such device");
	__atomic_add_fetch(&g.retained[dev], 1, __ATOMIC_RELAXED);
	*ctx = (void *)(uintptr_t)(dev + 1);
	return OK;
}

EXPORT int cuDevicePrimaryCtxRelease_v2(int dev)
{
	CU_READY("cuDevicePrimaryCtxRelease");
	if (!dev_ok(dev) || __atomic_sub_fetch(&g.retained[dev], 1, __ATOMIC_RELAXED) < 0)
		return fail(E_CONTEXT, "cuDevicePrimaryCtxRelease", "not retained");
	return OK;
}

EXPORT int cuCtxSetCurrent(void *ctx)
{
	int d = (int)(uintptr_t)ctx - 1;

	CU_READY("cuCtxSetCurrent");
	if (ctx && (!dev_ok(d) || g.retained[d] <= 0))
		return fail(E_CONTEXT, "cuCtxSetCurrent", "not a live context");
	cur_ctx = ctx ? d + 1 : 0;
	return OK;
}

EXPORT int cuMemAlloc_v2(unsigned long long *p, size_t len)
{
	uintptr_t u;
	int r;

	CU_CTX("cuMemAlloc");
	r = mem_new(&u, len);
	if (r)
		return fail(r, "cuMemAlloc", "cannot allocate");
	*p = u;
	return OK;
}

EXPORT int cuMemFree_v2(unsigned long long p)
{
	int busy;

	CU_CTX("cuMemFree");
	pthread_mutex_lock(&g.lock);
	busy = stream_pending_on((uintptr_t)p);
	pthread_mutex_unlock(&g.lock);
	if (busy)
		return fail(E_VALUE, "cuMemFree", "a stream's work on it was never waited for");
	return mem_del((uintptr_t)p, "cuMemFree");
}

EXPORT int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t len)
{
	CU_CTX("cuMemcpyHtoD");
	return mem_copy((void *)(uintptr_t)dst, src, len, (uintptr_t)dst, &g.htod, "cuMemcpyHtoD");
}

EXPORT int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t len)
{
	CU_CTX("cuMemcpyDtoH");
	return mem_copy(dst, (const void *)(uintptr_t)src, len, (uintptr_t)src, &g.dtoh, "cuMemcpyDtoH");
}

EXPORT int cuMemsetD8_v2(unsigned long long p, unsigned char v, size_t len)
{
	CU_CTX("cuMemsetD8");
	return mem_set((uintptr_t)p, v, len, "cuMemsetD8");
}

/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2): device (2), or host (1) or
 * unified (4) as RB_STANDIN_MEMTYPE says; IS_MANAGED (8). */
EXPORT int cuPointerGetAttribute(void *data, int attr, unsigned long long p)
{
	const char *t = getenv("RB_STANDIN_MEMTYPE");
	int managed = t && !strcmp(t, "managed"), host = t && !strcmp(t, "host"), found;

	CU_READY("cuPointerGetAttribute");
	pthread_mutex_lock(&g.lock);
	found = mem_find((uintptr_t)p, 0) != NULL;
	pthread_mutex_unlock(&g.lock);
	if (!found)
		return fail(E_VALUE, "cuPointerGetAttribute", "not an allocation");
	if (attr == 2)
		*(unsigned *)data = managed ? 4 : host ? 1 : 2;
	else if (attr == 8)
		*(unsigned *)data = (unsigned)managed;
	else
		return fail(E_VALUE, "cuPointerGetAttribute", "attribute not in the stand-in");
	return OK;
}

EXPORT int cuMemGetHandleForAddressRange(void *handle, unsigned long long p, size_t len, int type,
					 unsigned long long flags)
{
	int fd;

	CU_CTX("cuMemGetHandleForAddressRange");
	if (type != 1 || flags)
		return fail(E_VALUE, "cuMemGetHandleForAddressRange", "type must be DMA_BUF_FD, flags 0");
	if ((p | len) & (uintptr_t)(sysconf(_SC_PAGESIZE) - 1))
		return fail(E_VALUE, "cuMemGetHandleForAddressRange", "range not aligned to the host page");
	fd = dmabuf_fd((uintptr_t)p, len, "cuMemGetHandleForAddressRange");
	if (fd < 0)
		return -fd;
	*(int *)handle = fd;
	return OK;
}

EXPORT int cuGetErrorString(int r, const char **s)
{
	switch (r) {
	case OK: *s = "no error"; break;
	case E_VALUE: *s = "invalid argument (stand-in)"; break;
	case 2: *s = "out of memory (stand-in)"; break;
	case E_NOT_INIT: *s = "initialization error (stand-in)"; break;
	case E_DEVICE: *s = "invalid device ordinal (stand-in)"; break;
	case E_CONTEXT: *s = "invalid device context (stand-in)"; break;
	default: *s = NULL; return E_VALUE;
	}
	return OK;
}

