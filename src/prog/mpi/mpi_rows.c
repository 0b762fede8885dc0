#include "prog/mpi/mpi_rows.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mpi_rows_add(struct mpi_rows *r, const uint64_t *rec, int len)
{
	if (r->n + len > r->cap) {
		int cap = r->cap ? r->cap * 2 : 256;
		uint64_t *v;

		while (cap < r->n + len)
			cap *= 2;
		v = realloc(r->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	memcpy(r->v + r->n, rec, (size_t)len * sizeof(*rec));
	r->n += len;
	return 0;
}

void mpi_rec_head(uint64_t *rec, int src, int dst, int round, enum link_status st,
		  const char *cause)
{
	char *text = (char *)(rec + REC_CAUSE);
	union { double d; uint64_t u; } nan = { .d = NAN };

	rec[REC_SRC] = (uint64_t)src;
	rec[REC_DST] = (uint64_t)dst;
	rec[REC_ROUND] = (uint64_t)round;
	rec[REC_STATUS] = (uint64_t)st;
	rec[REC_LOAD_BW] = nan.u;
	rec[REC_LOAD_UP] = 0;
	memset(text, 0, MPI_CAUSE_WORDS * sizeof(uint64_t));
	snprintf(text, MPI_CAUSE_WORDS * sizeof(uint64_t), "%s", cause ? cause : "");
}

const char *link_status_name(enum link_status st)
{
	return st == LINK_OK ? "ok" : st == LINK_FAILED ? "failed" : "unmeasured";
}
