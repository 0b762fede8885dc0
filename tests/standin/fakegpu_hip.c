/* HIP's (libamdhip64.so) and HSA's (libhsa-runtime64.so.1) entry points of
 * the drivers' stand-in (fakegpu.c says what it is). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "fakegpu.h"

static __thread int hip_dev;    /* 1 + the device hipSetDevice chose, 0: none */


#define HIP_READY(call) do { if (!g.hip_init) return fail(E_NOT_INIT, call, "hipInit was not called"); } while (0)

EXPORT int hipInit(unsigned flags)
{
	(void)flags;
	g.hip_init = 1;
	say("hipInit");
	return OK;
}

EXPORT int hipSetDevice(int dev)
{
	HIP_READY("hipSetDevice");
	if (!dev_ok(dev))
		return fail(E_DEVICE, "hipSetDevice", "no such device");
	hip_dev = dev + 1;
	return OK;
}

EXPORT int hipDeviceGetName(char *name, int len, int dev)
{
	HIP_READY("hipDeviceGetName");
	if (!dev_ok(dev) || len <= 0)
		return fail(E_DEVICE, "hipDeviceGetName", "no such device");
	snprintf(name, (size_t)len, "rdmabench stand-in GPU %d (host memory)", dev);
	return OK;
}

EXPORT int hipDeviceGetPCIBusId(char *bus, int len, int dev)
{
	HIP_READY("hipDeviceGetPCIBusId");
	if (!dev_ok(dev) || len <= 0)
		return fail(E_DEVICE, "hipDeviceGetPCIBusId", "no such device");
	snprintf(bus, (size_t)len, "0000:%02x:00.0", 0xa0 + dev);
	return OK;
}

#define HIP_DEV(call) do { HIP_READY(call); if (!hip_dev) return fail(E_CONTEXT, call, "hipSetDevice was not called in this thread"); } while (0)

EXPORT int hipMalloc(void **p, size_t len)
{
	uintptr_t u;
	int r;

	HIP_DEV("hipMalloc");
	r = mem_new(&u, len);
	if (r)
		return fail(r, "hipMalloc", "cannot allocate");
	*p = (void *)u;
	return OK;
}

EXPORT int hipFree(void *p)
{
	HIP_DEV("hipFree");
	return mem_del((uintptr_t)p, "hipFree");
}

EXPORT int hipMemcpy(void *dst, const void *src, size_t len, int kind)
{
	HIP_DEV("hipMemcpy");
	if (kind == 1)
		return mem_copy(dst, src, len, (uintptr_t)dst, &g.htod, "hipMemcpy");
	if (kind == 2)
		return mem_copy(dst, src, len, (uintptr_t)src, &g.dtoh, "hipMemcpy");
	return fail(E_VALUE, "hipMemcpy", "kind not host-to-device or device-to-host");
}

EXPORT int hipMemset(void *p, int v, size_t len)
{
	HIP_DEV("hipMemset");
	return mem_set((uintptr_t)p, v, len, "hipMemset");
}

EXPORT const char *hipGetErrorString(int r)
{
	const char *s = NULL;

	return cuGetErrorString(r, &s) == OK && s ? s : "unknown error (stand-in)";
}

/* The export, in the copy of the stand-in that is libamdhip64.so (whose
 * allocations they are): libhsa-runtime64.so.1 is another copy. */
EXPORT int rb_standin_hip_export(const void *p, size_t len, int *fd, uint64_t *off)
{
	int r;

	if (!g.hip_init)
		return fail(0x1001, "hsa_amd_portable_export_dmabuf", "the runtime is not initialized");
	r = dmabuf_fd((uintptr_t)p, len, "hsa_amd_portable_export_dmabuf");
	if (r < 0)
		return 0x1001;  /* HSA_STATUS_ERROR_INVALID_ARGUMENT */
	*fd = r;
	*off = 0;
	return 0;
}

EXPORT int hsa_amd_portable_export_dmabuf(const void *p, size_t len, int *fd, uint64_t *off)
{
	void *h = dlopen("libamdhip64.so", RTLD_NOW | RTLD_NOLOAD);
	int (*fn)(const void *, size_t, int *, uint64_t *) =
		h ? (int (*)(const void *, size_t, int *, uint64_t *))dlsym(h, "rb_standin_hip_export") : NULL;

	if (!fn)
		return fail(0x1001, "hsa_amd_portable_export_dmabuf", "libamdhip64.so is not loaded");
	return fn(p, len, fd, off);
}
