/*
 * --topology FILE: each host's switch (or rack), one "HOST SWITCH" a line
 * ('#' starts a comment; a host's domain is ignored).  The schedule runs
 * the links inside each switch first, then those across switches; rows
 * name both ends' switches.
 */
#ifndef RB_MPI_TOPO_H
#define RB_MPI_TOPO_H

#include "mpi_job.h"

/* Rank 0 reads the file and gives every rank the job's groups: 0, or
 * -EINVAL on every rank (rank 0 said why). */
int mpi_topo_load(struct mpi_job *job);
/* Without MPI (--plan=N): rank i is the file's i-th host.  0 or -EINVAL. */
int mpi_topo_plan(struct mpi_job *job, int n);
void mpi_topo_free(struct mpi_job *job);

#endif
