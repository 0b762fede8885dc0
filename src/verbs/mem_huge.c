/*
 * Memory kind "hugepages" (--use-hugepages): anonymous MAP_HUGETLB pages
 * of the default huge page size, from the pool reserved in
 * /proc/sys/vm/nr_hugepages (mem.h).
 */
#include "verbs/mem.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>

#include "lib/log.h"

static long nr_hugepages(void)
{
	long v = -1;
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "re");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Enough of the pool free for len bytes?  HugePages_Free is a count (its
 * line has no unit: mem_meminfo_bytes reads it as kB).  -ENOMEM after a
 * message naming vm.nr_hugepages. */
static int huge_free_check(size_t len, size_t page)
{
	size_t free_ = mem_meminfo_bytes("HugePages_Free") / 1024;

	if (len <= free_ * page)
		return 0;
	log_err("--use-hugepages: %zu huge pages of %zu KiB needed, %zu free of the %ld reserved "
		"(vm.nr_hugepages): reserve more, e.g. `sysctl vm.nr_hugepages=%zu`",
		len / page, page >> 10, free_, nr_hugepages(), (size_t)nr_hugepages() + len / page - free_);
	return -ENOMEM;
}

static int huge_alloc(struct mem_buf *b, size_t len, int node)
{
	size_t page = mem_meminfo_bytes("Hugepagesize");
	int err;

	if (page == 0)
		page = 2UL << 20;
	err = mem_round(len, page, &b->len);
	if (err)
		return err;
	if (nr_hugepages() == 0) {
		log_err("--use-hugepages: no huge pages reserved (/proc/sys/vm/nr_hugepages is 0); "
			"reserve some, e.g. `echo 512 > /proc/sys/vm/nr_hugepages`");
		return -ENOMEM;
	}
	err = huge_free_check(b->len, page);
	if (err)
		return err;
	b->page = page;
	return mem_map_anon(b, MAP_HUGETLB, node, " of huge pages (see /proc/sys/vm/nr_hugepages)");
}

const struct mem_ops mem_huge = {
	.name = "hugepages",
	.cpu_access = true,
	.alloc = huge_alloc,
	.free = mem_unmap,
};
