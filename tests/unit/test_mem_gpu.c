/*
 * GPU memory (src/verbs/mem_cuda.c, mem_rocm.c, mem_gpu.c) through the
 * drivers' stand-in (tests/standin/fakegpu.c: host memory behind the CUDA
 * and HIP entry points, every call checked).  The program first looks for
 * the driver where the system keeps it (none on a machine without a GPU:
 * the message must name the library and LD_LIBRARY_PATH), then executes
 * itself again with LD_LIBRARY_PATH naming the stand-in's folder (dlopen
 * reads it at start only) for the rest: allocation on the device asked
 * for (id, bus id), rounding, no CPU address, copies both ways and out of
 * range, the host copy that --validate works on, the dma-buf fd, managed
 * and host memory refused as what they are, an unknown GPU refused, ROCm
 * the same, and the stand-in's own checks (a double free, a copy out of
 * range, no current context) with its counts: every allocation freed.
 * --gpu_touch (mem_dev.touch): once, a pass at allocation; infinite, passes
 * that go on until the free, each setting byte 0 of every 4096 bytes (the
 * buffer filled with 0xff beforehand shows which bytes), on a thread off
 * this (pinned) thread's CPU, its stream and event gone after the free;
 * and the stand-in refusing the stream calls made wrong.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "lib/log.h"
#include "verbs/mem.h"
#include "tap.h"

#define PLAN 65
#define STAGE "RB_TEST_MEM_GPU_STAGE"

static char err_text[4096];
static FILE *err_file;
static int saved_err = -1;

static void capture(void)
{
	fflush(stderr);
	rewind(err_file);
	if (ftruncate(fileno(err_file), 0))
		return;
	saved_err = dup(2);
	dup2(fileno(err_file), 2);
}

static const char *captured(void)
{
	size_t n;

	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	rewind(err_file);
	n = fread(err_text, 1, sizeof(err_text) - 1, err_file);
	err_text[n] = '\0';
	return err_text;
}

static int alloc(struct mem_buf *b, const char *kind, size_t len, struct mem_dev d)
{
	int err;

	capture();
	err = mem_alloc_dev(b, mem_kind_by_name(kind), len, -1, &d);
	captured();
	return err;
}

/* Phase 1: the system's libraries only. */
static void test_no_driver(void)
{
	struct mem_buf b;
	void *real = dlopen("libcuda.so.1", RTLD_NOW);

	if (real) {
		dlclose(real);
		skip("a real libcuda.so.1 is installed here: the missing-driver message is not testable");
		skip("(the same)");
		return;
	}
	is_int(alloc(&b, "cuda", 4096, (struct mem_dev){ 0 }), -ENOENT, "no libcuda.so.1: -ENOENT");
	ok(strstr(err_text, "--use_cuda: cannot load libcuda.so.1") && strstr(err_text, "LD_LIBRARY_PATH"),
	   "... the message names --use_cuda, the library and LD_LIBRARY_PATH: %s", err_text);
}

static void test_cuda_basic(void)
{
	struct mem_buf b;
	const char *name = NULL, *bus = NULL;

	is_int(alloc(&b, "cuda", 100000, (struct mem_dev){ .id = 1 }), 0, "cuda: 100000 bytes on GPU 1");
	ok(b.len == 128 * 1024 && b.page == 64 * 1024, "... rounded up to 64 KiB pages (%zu, page %zu)", b.len, b.page);
	ok(b.addr && !b.cpu && !b.view && !mem_cpu_ok(&b) && !mem_staged(&b),
	   "... a device address, none for the CPU, no host copy");
	ok(!strcmp(mem_kind_name(&b), "cuda") && b.dmabuf_fd == -1, "... kind cuda, no dma-buf");
	b.ops->device(&b, &name, &bus);
	ok(name && strstr(name, "stand-in GPU 1") && bus && !strcmp(bus, "0000:a1:00.0"),
	   "... the device's name and bus id from the driver (%s, %s)", name, bus);
	{
		unsigned char in[300], out[300];

		for (int i = 0; i < 300; i++)
			in[i] = (unsigned char)(i * 7 + 1);
		is_int(b.ops->from_host(&b, 5000, in, sizeof(in)), 0, "... 300 bytes copied in at 5000");
		memset(out, 0, sizeof(out));
		is_int(b.ops->to_host(out, &b, 5000, sizeof(out)), 0, "... and out");
		ok(!memcmp(in, out, sizeof(in)), "... the same bytes");
		capture();
		is_int(b.ops->to_host(out, &b, b.len - 10, sizeof(out)), -EIO, "... a copy past the end: -EIO");
		ok(strstr(captured(), "cuMemcpyDtoH failed"), "... said: %s", err_text);
	}
	mem_free(&b);
	ok(!b.ops && !b.addr, "freed: empty");
}

