/*
 * gpu-proof: rdmabench's CUDA memory kind (src/verbs/mem_cuda.c, and
 * mem_gpu.c's host copy) against whatever libcuda.so.1 the dlopen finds:
 * the real driver on a machine with a GPU, or tests/standin's for a try
 * here.  No RDMA device is used (none is where the GPUs are lent): what it
 * proves is the memory's side of --use_cuda and --use_cuda_dmabuf --
 * allocation on the GPU asked for, the driver's word that it is device
 * memory, the dma-buf export, copies both ways at several offsets and
 * sizes compared byte for byte, the host copy --validate works on, the
 * copy rates (--bounce's cost per byte on this machine), the refusals,
 * --gpu_touch's passes (cuMemsetD2D8Async on a stream: once, and infinite
 * on its thread, the bytes it set, its rate and CPU cost, stopped at the
 * free), and everything freed.  Built and run by scripts/dev/gpu-proof.sh; prints TAP
 * and "# " notes; exit 0 when every check held.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/options.h"
#include "lib/log.h"
#include "verbs/mem.h"

extern const struct mem_ops mem_cuda;
static int n, failed;

static void check(int cond, const char *fmt, const char *what, long long v)
{
	printf("%sok %d - ", cond ? "" : "not ", ++n);
	printf(fmt, what, v);
	printf("\n");
	failed += !cond;
}

/* What mem.c's mem_alloc_dev does around the kind (mem.c is not linked:
 * it needs libibverbs and libnuma, which a GPU machine may lack). */
static int alloc(struct mem_buf *b, size_t len, struct mem_dev d)
{
	int err;

	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
	b->node = -1;
	b->dev = d;
	err = mem_cuda.alloc(b, len, -1);
	if (err) {
		memset(b, 0, sizeof(*b));
		b->dmabuf_fd = -1;
		return err;
	}
	b->ops = &mem_cuda;
	if (d.stage)
		err = mem_stage_open(b);
	return err;
}

static void release(struct mem_buf *b)
{
	mem_stage_close(b);
	if (b->ops)
		b->ops->free(b);
	memset(b, 0, sizeof(*b));
}

/* A pattern that differs per offset and per round. */
static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) ^ (i >> 16));
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Patterns in at several offsets and back, compared. */
static void roundtrip(struct mem_buf *b, size_t size)
{
	size_t offs[] = { 0, 1, 4095, b->len / 2 + 3, b->len - size };
	uint8_t *in = malloc(size), *out = malloc(size);
	int bad = 0;

	for (unsigned k = 0; k < sizeof(offs) / sizeof(offs[0]) && in && out; k++) {
		if (offs[k] + size > b->len)
			continue;
		fill(in, size, k + 1);
		memset(out, 0, size);
		bad += b->ops->from_host(b, offs[k], in, size) != 0;
		bad += b->ops->to_host(out, b, offs[k], size) != 0;
		bad += memcmp(in, out, size) != 0;
	}
	check(in && out && bad == 0, "%s: patterns of %lld bytes in and out at 5 offsets, the same bytes",
	      "copies", (long long)size);
	free(in);
	free(out);
}

static void rates(struct mem_buf *b)
{
	uint8_t *h = malloc(b->len);
	double t0, t1, t2;
	int err = 0;

	if (!h)
		return;
	memset(h, 0x3c, b->len);
	t0 = now();
	for (int i = 0; i < 8; i++)
		err |= b->ops->from_host(b, 0, h, b->len);
	t1 = now();
	for (int i = 0; i < 8; i++)
		err |= b->ops->to_host(h, b, 0, b->len);
	t2 = now();
	printf("# copy rates, %zu MiB x 8 (pageable host memory, as --bounce and --validate copy): "
	       "host to device %.2f GB/s, device to host %.2f GB/s\n", b->len >> 20,
	       8.0 * b->len / (t1 - t0) / 1e9, 8.0 * b->len / (t2 - t1) / 1e9);
	check(!err, "%s: 8 x %lld MiB each way", "copy rates", (long long)(b->len >> 20));
	free(h);
}

/* Which libcuda the dlopen found (the process's maps). */
static void say_library(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "libcuda.so")) {
			printf("# library: %s", strchr(line, '/') ? strchr(line, '/') : line);
			break;
		}
	if (f)
		fclose(f);
}

static void test_plain(int gpu)
{
	struct mem_buf b;
	const char *name = NULL, *bus = NULL;
	int err = alloc(&b, 64u << 20, (struct mem_dev){ .id = gpu });

	check(err == 0, "%s %lld: 64 MiB of device memory (cuMemAlloc, confirmed by cuPointerGetAttribute)",
	      "GPU", gpu);
	if (err)
		return;
	b.ops->device(&b, &name, &bus);
	printf("# GPU %d: %s, bus id %s, device address %p\n", gpu, name, bus, b.addr);
	say_library();
	check(b.addr && !b.cpu && b.dmabuf_fd == -1, "%s: a device address, none for the CPU%.0lld", "kind cuda", 0);
	roundtrip(&b, 1);
	roundtrip(&b, 4096);
	roundtrip(&b, 1u << 20);
	rates(&b);
	release(&b);
}

