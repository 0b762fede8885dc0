/* The benchmarks rb_mpi can run: the tables of the bench/ files, by name. */
#ifndef RB_MPI_BENCHES_H
#define RB_MPI_BENCHES_H

#include <stdio.h>

#include "cli/bench.h"

/* "send_bw" or "rb_send_bw"; NULL when unknown. */
const struct rb_bench *mpi_bench_find(const char *name);
/* "send_bw|send_lat|..." */
void mpi_bench_list(FILE *f);

#endif