static void test_cuda_stage(void)
{
	struct mem_buf b;
	unsigned char *v;
	bool zero = true;

	is_int(alloc(&b, "cuda", 8192, (struct mem_dev){ .stage = true }), 0, "cuda with a host copy (--validate)");
	v = b.view;
	ok(v && v == b.stage && !b.cpu && mem_staged(&b), "... the engine's view is the host copy, the CPU address none");
	for (size_t i = 0; v && i < b.len; i++)
		zero &= v[i] == 0;
	ok(v && zero, "... zeroed (the device's bytes pulled)");
	if (!v)
		return;
	memset(v + 100, 0x5a, 64);
	is_int(mem_push(&b, 100, 64), 0, "... 64 bytes pushed");
	memset(v + 100, 0, 64);
	is_int(mem_pull(&b, 100, 64), 0, "... pulled back");
	ok(v[100] == 0x5a && v[163] == 0x5a && v[164] == 0, "... the device held them");
	capture();
	is_int(mem_push(&b, b.len - 1, 2), -ERANGE, "... a push past the end: -ERANGE");
	ok(strstr(captured(), "outside the buffer"), "... said: %s", err_text);
	mem_free(&b);
	ok(!b.stage && !b.view, "freed: no host copy left");
}

static void test_cuda_choice(void)
{
	struct mem_buf b;
	const char *name = NULL, *bus = NULL;

	is_int(alloc(&b, "cuda", 4096, (struct mem_dev){ .bus_id = "0000:a0:00.0", .dmabuf = true }), 0,
	       "cuda by bus id 0000:a0:00.0, with its dma-buf");
	if (b.ops)
		b.ops->device(&b, &name, &bus);
	ok(bus && !strcmp(bus, "0000:a0:00.0") && b.dmabuf_fd >= 0 && b.dmabuf_offset == 0,
	   "... GPU 0, a dma-buf fd (%d) at offset 0", b.dmabuf_fd);
	mem_free(&b);
	is_int(alloc(&b, "cuda", 4096, (struct mem_dev){ .id = 7 }), -ENODEV, "GPU 7 of 2: -ENODEV");
	ok(strstr(err_text, "no CUDA GPU") && strstr(err_text, "7"), "... said: %s", err_text);
	is_int(alloc(&b, "cuda", 4096, (struct mem_dev){ .bus_id = "0000:33:00.0" }), -ENODEV, "an unknown bus id: -ENODEV");
	ok(strstr(err_text, "0000:33:00.0"), "... named: %s", err_text);
	setenv("RB_STANDIN_DMABUF", "0", 1);
	is_int(alloc(&b, "cuda", 4096, (struct mem_dev){ .dmabuf = true }), -EOPNOTSUPP, "dma-buf not supported by the GPU: -EOPNOTSUPP");
	ok(strstr(err_text, "--use_cuda_dmabuf") && strstr(err_text, "DMA_BUF_SUPPORTED"), "... said: %s", err_text);
	unsetenv("RB_STANDIN_DMABUF");
}

