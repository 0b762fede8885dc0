/* Memory kind "host": ordinary anonymous pages, the default (mem.h). */
#include "verbs/mem.h"

#include <unistd.h>

static size_t host_page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static int host_fits(size_t len, size_t n)
{
	size_t rounded;
	int err = mem_round(len, host_page(), &rounded);

	return err ? err : mem_fits_many(rounded, n, mem_meminfo_bytes("MemAvailable"),
					 "of memory (MemAvailable)");
}

static int host_alloc(struct mem_buf *b, size_t len, int node)
{
	size_t page = host_page();
	int err = mem_round(len, page, &b->len);

	if (!err)
		err = host_fits(b->len, 1);
	if (err)
		return err;
	b->page = page;
	return mem_map_anon(b, 0, node, "");
}

const struct mem_ops mem_host = {
	.name = "host",
	.cpu_access = true,
	.alloc = host_alloc,
	.free = mem_unmap,
	.fits = host_fits,
};
