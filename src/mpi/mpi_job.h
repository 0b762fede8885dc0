/*
 * rb_mpi: one benchmark over many hosts, one MPI rank per host (or several
 * ranks on one device).  A pattern says which links run in each step;
 * rank 0 gathers every link's rows into one CSV/JSON document.
 *
 *   mpi_main.c    options, MPI start and end
 *   mpi_steps.c   the patterns, one step's sessions, the end-of-step gather
 *   mpi_report.c  rank 0's document and the outlier list
 *   mpi_chan.c    the out-of-band channel over MPI
 */
#ifndef RB_MPI_JOB_H
#define RB_MPI_JOB_H

#include <mpi.h>
#include <stdint.h>

#include "bench.h"
#include "options.h"
#include "report.h"

#define MPI_HOST_LEN 64

enum mpi_pattern { PATTERN_PAIRS, PATTERN_RING, PATTERN_BISECTION };

/* Tags: a link's frames (two links may join the same two ranks), the
 * end-of-step rows, rank 0's go-ahead. */
enum { TAG_LINK_UP = 1, TAG_LINK_DOWN, TAG_ROWS, TAG_GO };

struct mpi_link_ends {
	int src, dst;               /* src is the client: it posts the verbs */
};

struct mpi_rows {
	uint64_t *v;                /* records of 2 + ncols values: src, dst, row */
	int n, cap;
};

struct mpi_job {
	/* immutable after parsing */
	const struct rb_bench *bench;
	struct rb_options opt;
	enum mpi_pattern pattern;
	double outlier_pct;         /* a link this far from the median is listed */
	double step_timeout_s;      /* a rank silent this long at a step's end is lost */
	char cmdline[1024];
	/* the job */
	int rank, nranks;
	char (*hosts)[MPI_HOST_LEN];
	struct report cols;         /* the benchmark's columns (report_define) */
	struct mpi_rows step_rows;  /* what this rank measured in the current step */
	struct mpi_rows all_rows;   /* rank 0: every row so far */
};

#define MPI_REC_LEN(job) (2 + (job)->cols.nall)

const char *mpi_pattern_name(enum mpi_pattern p);

/* Run every step of the pattern; 0, or -errno after logging (the caller aborts the job). */
int mpi_steps_run(struct mpi_job *job);

/* Rank 0: the document's header, rows, end; the outliers to stderr. */
int mpi_report_open(struct mpi_job *job);
void mpi_report_rows(struct mpi_job *job, const uint64_t *recs, int n);
/* error: NULL, or why the job ends (status "failed") */
void mpi_report_close(struct mpi_job *job, const char *error);
void mpi_report_outliers(const struct mpi_job *job);

int mpi_rows_add(struct mpi_rows *r, const uint64_t *rec, int len);

#endif
