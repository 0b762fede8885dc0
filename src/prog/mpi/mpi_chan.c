#include "prog/mpi/mpi_chan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"

/* Between two looks at an MPI request: short enough for the out-of-band
 * exchange, long enough that idle ranks leave the CPUs to measuring ones. */
#define MPI_NAP_NS 50000

void mpi_nap(void)
{
	struct timespec ts = { 0, MPI_NAP_NS };

	nanosleep(&ts, NULL);
}

static uint64_t deadline_of(int timeout_ms)
{
	return clock_now_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;
}

int mpi_wait_until(MPI_Request *req, MPI_Status *st, uint64_t deadline_ns)
{
	int done = 0;

	for (;;) {
		if (MPI_Test(req, &done, st ? st : MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (clock_now_ns() >= deadline_ns)
			return -ETIMEDOUT;
		mpi_nap();
	}
}

static struct mpi_chan *of(struct oob_chan *c)
{
	return c->impl;
}

/* Free the sends MPI is done with; the number still in flight. */
static int sends_reap(struct mpi_chan *m)
{
	struct mpi_send **p = &m->sending;
	int left = 0, done;

	while (*p) {
		struct mpi_send *s = *p;

		done = 0;
		MPI_Test(&s->req, &done, MPI_STATUS_IGNORE);
		if (done) {
			*p = s->next;
			free(s);
		} else {
			p = &s->next;
			left++;
		}
	}
	return left;
}

static int mpi_send(struct oob_chan *c, uint16_t type, const void *payload, uint32_t len,
		    int timeout_ms)
{
	struct mpi_chan *m = of(c);
	struct mpi_send *s;

	(void)timeout_ms;           /* nothing waits here: see mpi_chan.h */
	if (type < WIRE_HELLO || type > WIRE_TYPE_MAX || len > WIRE_MAX_PAYLOAD ||
	    (len && !payload))
		return -EINVAL;
	s = malloc(sizeof(*s) + WIRE_HDR_LEN + len);
	if (!s)
		return -ENOMEM;
	wire_hdr_encode(s->frame, type, len);
	if (len)
		memcpy(s->frame + WIRE_HDR_LEN, payload, len);
	if (MPI_Isend(s->frame, (int)(WIRE_HDR_LEN + len), MPI_BYTE, m->peer, m->tag, m->comm,
		      &s->req) != MPI_SUCCESS) {
		free(s);
		log_err("OOB: sending %s to rank %d: MPI error", wire_type_name(type), m->peer);
		return -EIO;
	}
	s->next = m->sending;
	m->sending = s;
	sends_reap(m);
	return 0;
}

int mpi_chan_close(struct mpi_chan *m, int timeout_ms)
{
	uint64_t deadline = deadline_of(timeout_ms);

	while (sends_reap(m)) {
		if (clock_now_ns() >= deadline) {
			log_warn("OOB: rank %d did not take the last messages within %.1f s",
				 m->peer, timeout_ms / 1e3);
			return -ETIMEDOUT;
		}
		mpi_nap();
	}
	return 0;
}

/* 1: a frame from the peer is waiting (its size in *bytes), 0: none by the deadline. */
static int probe_until(struct mpi_chan *m, uint64_t deadline_ns, int *bytes)
{
	MPI_Status st;
	int flag = 0;

	for (;;) {
		if (MPI_Iprobe(m->peer, m->tag, m->comm, &flag, &st) != MPI_SUCCESS)
			return -EIO;
		if (flag)
			return MPI_Get_count(&st, MPI_BYTE, bytes) == MPI_SUCCESS ? 1 : -EIO;
		if (clock_now_ns() >= deadline_ns)
			return 0;
		mpi_nap();
	}
}

static int frame_check(struct mpi_chan *m, int bytes, struct wire_hdr *h, uint32_t cap)
{
	int rc = bytes < WIRE_HDR_LEN ? -EPROTO : wire_hdr_decode(m->frame, h);

	if (!rc && h->length != (uint32_t)bytes - WIRE_HDR_LEN)
		rc = -EPROTO;
	if (rc) {
		log_err("OOB: rank %d sent a malformed frame (%d bytes)", m->peer, bytes);
		return rc;
	}
	if (h->length > cap) {
		log_err("OOB: rank %d sent a %s frame of %u bytes, more than the %u expected",
			m->peer, wire_type_name(h->type), h->length, cap);
		return -EMSGSIZE;
	}
	if (h->type == WIRE_ERROR || h->type == WIRE_BUSY) {
		log_err("OOB: rank %d refused (%s)", m->peer, wire_type_name(h->type));
		return -EREMOTEIO;
	}
	return 0;
}

static int mpi_recv(struct oob_chan *c, uint16_t *type, void *buf, uint32_t cap, uint32_t *len,
		    int timeout_ms)
{
	struct mpi_chan *m = of(c);
	struct wire_hdr h;
	int bytes = 0, rc;

	sends_reap(m);
	rc = probe_until(m, deadline_of(timeout_ms), &bytes);
	if (rc == 0) {
		log_err("OOB: nothing from rank %d for %.1f s (failed, stalled or gone)", m->peer,
			timeout_ms / 1e3);
		return -ETIMEDOUT;
	}
	if (rc < 0 || bytes > (int)sizeof(m->frame))
		return rc < 0 ? rc : -EMSGSIZE;
	/* the probe matched it: this receive completes at once */
	if (MPI_Recv(m->frame, bytes, MPI_BYTE, m->peer, m->tag, m->comm, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS)
		return -EIO;
	rc = frame_check(m, bytes, &h, cap);
	if (rc)
		return rc;
	*type = h.type;
	*len = h.length;
	memcpy(buf, m->frame + WIRE_HDR_LEN, h.length);
	return 0;
}

static int mpi_wait(struct oob_chan *c, int timeout_ms)
{
	int bytes;

	return probe_until(of(c), deadline_of(timeout_ms), &bytes);
}

static const struct oob_chan_ops mpi_ops = { mpi_send, mpi_recv, mpi_wait };

void mpi_chan_init(struct mpi_chan *m, MPI_Comm comm, int peer, int tag)
{
	m->chan = (struct oob_chan){ .ops = &mpi_ops, .fd = -1, .impl = m };
	m->comm = comm;
	m->peer = peer;
	m->tag = tag;
	m->sending = NULL;
}
