/*
 * rb_mpi runs the same benchmark tables as the single-pair programs.  Each
 * bench/ file defines its table as RB_BENCH_NAME (rb_bench in the
 * single-pair programs); here each is compiled once more under its own
 * name, so the tables (and the loops they name) are written once.
 */
#include "driver/benches.h"

#include <string.h>

#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_send_bw
#include "../../bench/send_bw.c"
#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_send_lat
#include "../../bench/send_lat.c"
#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_write_bw
#include "../../bench/write_bw.c"
#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_write_lat
#include "../../bench/write_lat.c"
#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_read_bw
#include "../../bench/read_bw.c"
#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_read_lat
#include "../../bench/read_lat.c"
#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_atomic_bw
#include "../../bench/atomic_bw.c"
#undef RB_BENCH_NAME
#define RB_BENCH_NAME rb_bench_atomic_lat
#include "../../bench/atomic_lat.c"
#undef RB_BENCH_NAME

static const struct rb_bench *const benches[] = {
	&rb_bench_send_bw, &rb_bench_send_lat, &rb_bench_write_bw, &rb_bench_write_lat,
	&rb_bench_read_bw, &rb_bench_read_lat, &rb_bench_atomic_bw, &rb_bench_atomic_lat,
};

#define N_BENCHES (sizeof(benches) / sizeof(benches[0]))

const struct rb_bench *mpi_bench_find(const char *name)
{
	for (size_t i = 0; i < N_BENCHES; i++)
		if (!strcmp(benches[i]->name + 3, name) || !strcmp(benches[i]->name, name))
			return benches[i];
	return NULL;
}

void mpi_bench_list(FILE *f)
{
	for (size_t i = 0; i < N_BENCHES; i++)
		fprintf(f, "%s%s", i ? "|" : "", benches[i]->name + 3);
}
