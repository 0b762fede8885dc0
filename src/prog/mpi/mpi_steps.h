/* Every round of the job's schedule: this rank's links, then the rows to rank 0. */
#ifndef RB_MPI_STEPS_H
#define RB_MPI_STEPS_H

#include "prog/mpi/mpi_job.h"

/* 0, or -errno after logging (the caller aborts the job).  A failed link
 * is a row, not an error; a lost rank is. */
int mpi_steps_run(struct mpi_job *job);

#endif
