/*
 * rb_mpi --check, rank 0's side: the thresholds (the file, then the
 * options given) and the document, one row of CHECKDOC_COLS per link and
 * rail (mpi_check.c fills them).
 */
#ifndef RB_MPI_CHECKDOC_H
#define RB_MPI_CHECKDOC_H

#include "lib/output.h"
#include "prog/mpi/mpi_check.h"

#define CHECKDOC_COLS 14

int checkdoc_thresholds(const struct mpi_check_opt *c, struct check_thr *t);
/* The document on stdout or --csv/--json's file, its metadata with the
 * thresholds and odd (the rails' odd ends, said). 0 or -errno. */
int checkdoc_open(const struct mpi_job *job, const struct check_thr *t, int nrails, const char *odd);
void checkdoc_row(const union out_val *v);
/* error: NULL, or why the check ends (status "failed") */
void checkdoc_close(const char *error);

#endif
