/*
 * --topology FILE: each host's switch (or rack), one "HOST SWITCH" a line
 * ('#' starts a comment; a host's domain is ignored).  --topology=slurm:
 * the leaf switches (Level=0) of `scontrol show topology` instead (Slurm's
 * topology/tree plugin), their hostlists expanded by `scontrol show
 * hostnames`; a file named "slurm" is given as ./slurm.  The schedule runs
 * the links inside each switch first, then those across switches; rows
 * name both ends' switches.
 */
#ifndef RB_MPI_TOPO_H
#define RB_MPI_TOPO_H

#include "prog/mpi/mpi_job.h"

/* Rank 0 reads the file (or asks Slurm) and gives every rank the job's groups: 0, or
 * -EINVAL on every rank (rank 0 said why). */
int mpi_topo_load(struct mpi_job *job);
/* Without MPI (--plan=N): rank i is the file's (or Slurm's) i-th host.  0 or -EINVAL. */
int mpi_topo_plan(struct mpi_job *job, int n);
void mpi_topo_free(struct mpi_job *job);

#endif
