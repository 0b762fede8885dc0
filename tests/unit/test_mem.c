/*
 * The memory kinds (src/verbs/mem.h) without a device: the table and the
 * options' choice, a host buffer (rounded to its page, the kernel's page
 * size read back, zeroed, the CPU's address the device's), the errors that
 * leave the buffer empty, and huge pages: refused naming --use-hugepages
 * when none are reserved, else backed by pages of Hugepagesize.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cli/options.h"
#include "lib/log.h"
#include "verbs/mem.h"
#include "tap.h"

#define PLAN 29

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void test_table(void)
{
	struct rb_options o;

	memset(&o, 0, sizeof(o));
	ok(mem_kind_by_name("host") && strcmp(mem_kind_by_name("host")->name, "host") == 0,
	   "the table has \"host\"");
	ok(mem_kind_by_name("hugepages") && mem_kind_by_name("hugepages")->cpu_access,
	   "the table has \"hugepages\", which the CPU may touch");
	ok(mem_kind_by_name("gpu") == NULL, "no kind \"gpu\" (yet): NULL");
	ok(mem_kind_for(&o) == mem_kind_by_name("host"), "by default: host");
	o.hugepages = true;
	ok(mem_kind_for(&o) == mem_kind_by_name("hugepages"), "--use-hugepages: hugepages");
}

static void test_host(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct mem_buf b;
	int err = mem_alloc(&b, mem_kind_by_name("host"), 3 * page + 1, -1);

	is_int(err, 0, "host: 3 pages + 1 byte allocated");
	is_int(b.len, 4 * page, "...rounded up to 4 pages");
	is_int(b.page, page, "...page size (the kernel's, from smaps) the system's");
	ok(b.cpu == b.addr && mem_cpu_ok(&b), "...the CPU's address is the device's");
	ok(all_zero(b.cpu, b.len), "...zeroed");
	is_str(mem_kind_name(&b), "host", "...kind \"host\"");
	ok(b.dmabuf_fd == -1 && b.node >= -1, "...no dma-buf; node %d", b.node);
	mem_free(&b);
	ok(!b.addr && !b.cpu && !b.ops && !mem_cpu_ok(&b), "freed: empty");
	is_str(mem_kind_name(&b), "none", "freed: kind \"none\"");
	mem_free(&b);
	is_int(mem_alloc(&b, mem_kind_by_name("host"), 0, -1), -EINVAL, "0 bytes: -EINVAL");
	ok(!b.addr && !b.ops, "...and the buffer stays empty");
}

/* The refusal with none free: -ENOMEM and a message naming the option. */
static void huge_none(void)
{
	struct mem_buf b;
	int err;

	log_clear_error();
	err = mem_alloc(&b, mem_kind_by_name("hugepages"), 1, -1);
	ok(err == -ENOMEM && !b.addr, "hugepages, none free: -ENOMEM, nothing mapped");
	ok(log_first_error() && strstr(log_first_error(), "--use-hugepages") &&
	   strstr(log_first_error(), "nr_hugepages"),
	   "...the message names --use-hugepages and nr_hugepages (none reserved, or none free): %s",
	   log_first_error() ? log_first_error() : "(none)");
}

/* A buffer of one huge page, where one is free. */
static void huge_one(size_t huge)
{
	struct mem_buf b;

	is_int(mem_alloc(&b, mem_kind_by_name("hugepages"), 1, -1), 0, "hugepages: 1 byte allocated");
	is_int(b.len, huge, "...rounded up to one huge page");
	is_int(b.page, huge, "...backed by pages of Hugepagesize (smaps)");
	mem_free(&b);
}

/* vm.nr_hugepages: its value, or -1 where it cannot be read. */
static long nr_huge(void)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static bool nr_huge_set(long n)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");
	bool done = f && fprintf(f, "%ld\n", n) > 0;

	return f && !fclose(f) && done;
}

/*
 * Both paths where this host allows: with none free, the refusal, then (as
 * root) one page reserved for the test and the pool put back.  A host with
 * pages already free runs the buffer and skips the refusal; one with none
 * and no right to reserve skips the buffer (feature/memory.sh runs both in
 * the test bed).
 */
