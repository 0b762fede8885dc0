/*
 * rb_mesh's probe frame: what one UD datagram between two watch agents
 * carries.  Pure encode/decode, no I/O (prog/mesh/mesh_ud.c moves it).
 * Big-endian, fixed PW_LEN bytes, versioned; never a raw struct.
 *
 *   off  size  field
 *     0     4  magic    0x52424D50 ("RBMP")
 *     4     1  version  PW_VERSION
 *     5     1  type     PW_PROBE or PW_REPLY
 *     6     2  reserved 0
 *     8     8  seq      the prober's sequence number for this peer (>= 1)
 *    16     8  src_epoch  the prober's epoch (its run; nonzero)
 *    24     8  dst_epoch  the responder's epoch (0 in a probe)
 *    32     8  t_send   the prober's clock at the post, ns (echoed)
 *    40     4  cookie   the prober's index of this peer (echoed)
 *    44     4  reserved 0
 *    48     8  t_rx     the responder's clock at the probe's completion, ns
 *    56     8  t_tx     the responder's clock at the reply's post, ns
 *
 * A reply echoes seq, src_epoch, t_send and cookie, and fills dst_epoch,
 * t_rx and t_tx; the prober's RTT is (its receive - t_send) less the
 * responder's turnaround (t_tx - t_rx), both on one clock each, so the
 * two clocks never need to agree.
 */
#ifndef RB_PROBEWIRE_H
#define RB_PROBEWIRE_H

#include <stddef.h>
#include <stdint.h>

#define PW_MAGIC 0x52424D50u
#define PW_VERSION 1
#define PW_LEN 64

enum pw_type { PW_PROBE = 1, PW_REPLY = 2 };

struct pw_frame {
	enum pw_type type;
	uint64_t seq, src_epoch, dst_epoch, t_send;
	uint32_t cookie;
	uint64_t t_rx, t_tx;
};

/* Writes PW_LEN bytes. */
void pw_encode(const struct pw_frame *f, uint8_t *buf);
/* 0, or -EBADMSG (short, bad magic, version, type, reserved bytes, or a
 * zero seq or src_epoch; a reply with a zero dst_epoch). */
int pw_decode(const uint8_t *buf, size_t len, struct pw_frame *f);
/* The responder's reply to probe p at times t_rx, t_tx. */
void pw_reply(const struct pw_frame *p, uint64_t dst_epoch, uint64_t t_rx, uint64_t t_tx,
	      struct pw_frame *r);

/*
 * An agent's epoch in SIDR's private data (the request's and the reply's):
 * PW_EPOCH_LEN bytes, big-endian.  pw_epoch_get: 0 (none) when len is
 * short or data NULL.
 */
#define PW_EPOCH_LEN 8
void pw_epoch_put(uint64_t epoch, uint8_t *buf);
uint64_t pw_epoch_get(const void *data, size_t len);

/*
 * The sender of a UD datagram, from the 40 bytes a receive gets before the
 * payload: a GRH's source GID (IB, RoCE v1, RoCE v2 over IPv6), or, for
 * RoCE v2 over IPv4, the source address of the IPv4 header that rxe and
 * real NICs place in its last 20 bytes (the first 20 zero), as an
 * IPv4-mapped GID.  (Read as a GRH, an IPv4 datagram's bytes 8..23 are the
 * same for every sender: rb_mesh's reply cache, keyed on them, sent each
 * reply to the first host of that QPN that had asked.)
 */
void pw_sender_gid(const uint8_t *grh40, uint8_t gid[16]);

#endif
