/*
 * The measurement loops a benchmark picks for each side.  Each loop runs
 * one size on a connected session and fills a measure.  Hot paths read the
 * clock only where a figure needs it.
 */
#ifndef RB_LOOPS_H
#define RB_LOOPS_H

#include "session/session.h"

/* Operation k of a QP uses offset (k mod slots) x stride in its local and
 * remote areas (perftest's address cycling; atomics' slots). */
uint64_t loop_addr_slots(const struct rb_session *s);
uint64_t loop_addr_stride(const struct rb_session *s);

/* Post the receives a side needs before the start barrier (sends only). */
int loop_prepare(struct rb_session *s);

/* Bandwidth: post the bench's verb as fast as the queues allow. */
int loop_bw_post(struct rb_session *s, struct rb_measure *m);
/* Bandwidth, send receiver: count receives until the sender is done. */
int loop_bw_recv(struct rb_session *s, struct rb_measure *m);
/* Bandwidth, send receiver with -g: each receiving QP's messages counted
 * (engine/mcast.c). */
int loop_bw_recv_mc(struct rb_session *s, struct rb_measure *m);
/* Bandwidth, -b with sends: post sends and count receives at once. */
int loop_bw_send_bidir(struct rb_session *s, struct rb_measure *m);
/* A side with nothing to do (the target of writes/reads): wait for DONE. */
int loop_passive(struct rb_session *s, struct rb_measure *m);

/* Latency: send ping-pong, the side that pings (client) and answers. */
int loop_lat_send_ping(struct rb_session *s, struct rb_measure *m);
int loop_lat_send_pong(struct rb_session *s, struct rb_measure *m);
/* Latency: RDMA write ping-pong (each side polls its buffer). */
int loop_lat_write_ping(struct rb_session *s, struct rb_measure *m);
int loop_lat_write_pong(struct rb_session *s, struct rb_measure *m);
/* Latency: one operation at a time, the verb's completion ends it
 * (read, atomics). */
int loop_lat_oneside(struct rb_session *s, struct rb_measure *m);

/* --validate (validate.c): a size's payloads and zeroed targets, set up by
 * loop_prepare; after the peer's DONE, the write target's check; then
 * validate_result holds what this side found (all 0 before any check). */
void validate_after(struct rb_session *s);
const struct rb_vresult *validate_result(const struct rb_session *s);
void validate_free(struct rb_session *s);
/* How a bench's --validate checks (metadata validate_method): "per-message"
 * (every message or read, where it lands) or "final-slot-content" (writes:
 * the last message into each target slot, after the run). */
const char *validate_method(const struct rb_bench *b);
/* How the atomics check their results (metadata atomic_check):
 * "every-result" (latency) or "last-result-per-slot" (bandwidth). */
const char *atomic_check_method(const struct rb_session *s);

#endif
