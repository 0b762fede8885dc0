/* The benchmark tables by name, in bench/list.h's order: for rb_mpi,
 * rb_doctor's probe and --load (the single-benchmark programs take theirs
 * directly, src/prog/main.c). */
#include "bench/registry.h"

#include <string.h>

static const struct rb_bench *const benches[] = {
#define BENCH(name) &rb_bench_##name,
#include "bench/list.h"
#undef BENCH
};

#define N_BENCHES (sizeof(benches) / sizeof(benches[0]))

size_t bench_count(void)
{
	return N_BENCHES;
}

const struct rb_bench *bench_at(size_t i)
{
	return i < N_BENCHES ? benches[i] : NULL;
}

const struct rb_bench *bench_find(const char *name)
{
	for (size_t i = 0; i < N_BENCHES; i++)
		if (!strcmp(benches[i]->name + 3, name) || !strcmp(benches[i]->name, name))
			return benches[i];
	return NULL;
}

void bench_list(FILE *f)
{
	for (size_t i = 0; i < N_BENCHES; i++)
		fprintf(f, "%s%s", i ? "|" : "", benches[i]->name + 3);
}
