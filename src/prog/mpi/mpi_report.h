/* Rank 0's document: a row per link and size, written as the rounds end;
 * the outliers to stderr. */
#ifndef RB_MPI_REPORT_H
#define RB_MPI_REPORT_H

#include "prog/mpi/mpi_job.h"

/* A results document on stdout or --csv/--json's FILE (its sidecar with
 * CSV), and its end with the status; shared with --check's. */
int mpi_doc_open(const struct rb_options *o, FILE **file, struct out **out);
void mpi_doc_end(struct out **out, FILE *file, const char *error);
/* The index of the benchmark column key in job->cols.all, or -1. */
int mpi_report_col(const struct mpi_job *job, const char *key);

int mpi_report_open(struct mpi_job *job);
void mpi_report_rows(struct mpi_job *job, const uint64_t *recs, int n);
/* Round r's links whose client did not report (got[src] false; got NULL:
 * none did), and every link of the rounds after it: rows "unmeasured",
 * to job->take_rows. */
void mpi_report_unmeasured(struct mpi_job *job, int r, const bool *got);
/* error: NULL, or why the job ends (status "failed") */
void mpi_report_close(struct mpi_job *job, const char *error);
void mpi_report_outliers(const struct mpi_job *job);

#endif