/* The "never lie" rule: memory that is not device memory fails the run. */
static void test_cuda_not_device(void)
{
	struct mem_buf b;

	setenv("RB_STANDIN_MEMTYPE", "managed", 1);
	is_int(alloc(&b, "cuda", 4096, (struct mem_dev){ 0 }), -EMEDIUMTYPE, "managed memory: refused");
	ok(strstr(err_text, "gave managed memory, not device memory"), "... named as managed: %s", err_text);
	setenv("RB_STANDIN_MEMTYPE", "host", 1);
	is_int(alloc(&b, "cuda", 4096, (struct mem_dev){ 0 }), -EMEDIUMTYPE, "host memory: refused");
	ok(strstr(err_text, "gave host memory"), "... named as host: %s", err_text);
	unsetenv("RB_STANDIN_MEMTYPE");
	ok(!b.ops && b.dmabuf_fd == -1, "... nothing left allocated");
}

static void test_rocm(void)
{
	struct mem_buf b;
	unsigned char in[64], out[64];

	is_int(alloc(&b, "rocm", 5000, (struct mem_dev){ .id = 0, .dmabuf = true }), 0, "rocm: 5000 bytes, dma-buf");
	ok(b.len == 64 * 1024 && !b.cpu && b.dmabuf_fd >= 0, "... 64 KiB, no CPU address, a dma-buf fd");
	memset(in, 0xc3, sizeof(in));
	is_int(b.ops ? b.ops->from_host(&b, 0, in, sizeof(in)) : -1, 0, "... copied in");
	is_int(b.ops ? b.ops->to_host(out, &b, 0, sizeof(out)) : -1, 0, "... and out");
	ok(!memcmp(in, out, sizeof(in)), "... the same bytes");
	mem_free(&b);
	is_int(alloc(&b, "rocm", 4096, (struct mem_dev){ .id = 5 }), -ENODEV, "ROCm GPU 5 of 2: -ENODEV");
}

/* A thread with no context current: the stand-in refuses, as the driver. */
static void *no_ctx(void *fn)
{
	unsigned long long p = 0;
	int (*alloc_fn)(unsigned long long *, size_t) = (int (*)(unsigned long long *, size_t))fn;

	return (void *)(intptr_t)alloc_fn(&p, 4096);
}

/* The stand-in itself: its checks, and its counts after all the above. */
static void test_standin(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void (*counts)(unsigned long c[7]) = h ? (void (*)(unsigned long *))dlsym(h, "rb_standin_counts") : NULL;
	int (*mfree)(unsigned long long) = h ? (int (*)(unsigned long long))dlsym(h, "cuMemFree_v2") : NULL;
	void *malloc_fn = h ? dlsym(h, "cuMemAlloc_v2") : NULL;
	unsigned long c[7] = { 0 };
	pthread_t t;
	void *rc = NULL;

	ok(counts && mfree && malloc_fn, "the stand-in is the libcuda.so.1 loaded");
	if (!counts || !mfree || !malloc_fn)
		return;
	is_int(mfree(0x1000), 1, "stand-in: freeing what it never gave: CUDA_ERROR_INVALID_VALUE");
	{
		unsigned long long p = 0;
		int (*mall)(unsigned long long *, size_t) = (int (*)(unsigned long long *, size_t))malloc_fn;

		is_int(mall(&p, 4096) || mfree(p), 0, "stand-in: an allocation freed once (this thread's context)");
		is_int(mfree(p), 1, "stand-in: freed twice: CUDA_ERROR_INVALID_VALUE");
	}
	pthread_create(&t, NULL, no_ctx, malloc_fn);
	pthread_join(t, &rc);
	is_int((intptr_t)rc, 201, "stand-in: cuMemAlloc with no current context: CUDA_ERROR_INVALID_CONTEXT");
	counts(c);
	ok(c[0] > 0 && c[0] == c[1], "every allocation freed (%lu allocs, %lu frees)", c[0], c[1]);
	ok(c[2] >= 2 && c[3] >= 3 && c[5] == 1, "copies both ways and the one CUDA dma-buf export counted (htod %lu, dtoh %lu, exports %lu)",
	   c[2], c[3], c[5]);
}

