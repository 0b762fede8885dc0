/*
 * rb_mpi: one benchmark over many hosts, one MPI rank per host (or several
 * ranks on one device).  A schedule says which links run in each round;
 * rank 0 writes every link's rows into one CSV/JSON document as the rounds
 * end.  Each file uses only those below it:
 *
 *   mpi_main.c      options, MPI start and end, --plan
 *   mpi_topo.c      --topology: each rank's switch (group)
 *   mpi_steps.c     one round's sessions, the end-of-round gather
 *   mpi_load.c      latency under load: its options, the background's start and stop
 *   mpi_check.c     --check (rb_mesh check): every rail, a verdict per link
 *   mpi_checkdoc.c  --check's thresholds and document (rank 0)
 *   mpi_verdict.c   a link's verdict (pure logic)
 *   mpi_report.c    rank 0's document and the outlier list
 *   mpi_plan.c      --plan: the schedule's figures, no traffic
 *   mpi_schedule.c  the rounds (pure logic)
 *   mpi_rows.c      a link's record (pure logic)
 *   mpi_chan.c      the out-of-band channel over MPI
 */
#ifndef RB_MPI_JOB_H
#define RB_MPI_JOB_H

#include <mpi.h>
#include <stdint.h>

#include "cli/bench.h"
#include "prog/mpi/mpi_check.h"
#include "prog/mpi/mpi_rows.h"
#include "prog/mpi/mpi_schedule.h"
#include "cli/options.h"
#include "report/report.h"

#define MPI_HOST_LEN 64

/* Tags: a link's frames (two links may join the same two ranks), the
 * end-of-round rows, rank 0's go-ahead; under load, round r's "background
 * running" and "stop" messages (TAG_LOAD + 2r, + 2r + 1: a late one from an
 * earlier round is never taken for this round's). */
enum { TAG_LINK_UP = 1, TAG_LINK_DOWN, TAG_ROWS, TAG_GO, TAG_LOAD = 16 };

/* --background: latency under load (mpi_load.c) */
struct mpi_load {
	const struct rb_bench *bench;   /* NULL: no load */
	struct rb_options opt;          /* the background links' options */
	uint64_t size;                  /* --background-size */
	enum sched_kind patterns[SCHED_MAX_LOADS];
	int npatterns;
	int src, dst;                   /* --latency-pair (default 0:1) */
	bool pair_given;
	struct report cols;             /* the background benchmark's columns */
	int bw_col;                     /* bw_avg_mibps in cols.all */
};

struct mpi_job {
	/* immutable after parsing */
	const struct rb_bench *bench;
	struct rb_options opt;
	enum sched_kind pattern;    /* pairs: SCHED_ROUNDS, or SCHED_SEQUENTIAL (--sequential) */
	double outlier_pct;         /* a link this far from the median is listed */
	double step_timeout_s;      /* a rank silent this long at a round's end is lost */
	double link_time_s;         /* --plan: one link's time (--link-time), 0: from -D, else 2 s */
	const char *topology;       /* --topology FILE, or NULL */
	int plan_n;                 /* --plan[=N]: N, 0 for the job's size; -1: no plan */
	int incast_dst;             /* --incast-dst, -1: not given */
	const char *bench_arg;      /* --bench NAME as given (NULL: given without NAME) */
	bool bench_given;           /* --bench was on the command line */
	bool sequential;            /* --sequential, until the pattern is set */
	struct mpi_load load;
	struct mpi_check_opt chk;   /* --check (mpi_check.c) */
	char cmdline[1024];
	/* the job */
	int rank, nranks;
	char (*hosts)[MPI_HOST_LEN];
	int *group;                 /* --topology: each rank's switch, else NULL */
	char (*group_names)[MPI_HOST_LEN];
	struct sched sched;
	struct report cols;         /* the benchmark's columns (report_define) */
	struct mpi_rows step_rows;  /* what this rank measured in the current round */
	/* rank 0: where the links' records go (the report's rows, or --check's table) */
	void (*take_rows)(struct mpi_job *job, const uint64_t *recs, int n);
};

#define MPI_REC_LEN(job) (REC_COLS + (job)->cols.nall)

#endif
