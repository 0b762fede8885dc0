/*
 * Latency under load (rb_mpi --background BENCH): one pair of ranks measures
 * a latency benchmark, first alone (idle), then while the other ranks run
 * the bandwidth benchmark BENCH in each --background-pattern.
 *
 * Start and stop: the background links run until stopped
 * (--run_infinitely, their window opening as their loop starts).  Each
 * background client tells both ranks of the pair when its loop starts (or
 * that it never will: it failed); the pair connects once every background
 * link has spoken, and when its run is over the pair's client tells every
 * background client to stop.  Every wait has a deadline (--step-timeout):
 * a dead rank stops nothing from ending.
 */
#ifndef RB_MPI_LOAD_H
#define RB_MPI_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/bench.h"
#include "cli/optrow.h"
#include "prog/mpi/mpi_job.h"

/* A usage error naming the option, and the hint, on stderr; returns -EINVAL. */
int mpi_usage_error(const char *what, const char *val, const char *hint);
/* The benchmarks of bench/list.h with METRIC, in its order, into buf (n
 * bytes): "send_bw, write_bw, read_bw" and LAST before the last name
 * (" or ", or ", "). */
void mpi_bench_names(char *buf, size_t n, enum rb_metric metric, const char *last);

/* The load options' parsers (rows of mpi_main.c, dst a struct mpi_job;
 * a missing value comes as NULL): 0, or -EINVAL after the message. */
int mpi_opt_patterns(const struct opt_row *r, const char *s, void *dst);     /* --background-pattern */
int mpi_opt_background_size(const struct opt_row *r, const char *v, void *dst);
int mpi_opt_background(const struct opt_row *r, const char *v, void *dst);
int mpi_opt_pair(const struct opt_row *r, const char *s, void *dst);         /* --latency-pair */
int mpi_opt_incast_dst(const struct opt_row *r, const char *v, void *dst);
/* After the benchmark's options: the combinations, the background's
 * options.  0 or -EINVAL (a usage error was printed). */
int mpi_load_check(struct mpi_job *job, bool sequential);

/* A background client to the pair: its loop runs (or never will). */
void mpi_load_announce(const struct mpi_job *job, int round, bool running);
/* A rank of the pair: wait for nbg background links' word; how many run. */
int mpi_load_await(const struct mpi_job *job, int round, int nbg);
/* The pair's client, its run over: stop the round's background clients. */
void mpi_load_stop(const struct mpi_job *job, int round, const struct sched_link *l, int nl);
/* A background client's rank: wait for n stops (at most --step-timeout), then halt. */
void mpi_load_stop_wait(const struct mpi_job *job, int round, int n, volatile int *halt);

#endif
