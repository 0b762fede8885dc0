/*
 * The test parameters both sides compare in HELLO (wire.h's params with
 * ids below WIRE_P_FIRST_OFFER): what the peer does or what a figure means.
 * Besides the benchmark's verb and metric, each is an option's PEER row
 * (cli/rows.c: its wire id, value and label); the ids below are the wire
 * format: never move one, never reuse one (tests/unit/test_hello.c checks
 * the rows against this list).
 * Pure: no I/O beyond log_err, so tests/unit/test_hello.c drives it.
 *
 * Some options act only on the side that gives them: they travel as 0
 * ("not compared") unless both sides do that work (hello_both_post,
 * hello_both_stream), so that a value given on one side only is no
 * mismatch where the peer never uses it:
 *   -t, -Q, --atomic-same-address: the posting loop's queue, signalling
 *      and target words: compared with -b (both sides post);
 *   -r: the receive queue of send tests: compared with -b;
 *   -I, -e: how a side posts and waits: compared where both sides post
 *      (-b, and the send and write ping-pongs, whose pong side's posting
 *      and waking is inside the pinging side's samples);
 * -m is an offer, not compared (WIRE_P_MTU_ASKED): each end of a QP
 * applies it (the responder's sizes the packets of reads and of every
 * reply), so both use the smaller one either side gives (hello_mtu).
 * A peer of an older version lacks the newer ids: both sides then fail,
 * naming the version mismatch ("upgrade"), as for any other param.
 */
#ifndef RB_HELLO_H
#define RB_HELLO_H

#include <stdbool.h>

#include "cli/bench.h"
#include "cli/options.h"
#include "lib/wire.h"

enum hello_param {
	P_VERB = 1, P_METRIC, P_TRANSPORT, P_SIZE, P_ALL, P_ITERS, P_DURATION_MS,
	P_WARMUP_MS, P_WARMUP_ITERS, P_QPS, P_BIDIR, P_RDMA_CM, P_ATOMIC_OP, P_POST_LIST,
	P_PERCENTILES, P_COUNTERS, P_THREADS, P_RUN_INF, P_VALIDATE,
	P_LOAD, P_LOAD_SIZE, P_LOAD_QPS, P_LOAD_COMPARE,
	P_TX_DEPTH, P_CQ_MOD, P_RX_DEPTH, P_INLINE, P_EVENTS, P_ATOMIC_SAME,
	/* #36's features, each a block of ids of its own (ids without a row
	 * are not sent) */
	P_RATE_LIMIT = 50, P_RATE_UNITS, P_RATE_TYPE, P_BURST_SIZE, P_LATENCY_GAP,   /* pacing */
	P_MCG = 60, P_MGID,         /* multicast: -g, -M */
	P_RETRY_COUNT = 70, P_REVERSED,     /* path control: --retry_count, --reversed */
	P_COUNT                     /* one past the last */
};

/* Both sides run a posting loop at once (-b), or a ping-pong. */
bool hello_both_post(const struct rb_options *o, const struct rb_bench *b);
/* Both sides stream (-b): their queues shape each other's traffic. */
bool hello_both_stream(const struct rb_options *o, const struct rb_bench *b);

/* The benchmark's name and the compared params, ids 1 .. P_COUNT - 1. */
void hello_params(const struct rb_options *o, const struct rb_bench *b, struct wire_hello *h);

/* The label of a compared param in messages ("size (-s)"); NULL: none. */
const char *hello_param_label(unsigned id);

/* The -m both sides use: the smaller of two offers, 0 (none) where
 * neither gives one; a peer's value that is no MTU counts as none. */
unsigned hello_mtu(uint64_t mine, uint64_t peer);

/* Every difference between this side's HELLO and the peer's, each named on
 * stderr ("QP depth (-t) differs: client 16, server 128"): 0, or -EPROTO. */
int hello_compare(const struct wire_hello *mine, const struct wire_hello *peer, bool is_client);

#endif
