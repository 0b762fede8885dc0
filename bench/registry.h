/*
 * bench/: the benchmarks, each a table of operations (src/cli/bench.h).
 *   list.h       the one list of benchmarks (BENCH(NAME) lines)
 *   NAME.c       one benchmark: defines rb_bench_NAME
 *   registry.c   the tables by name, in the list's order (this header)
 *   gen-list.sh  list.h -> list.am, the build's programs and sources
 * The files here may include src/ up to report/; driver/ and prog/ include
 * this header.
 */
#ifndef RB_BENCH_REGISTRY_H
#define RB_BENCH_REGISTRY_H

#include <stddef.h>
#include <stdio.h>

#include "cli/bench.h"

#define BENCH(name) extern const struct rb_bench rb_bench_##name;
#include "bench/list.h"
#undef BENCH

/* How many benchmarks bench/list.h lists; the Ith (NULL past the end). */
size_t bench_count(void);
const struct rb_bench *bench_at(size_t i);
/* By "send_bw" or "rb_send_bw"; NULL when unknown. */
const struct rb_bench *bench_find(const char *name);
/* Writes "send_bw|send_lat|..." (the list's order) to f. */
void bench_list(FILE *f);

#endif
