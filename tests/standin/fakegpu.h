/*
 * The drivers' stand-in (fakegpu.c: what it is and how it is used), shared
 * by its files: fakegpu.c (the state, the allocations, the log, CUDA's
 * entry points), fakegpu_stream.c (CUDA's streams and events) and
 * fakegpu_hip.c (HIP's and HSA's).  Everything here is
 * hidden (-fvisibility=hidden): only EXPORT entry points are the library's.
 */
#ifndef RB_FAKEGPU_H
#define RB_FAKEGPU_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_ALLOCS 1024
#define MAX_GPUS 8

enum { OK = 0, E_VALUE = 1, E_NOT_INIT = 3, E_DEVICE = 101, E_CONTEXT = 201, E_NOT_READY = 600 };

struct alloc {
	uintptr_t p;
	size_t len;
};

struct standin {
	pthread_mutex_t lock;
	int cuda_init, hip_init;
	int retained[MAX_GPUS];
	struct alloc a[MAX_ALLOCS];
	unsigned long allocs, frees, htod, dtoh, memsets, exports, errors;
	unsigned long touches;          /* cuMemsetD2D8Async calls done */
	long streams, events;           /* live now */
};
extern struct standin g;

/* A line on RB_STANDIN_LOG's file. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A refused call: counted, logged; returns code. */
int fail(int code, const char *call, const char *why);
int ngpus(void);
/* 1 + the device whose context is current in this thread, 0: none. */
int cu_ctx(void);
/* Whether a stream's pending work (fakegpu_stream.c) writes the
 * allocation at p (under g.lock). */
int stream_pending_on(uintptr_t p);
int dev_ok(int dev);
/* Allocations of host memory: new, the one holding [p, p + len) (under
 * g.lock), freed (a bad pointer or a double free refused), a copy with its
 * device side dev checked against them, a dma-buf fd (a memfd of len). */
int mem_new(uintptr_t *out, size_t len);
struct alloc *mem_find(uintptr_t p, size_t len);
int mem_del(uintptr_t p, const char *call);
int mem_copy(void *dst, const void *src, size_t len, uintptr_t dev, unsigned long *n,
	     const char *call);
int mem_set(uintptr_t p, int v, size_t len, const char *call);
int dmabuf_fd(uintptr_t p, size_t len, const char *call);
EXPORT int cuGetErrorString(int r, const char **s);

#define CU_READY(call) do { if (!g.cuda_init) return fail(E_NOT_INIT, call, "cuInit was not called"); } while (0)
#define CU_CTX(call) do { CU_READY(call); if (!cu_ctx()) return fail(E_CONTEXT, call, "no context current in this thread"); } while (0)

#endif
