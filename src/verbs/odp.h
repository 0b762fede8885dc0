/*
 * On-demand paging (--odp): the device's ODP capabilities
 * (ibv_query_device_ex), whether they cover a test's operation on its
 * transport, and their text for the metadata.  An explicit ODP MR
 * (IBV_ACCESS_ON_DEMAND) pins nothing: the device faults each page in when
 * it first touches it (rxe: Linux 6.14 and later).  Pure but for odp_query.
 */
#ifndef RB_ODP_H
#define RB_ODP_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "cli/bench.h"

struct odp_caps {
	uint64_t general;       /* IBV_ODP_SUPPORT, ... */
	uint32_t rc, uc, ud;    /* IBV_ODP_SUPPORT_SEND, ... per transport */
};

/* The device's capabilities into *c: 0, or -errno (the query failed). */
int odp_query(struct ibv_context *ctx, struct odp_caps *c);

/* The bits a test of verb needs on its transport that c lacks (0: none):
 * sends SEND and RECV (or SRQ_RECV), writes WRITE, reads READ, atomics
 * ATOMIC; everything when c has no IBV_ODP_SUPPORT at all. */
uint32_t odp_missing(const struct odp_caps *c, enum rb_transport tr, enum rb_verb verb);

/* Transport caps bits as "SEND,RECV,..." ("none" for 0). */
void odp_bits_text(uint32_t bits, char *buf, size_t len);
/* All of c: "RC SEND,RECV,... UC none UD SEND,..." ("none" without
 * IBV_ODP_SUPPORT). */
void odp_caps_text(const struct odp_caps *c, char *buf, size_t len);

/* Query dev's caps into *c and check them for the test: 0, or -EOPNOTSUPP
 * after a message naming the device and what it lacks. */
int odp_check(struct ibv_context *ctx, enum rb_transport tr, enum rb_verb verb,
	      struct odp_caps *c);

#endif
