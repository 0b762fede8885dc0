/*
 * Latency under load (issue 21): the pure rules of --load, --load-size,
 * --load-qps and --load-compare, with no verbs calls, so that they are unit
 * tested.  src/driver/loadrun.c runs the load (an embedded session on its own
 * channel, QPs, thread and CPU) with them.
 */
#ifndef RB_LOAD_H
#define RB_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bandwidth benchmarks a load may run. */
enum load_bench { LOAD_NONE = 0, LOAD_SEND_BW, LOAD_WRITE_BW, LOAD_READ_BW };

#define LOAD_DEFAULT_SIZE 65536u
#define LOAD_DEFAULT_QPS 1u
/* --load-compare: repetitions per size, idle and loaded alternating
 * (idle, loaded, idle, loaded, ...): an even count, each phase as often. */
#define LOAD_COMPARE_REPS 6u

/* "write_bw" or "rb_write_bw" -> LOAD_WRITE_BW; -1 when not a load. */
int load_bench_parse(const char *name);
/* LOAD_WRITE_BW -> "write_bw"; "none" for LOAD_NONE. */
const char *load_bench_name(enum load_bench b);

/* What the user asked for, as parsed. */
struct load_ask {
	const char *bench_text;     /* --load's text, NULL: not given */
	bool size_given, qps_given, compare;
	uint64_t size;              /* --load-size */
	uint64_t qps;               /* --load-qps */
};

/*
 * Check the load options of a benchmark (latency: a latency benchmark).
 * 0, or -EINVAL with why (len bytes) holding a message that names the
 * option and gives a hint: a usage error, exit 2.
 */
int load_check(const struct load_ask *a, bool latency, uint64_t max_size, uint64_t max_qps,
	       char *why, size_t len);

/* --load-compare: repetition rep (0-based) runs loaded (true) or idle. */
bool load_compare_loaded(unsigned rep);
/* A percentile's loaded / idle ratio; NaN when either is not a positive
 * measurement (the row says "not measured", never a made-up figure). */
double load_ratio(double loaded, double idle);

/* One of the load's intervals: its bytes completed in [start_ns, end_ns). */
struct load_ivl {
	uint64_t start_ns, end_ns, bytes;
};
/*
 * The load's bytes within the latency window [start_ns, end_ns): each
 * interval counted by the share of it that falls inside (traffic taken as
 * even within an interval).  The bandwidth over the same window is this
 * divided by the window.
 */
double load_window_bytes(const struct load_ivl *iv, int n, uint64_t start_ns, uint64_t end_ns);
/* The load's bytes over all its intervals (its whole run). */
double load_run_bytes(const struct load_ivl *iv, int n);

#endif
