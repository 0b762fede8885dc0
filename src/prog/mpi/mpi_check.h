/*
 * rb_mpi --check (what rb_mesh check runs): every rail, i.e. each rank's
 * k-th RDMA device (sorted by name, or --rails LIST), checked link by link
 * between every ordered pair of ranks: the two ends' configuration (port
 * ACTIVE, active MTU, GID type, link layer), then write_lat and write_bw
 * over rb_mpi's pairs schedule, rail after rail.  Rank 0 writes one row per
 * link and rail with a verdict against the thresholds (mpi_verdict.h),
 * names every failing link on stderr, and the job exits 1 when one fails.
 */
#ifndef RB_MPI_CHECK_H
#define RB_MPI_CHECK_H

#include <stdbool.h>

#include "cli/options.h"
#include "prog/mpi/mpi_verdict.h"

#define CHECK_LAT_BENCH "write_lat"
#define CHECK_BW_BENCH "write_bw"
#define CHECK_MAX_RAILS 64

/* --check's options (rb_mpi's rows; rb_mesh check spells them --min-bw ...). */
struct mpi_check_opt {
	bool on;                    /* --check */
	const char *rails;          /* --rails DEV[,DEV...]; NULL: every device */
	double min_bw_bps;          /* --check-min-bw RATE */
	double max_p99_us;          /* --check-max-p99 US */
	double mtu;                 /* --check-mtu BYTES, 0: the ends alike */
	const char *gid_type;       /* --check-gid-type v1|v2|IB */
	const char *thr_file;       /* --check-thresholds FILE (rank 0 reads it) */
	struct rb_options lat_opt;  /* write_lat's options (job->opt: write_bw's) */
	int failed;                 /* after the run: failing links, on every rank */
};

struct mpi_job;

/* job_parse's part: the rows' values checked, the latency benchmark's
 * options parsed from the same words.  0 or -EINVAL (said). */
int mpi_check_parse(struct mpi_job *job, int nrest, char **rest);
/* The check on every rank (hosts known); 0, with job->chk.failed set, or
 * -errno when the job itself failed. */
int mpi_check_run(struct mpi_job *job);
/* job->take_rows in a check: every link record, into the rail's table. */
void mpi_check_take(struct mpi_job *job, const uint64_t *recs, int n);

#endif
