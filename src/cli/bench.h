/*
 * The plug-in interface: what differs between benchmarks, nothing else.
 * A benchmark file fills one struct rb_bench and the shared main() runs it.
 */
#ifndef RB_BENCH_H
#define RB_BENCH_H

#include <stdint.h>

struct rb_session;
struct rb_measure;

enum rb_verb { VERB_SEND, VERB_WRITE, VERB_READ, VERB_ATOMIC };
enum rb_metric { METRIC_BW, METRIC_LAT };

/* Transports, as a bit set of what a benchmark supports. */
enum rb_transport { TR_RC = 1, TR_UC = 2, TR_UD = 4 };

/* Options that only some benchmarks accept (others reject them, exit 2). */
enum rb_feature {
	FEAT_QPS = 1 << 0,          /* -q */
	FEAT_BIDIR = 1 << 1,        /* -b */
	FEAT_OUTS = 1 << 2,         /* -o */
	FEAT_POST_LIST = 1 << 3,    /* -l */
	FEAT_CQ_MOD = 1 << 4,       /* -Q */
	FEAT_INLINE = 1 << 5,       /* -I */
	FEAT_ATOMIC_OP = 1 << 6,    /* -A */
	FEAT_EVENTS = 1 << 7,       /* -e */
	/* Implied by the metric and verb, not set in bench files: */
	FEAT_LATENCY = 1 << 8,      /* --warmup, --percentiles, -H, --raw */
	FEAT_SIZE = 1 << 9,         /* -s, -a (atomics are always 8 bytes) */
	FEAT_RX_DEPTH = 1 << 10,    /* -r: the send tests post receives */
	FEAT_BANDWIDTH = 1 << 11,   /* --report-gbits */
	FEAT_THREADS = 1 << 12,     /* -j, --thread-rows: bandwidth tests */
	FEAT_VALIDATE = 1 << 13,    /* --validate: all but atomic_lat (its results are always checked) */
	FEAT_MCG = 1 << 20,         /* -g, -M: multicast UD, the send tests */
};

struct rb_defaults {
	uint64_t size;
	uint64_t iters;
	unsigned tx_depth;
	unsigned rx_depth;
};

/*
 * One side's measurement loop.  Runs on a connected session; fills m.
 * Returns 0, or -errno after logging what failed (completion error, peer
 * lost, deadline passed).
 */
typedef int (*rb_loop_fn)(struct rb_session *s, struct rb_measure *m);

/* Each bench/NAME.c defines one table, rb_bench_NAME, listed in
 * bench/list.h; bench/registry.h finds it by name. */
struct rb_bench {
	const char *name;           /* "rb_send_bw" */
	const char *title;          /* "Send bandwidth" */
	const char *summary;        /* one line for --help */
	enum rb_verb verb;
	enum rb_metric metric;
	unsigned transports;        /* TR_* */
	unsigned features;          /* FEAT_* */
	struct rb_defaults defaults;
	/*
	 * Round trips measured by a latency loop are halved for the one-way
	 * figure (send, write ping-pong); a read's round trip is its latency.
	 */
	unsigned lat_divisor;
	rb_loop_fn client;          /* the side given a host */
	rb_loop_fn server;
	rb_loop_fn client_bidir;    /* -b: NULL when not supported */
	rb_loop_fn server_bidir;
};

#endif
