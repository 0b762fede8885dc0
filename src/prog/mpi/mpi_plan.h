/* --plan: the schedule's figures for N ranks, no traffic, no device. */
#ifndef RB_MPI_PLAN_H
#define RB_MPI_PLAN_H

#include "prog/mpi/mpi_job.h"

#define PLAN_MAX_RANKS 16384
#define PLAN_DEFAULT_LINK_S 2.0     /* a link's time when neither --link-time nor -D says */
#define PLAN_SETUP_S 1.0            /* -D: a link's setup and teardown, added */

/* The job's schedule for n ranks (the pattern, incast's destination, the
 * load): 0, or -errno with a message naming the option when speak. */
int mpi_plan_sched(const struct mpi_job *job, int n, struct sched *s, bool speak);
/* Metadata of incast and load schedules (plan and results alike). */
void mpi_plan_meta_extra(struct out *out, const struct mpi_job *job, const struct sched *s);
/* The plan on stdout in the job's format (--csv/--json/human); 0 or -errno. */
int mpi_plan_print(struct mpi_job *job, int n);

#endif