static void test_huge_locked(void)
{
	size_t huge = mem_meminfo_bytes("Hugepagesize");
	long old = nr_huge();

	if (mem_meminfo_bytes("HugePages_Free") / 1024 > 0) {
		skip("the refusal with none free: huge pages are free here");
		skip("the refusal's message: huge pages are free here");
		huge_one(huge);
		return;
	}
	huge_none();
	if (huge && old >= 0 && nr_huge_set(old + 1) &&
	    mem_meminfo_bytes("HugePages_Free") / 1024 > 0) {
		huge_one(huge);
		nr_huge_set(old);
		return;
	}
	if (old >= 0 && nr_huge() != old)
		nr_huge_set(old);
	skip("hugepages: none free and none could be reserved (not root?)");
	skip("...rounded up");
	skip("...page size");
}

/* One test_mem at a time changes the pool (CI runs several builds' unit
 * tests at once). */
static void test_huge(void)
{
	int fd = open("/tmp/rdmabench-test-mem.lock", O_RDWR | O_CREAT, 0666);

	if (fd >= 0)
		flock(fd, LOCK_EX);
	test_huge_locked();
	if (fd >= 0)
		close(fd);
}

/* --odp's page drop: a host buffer is all in memory once allocated (the
 * zeroing touched it), none of it after mem_drop_pages, one page after one
 * store; it still reads zeros. */
static void test_drop(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct mem_buf b;

	if (mem_alloc(&b, mem_kind_by_name("host"), 8 * page, -1)) {
		ok(0, "host: 8 pages allocated");
		for (int i = 0; i < 4; i++)
			skip("no buffer");
		return;
	}
	is_int(mem_resident_bytes(&b), 8 * page, "resident: all 8 pages once allocated");
	is_int(mem_drop_pages(&b), 0, "mem_drop_pages: 0");
	is_int(mem_resident_bytes(&b), 0, "...then none resident");
	((volatile unsigned char *)b.cpu)[3 * page] = 7;
	is_int(mem_resident_bytes(&b), page, "...one page after one store");
	ok(all_zero(b.cpu, 3 * page) && ((unsigned char *)b.cpu)[3 * page] == 7,
	   "...the rest reads zeros");
	mem_free(&b);
}

/* udmabuf: where /dev/udmabuf opens, a dma-buf fd and a CPU mapping of
 * zeros; elsewhere -errno with a message naming it and CONFIG_UDMABUF. */
static void test_udmabuf(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct mem_buf b;
	int err;

	ok(mem_kind_by_name("udmabuf") && mem_kind_by_name("udmabuf")->cpu_access,
	   "the table has \"udmabuf\", which the CPU may touch");
	log_clear_error();
	err = mem_alloc(&b, mem_kind_by_name("udmabuf"), 2 * page + 5, -1);
	if (err) {
		ok(err < 0 && !b.addr && b.dmabuf_fd == -1, "udmabuf here: %d (%s), nothing left", err, strerror(-err));
		ok(log_first_error() && strstr(log_first_error(), "/dev/udmabuf"),
		   "...the message names /dev/udmabuf: %s", log_first_error() ? log_first_error() : "(none)");
		return;
	}
	ok(b.dmabuf_fd >= 0 && b.len == 3 * page && b.cpu == b.addr,
	   "udmabuf: a dma-buf fd (%d), 3 pages, the CPU's address the device's", b.dmabuf_fd);
	ok(all_zero(b.cpu, b.len), "...zeroed; kind %s", mem_kind_name(&b));
	mem_free(&b);
}

int main(void)
{
	printf("1..%d\n", PLAN);
	log_set_prog("test_mem");
	test_table();
	test_host();
	test_huge();
	test_drop();
	test_udmabuf();
	if (tap_n != PLAN)
		printf("# planned %d checks, ran %d\n", PLAN, tap_n);
	return tap_failed || tap_n != PLAN;
}