static void test_stage(int gpu)
{
	struct mem_buf b;
	uint8_t *v;
	int err = alloc(&b, 1u << 20, (struct mem_dev){ .id = gpu, .stage = true });

	check(err == 0 && b.view == b.stage && b.stage, "%s: 1 MiB with its host copy (--validate's view)%.0lld",
	      "stage", 0);
	if (err)
		return;
	v = b.view;
	fill(v, b.len, 9);
	err = mem_push(&b, 0, b.len);
	memset(v, 0, b.len);
	err |= mem_pull(&b, 12345, 4096);
	check(!err && v[12345] == (uint8_t)((12345u * 131u + 63u + (12345u >> 8)) ^ 0) && v[0] == 0,
	      "%s: pushed whole, a 4 KiB range pulled back where it was, nothing else%.0lld", "stage", 0);
	release(&b);
}

static void test_dmabuf(int gpu)
{
	struct mem_buf b;
	char path[64], link[128] = "";
	ssize_t k;
	off_t size;
	int err = alloc(&b, 2u << 20, (struct mem_dev){ .id = gpu, .dmabuf = true });

	check(err == 0 && b.dmabuf_fd >= 0, "%s: 2 MiB exported as a dma-buf (cuMemGetHandleForAddressRange), fd %lld",
	      "dma-buf", err ? -1 : b.dmabuf_fd);
	if (err)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", b.dmabuf_fd);
	k = readlink(path, link, sizeof(link) - 1);
	link[k > 0 ? k : 0] = '\0';
	size = lseek(b.dmabuf_fd, 0, SEEK_END);
	printf("# dma-buf fd %d: %s, %lld bytes, offset %llu\n", b.dmabuf_fd, link, (long long)size,
	       (unsigned long long)b.dmabuf_offset);
	check(size >= (off_t)b.len, "%s: the fd spans the buffer (%lld bytes)", "dma-buf", (long long)size);
	roundtrip(&b, 65536);
	release(&b);
}

/* The passes that --gpu_touch's text says were done so far. */
static unsigned long touch_passes(const struct mem_buf *b)
{
	char text[300];
	const char *p;
	unsigned long k = 0;

	b->ops->touch_text(b, text, sizeof(text));
	p = strrchr(text, ';');
	if (p)
		sscanf(p + 1, " %lu pass", &k);
	return k;
}

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

/* --gpu_touch: once (a pass in the allocation), infinite (passes on a
 * thread until the free), the bytes set: byte 0 of every 4096 only. */
static void test_touch(int gpu)
{
	size_t len = 64u << 20, bad = 0;
	struct mem_buf b;
	uint8_t *h = malloc(len);
	double t0, c0, t1, c1;
	unsigned long p0, p1;
	int err = alloc(&b, len, (struct mem_dev){ .id = gpu, .touch = GPU_TOUCH_ONCE });

	check(err == 0 && touch_passes(&b) == 1, "%s: --gpu_touch=once, 64 MiB: %lld pass in the allocation",
	      "touch", err ? -1 : (long long)touch_passes(&b));
	if (!err)
		release(&b);
	err = alloc(&b, len, (struct mem_dev){ .id = gpu, .touch = GPU_TOUCH_INFINITE });
	check(err == 0 && h, "%s: --gpu_touch=infinite, 64 MiB: its thread started%.0lld", "touch", 0);
	if (err || !h) {
		free(h);
		return;
	}
	memset(h, 0xa5, len);
	err = b.ops->from_host(&b, 0, h, len);
	p0 = touch_passes(&b);
	t0 = now();
	c0 = cpu_s();
	usleep(500000);
	t1 = now();
	c1 = cpu_s();
	p1 = touch_passes(&b);
	printf("# infinite: %lu passes over %zu pages in %.3f s (%.1f us a pass); the process's CPU time %.3f s "
	       "in that wall time (the touch's thread: the main one sleeps)\n", p1 - p0, len / 4096, t1 - t0,
	       p1 > p0 ? (t1 - t0) * 1e6 / (double)(p1 - p0) : 0.0, c1 - c0);
	check(!err && p1 >= p0 + 2, "%s: the passes went on after the allocation (%lld in 0.5 s)", "touch",
	      (long long)(p1 - p0));
	err = b.ops->to_host(h, &b, 0, len);
	for (size_t i = 0; i < len; i++)
		bad += h[i] != (i % 4096 ? 0xa5 : 0);
	check(!err && !bad, "%s: byte 0 of every 4096 set to 0, the rest as written (%lld bytes otherwise)", "touch",
	      (long long)bad);
	t0 = now();
	release(&b);
	t1 = now() - t0;
	printf("# infinite: the free (the thread stopped and joined, then the stream, event, memory) took %.3f ms\n", t1 * 1e3);
	check(t1 < 10, "%s: freed, its thread stopped first%.0lld", "touch", 0);
	free(h);
}

static void test_refusals(void)
{
	struct mem_buf b;

	check(alloc(&b, 4096, (struct mem_dev){ .id = 999 }) == -ENODEV, "%s: GPU 999 refused (-ENODEV)%.0lld",
	      "refusal", 0);
	check(alloc(&b, 4096, (struct mem_dev){ .bus_id = "0000:ff:1f.7" }) == -ENODEV,
	      "%s: bus id 0000:ff:1f.7 refused (-ENODEV)%.0lld", "refusal", 0);
}

int main(int argc, char **argv)
{
	int gpu = argc > 1 ? atoi(argv[1]) : 0;

	log_set_prog("gpu-proof");
	test_plain(gpu);
	test_stage(gpu);
	test_dmabuf(gpu);
	test_touch(gpu);
	test_refusals();
	printf("1..%d\n", n);
	return failed != 0;
}
