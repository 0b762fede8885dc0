/*
 * The out-of-band channel over MPI (rb_mpi): the same frames as over TCP
 * (wire.h), one MPI message each, to one peer rank under one tag.  Every
 * wait polls (MPI_Test, MPI_Iprobe) against a deadline: a silent or dead
 * rank is -ETIMEDOUT, never a hang.
 *
 * A send does not wait for the peer: both sides of a link send, then
 * receive, and a frame above the MPI library's eager limit (4 KiB in
 * shared memory) completes only once the peer receives it.  Each send has
 * its own buffer, kept until MPI is done with it; mpi_chan_close() waits
 * for the last ones.
 */
#ifndef RB_MPI_CHAN_H
#define RB_MPI_CHAN_H

#include <mpi.h>

#include "lib/oob.h"
#include "lib/wire.h"

struct mpi_send {
	MPI_Request req;
	struct mpi_send *next;
	uint8_t frame[];
};

struct mpi_chan {
	struct oob_chan chan;       /* what the session uses */
	MPI_Comm comm;
	int peer, tag;
	struct mpi_send *sending;   /* sends MPI has not finished with */
	uint8_t frame[WIRE_HDR_LEN + WIRE_MAX_PAYLOAD];  /* the frame received */
};

/* A channel to rank peer of comm under tag.  Two links between the same
 * two ranks (ring of two: 0->1 and 1->0) need two tags. */
void mpi_chan_init(struct mpi_chan *m, MPI_Comm comm, int peer, int tag);
/* Wait (timeout_ms at most) for the sends still in flight; 0 or -ETIMEDOUT. */
int mpi_chan_close(struct mpi_chan *m, int timeout_ms);

/* A short sleep between two looks at MPI (50 us). */
void mpi_nap(void);
/* Wait for req until deadline_ns (clock_now_ns()); 0 or -ETIMEDOUT. */
int mpi_wait_until(MPI_Request *req, MPI_Status *st, uint64_t deadline_ns);

#endif
