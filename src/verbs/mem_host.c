/* Memory kind "host": ordinary anonymous pages, the default (mem.h). */
#include "verbs/mem.h"

#include <unistd.h>

static int host_alloc(struct mem_buf *b, size_t len, int node)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err = mem_round(len, page, &b->len);

	if (!err)
		err = mem_fits(b->len, mem_meminfo_bytes("MemAvailable"), "of memory (MemAvailable)");
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
};
