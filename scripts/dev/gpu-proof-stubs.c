/*
 * For scripts/dev/gpu-proof.c: the two functions of the harness that
 * mem_cuda.c and mem_gpu.c call beyond themselves and lib/log.c, without
 * the rest of it (mem.c needs libibverbs and libnuma; lib/output.c the
 * output formats).  mem_round is mem.c's, word for word.
 */
#include <errno.h>
#include <stdint.h>

#include "lib/output.h"
#include "verbs/mem.h"

int mem_round(size_t len, size_t page, size_t *out)
{
	if (len == 0 || len > SIZE_MAX - page)
		return -EINVAL;
	*out = (len + page - 1) / page * page;
	return 0;
}

void out_meta_str(struct out *o, const char *key, const char *label, const char *val)
{
	(void)o;
	(void)key;
	(void)label;
	(void)val;
}
