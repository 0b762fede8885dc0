/*
 * Multicast UD (-g/--mcg): the receiving side's QPs attached to a group,
 * the sending side's address handles pointing at it.
 *
 * Roles, as perftest's: in rb_send_bw the server receives (its -q QPs all
 * attached to the group) and the client sends (its QPs' address handles
 * at the group, QPN 0xffffff, the UD Q_Key both sides use); in
 * rb_send_lat each side attaches its QP to a group of its own (the
 * client's: the server's last byte plus 1) and sends to the peer's.  The
 * receiving side announces the group as its QPs' GID (QPN 0xffffff) in
 * the QP exchange, so that the sender sends where the receiver listens.
 *
 * On RoCE v2 the group is an IP multicast address (IPv4-mapped MGIDs:
 * the IPv4 address of the last 4 bytes).  Attaching a QP makes rxe add
 * the group's MAC to its netdev, but the kernel's IP stack drops a
 * datagram to a group no socket has joined before rxe sees it: the
 * receiving side also joins the group on the GID's netdev
 * (IP_ADD_MEMBERSHIP / IPV6_JOIN_GROUP), as rdma_cm does for its joins
 * (and as IGMP-snooping switches need).  InfiniBand needs a join at the
 * subnet manager (perftest's umad MADs): not done, refused.
 *
 * Everything here runs once, at setup and teardown: the loops pay nothing.
 */
#ifndef RB_MCAST_H
#define RB_MCAST_H

#include <stdbool.h>
#include <stdint.h>

struct rb_qps;
struct rb_device;
struct rb_options;

#define RB_MCAST_QPN 0xffffffu

struct rb_mcast {
	uint8_t mgid[16];           /* the group this side's QPs are attached to */
	uint16_t mlid;              /* 0 on RoCE */
	bool receiving;             /* this side's QPs are attached */
	int attached;               /* QPs attached so far: detached last first */
	int join_fd;                /* the IP-level join's socket, -1: none */
	char netdev[32];            /* where it joined ("" none) */
	uint64_t *got;              /* per QP: messages received this size (engine/mcast.c) */
};

/*
 * Make q->mc: with receive, the group (-M, or the default of the GID's
 * family; second: the ping-pong client's, last byte plus 1), every QP
 * attached, the IP-level join; the sending side only records that it
 * multicasts.  On failure what was made is undone.  0 or -errno (said).
 */
int mcast_open(struct rb_qps *q, const struct rb_device *d, const struct rb_options *o, bool receive,
	       bool second);
/* What mcast_open made, in reverse order (qps_destroy calls it first). */
void mcast_close(struct rb_qps *q);
/* The group the sending side's messages go to: the peer's, from the QP
 * exchange (q->remote[0].gid); the receiving side's own in send_bw. */
const uint8_t *mcast_send_group(const struct rb_qps *q);

#endif