/* The stand-in's touch counts: passes, streams and events live, calls refused. */
static void touch_counts(long c[4])
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void (*f)(long *) = h ? (void (*)(long *))dlsym(h, "rb_standin_touch") : NULL;

	c[0] = c[1] = c[2] = c[3] = -1;
	if (f)
		f(c);
}

/* Wait (5 s at most) for the passes to reach n. */
static long touch_wait(long n)
{
	long c[4];

	for (int i = 0; i < 500; i++) {
		touch_counts(c);
		if (c[0] >= n)
			break;
		usleep(10000);
	}
	return c[0];
}

static void test_touch_once(void)
{
	struct mem_buf b;
	char text[256];
	long c0[4], c[4];

	touch_counts(c0);
	is_int(alloc(&b, "cuda", 100000, (struct mem_dev){ .touch = GPU_TOUCH_ONCE }), 0, "--gpu_touch=once: 128 KiB on GPU 0");
	touch_counts(c);
	ok(c[0] == c0[0] + 1 && c[1] == c0[1] + 1 && c[2] == c0[2] + 1,
	   "... one pass done in the allocation, a stream and an event live (passes %ld, streams %ld, events %ld)", c[0] - c0[0], c[1], c[2]);
	b.ops->touch_text(&b, text, sizeof(text));
	ok(strstr(text, "once: cuMemsetD2D8Async") && strstr(text, " 32 4096-byte pages") && strstr(text, "1 pass, before the MR"),
	   "... the metadata's text: %s", text);
	mem_free(&b);
	touch_counts(c);
	ok(c[0] == c0[0] + 1 && c[1] == c0[1] && c[2] == c0[2] && c[3] == c0[3],
	   "... freed: no more passes, stream and event destroyed, no call refused (%ld)", c[3] - c0[3]);
}

/* Pinned to CPU 0 as the measuring thread is: the touch's thread runs apart. */
static void test_touch_infinite(void)
{
	struct mem_buf b;
	unsigned char *all = malloc(128 * 1024);
	char text[300];
	long c0[4], cf[4], c[4], after;
	cpu_set_t one, was;
	bool pinned, zeros = true, rest = true;

	sched_getaffinity(0, sizeof(was), &was);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	pinned = sysconf(_SC_NPROCESSORS_ONLN) > 1 && sched_setaffinity(0, sizeof(one), &one) == 0;
	touch_counts(c0);
	is_int(alloc(&b, "cuda", 128 * 1024, (struct mem_dev){ .touch = GPU_TOUCH_INFINITE }), 0, "--gpu_touch=infinite: 128 KiB");
	memset(all, 0xff, 128 * 1024);
	is_int(b.ops->from_host(&b, 0, all, 128 * 1024), 0, "... filled with 0xff (cuMemcpyHtoD)");
	/* two passes counted after the fill: one began after it (passes before
	 * it, or one under way, leave 0xff where the read-back wants 0) */
	touch_counts(cf);
	ok(touch_wait(cf[0] + 2) >= cf[0] + 2 && cf[0] >= c0[0], "... the passes go on after the allocation (%ld)",
	   touch_wait(0) - c0[0]);
	is_int(b.ops->to_host(all, &b, 0, 128 * 1024), 0, "... read back");
	for (size_t i = 0; i < 128 * 1024; i++)
		if (i % 4096 == 0)
			zeros &= all[i] == 0;
		else
			rest &= all[i] == 0xff;
	ok(zeros && rest, "... byte 0 of each 4096 set to 0 by the touch, the other bytes left as written");
	b.ops->touch_text(&b, text, sizeof(text));
	if (pinned)
		ok(strstr(text, "infinite: ") && strstr(text, "off the measuring thread's CPU"), "... on a thread off this pinned thread's CPU: %s", text);
	else
		skip("one CPU here: the touch's thread shares it");
	mem_free(&b);
	touch_counts(c);
	after = c[0];
	usleep(50000);
	touch_counts(c);
	ok(c[0] == after && c[1] == c0[1] && c[2] == c0[2] && c[3] == c0[3],
	   "... freed: the thread joined (no pass after), stream and event destroyed, no call refused (%ld)", c[3] - c0[3]);
	sched_setaffinity(0, sizeof(was), &was);
	free(all);
}

