/*
 * A link's record, as it travels to rank 0: src, dst, round, status, under
 * load the background's bandwidth (a background link's row, MiB/s, a
 * double's bits) and how many background links ran (the latency pair's
 * row), the cause of a failure (text, MPI_CAUSE_WORDS words), then the
 * benchmark's columns (report.h, all of them).  A growable array of them.
 */
#ifndef RB_MPI_ROWS_H
#define RB_MPI_ROWS_H

#include <stdint.h>

enum { REC_SRC, REC_DST, REC_ROUND, REC_STATUS, REC_LOAD_BW, REC_LOAD_UP, REC_CAUSE };
#define MPI_CAUSE_WORDS 16          /* 128 characters */
#define REC_COLS (REC_CAUSE + MPI_CAUSE_WORDS)

enum link_status { LINK_OK, LINK_FAILED, LINK_UNMEASURED };

struct mpi_rows {
	uint64_t *v;                /* records of REC_COLS + ncols values */
	int n, cap;
};

int mpi_rows_add(struct mpi_rows *r, const uint64_t *rec, int len);
/* A record's head: the link, its round and status, the cause (NULL: none). */
void mpi_rec_head(uint64_t *rec, int src, int dst, int round, enum link_status st,
		  const char *cause);
const char *link_status_name(enum link_status st);

#endif