/* The stand-in refuses the stream calls made wrong (its log: errors). */
static void test_touch_standin(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	int (*mall)(unsigned long long *, size_t) = (int (*)(unsigned long long *, size_t))dlsym(h, "cuMemAlloc_v2");
	int (*mfree)(unsigned long long) = (int (*)(unsigned long long))dlsym(h, "cuMemFree_v2");
	int (*snew)(void **, unsigned) = (int (*)(void **, unsigned))dlsym(h, "cuStreamCreate");
	int (*sdel)(void *) = (int (*)(void *))dlsym(h, "cuStreamDestroy_v2");
	int (*enew)(void **, unsigned) = (int (*)(void **, unsigned))dlsym(h, "cuEventCreate");
	int (*erec)(void *, void *) = (int (*)(void *, void *))dlsym(h, "cuEventRecord");
	int (*esync)(void *) = (int (*)(void *))dlsym(h, "cuEventSynchronize");
	int (*edel)(void *) = (int (*)(void *))dlsym(h, "cuEventDestroy_v2");
	int (*set2d)(unsigned long long, size_t, unsigned char, size_t, size_t, void *) =
		(int (*)(unsigned long long, size_t, unsigned char, size_t, size_t, void *))dlsym(h, "cuMemsetD2D8Async");
	unsigned long long p = 0;
	void *st = NULL, *ev = NULL;

	if (!mall || !snew || !set2d) {
		for (int i = 0; i < 6; i++)
			ok(0, "the stand-in's stream entry points are missing");
		return;
	}
	mall(&p, 8192);
	snew(&st, 1);
	enew(&ev, 3);
	is_int(set2d(p, 4096, 0, 1, 3, st), 1, "stand-in: rows past the allocation's end refused");
	is_int(esync(ev), 600, "stand-in: an event never recorded, synchronized: refused");
	is_int(set2d(p, 4096, 0, 1, 2, st), 0, "stand-in: two rows inside it taken");
	is_int(mfree(p), 1, "stand-in: cuMemFree with the stream's work never waited for: refused");
	is_int(sdel(st), 600, "stand-in: the stream destroyed with its work never waited for: refused");
	is_int(erec(ev, st) || esync(ev) || sdel(st) || edel(ev) || mfree(p), 0, "stand-in: recorded, waited for: then destroyed and freed");
}

static int reexec(char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return 1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(dir, sizeof(dir), "%s/../standin", self);
	*slash = '/';
	setenv("LD_LIBRARY_PATH", dir, 1);
	setenv(STAGE, tap_failed ? "failed" : "standin", 1);
	fflush(stdout);
	execv(self, argv);
	printf("not ok - cannot execute %s again: %s\n", self, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	(void)argc;
	log_set_prog("test_mem_gpu");
	err_file = tmpfile();
	if (!getenv(STAGE)) {
		printf("1..%d\n", PLAN);
		test_no_driver();
		return reexec(argv);
	}
	tap_n = 2;      /* phase 1's, whose failures STAGE carries */
	tap_failed = !strcmp(getenv(STAGE), "failed");
	test_cuda_basic();
	test_cuda_stage();
	test_cuda_choice();
	test_cuda_not_device();
	test_rocm();
	test_touch_once();
	test_touch_infinite();
	test_touch_standin();
	test_standin();
	if (tap_n != PLAN)
		printf("# planned %d checks, ran %d\n", PLAN, tap_n);
	return tap_failed || tap_n != PLAN;
}
