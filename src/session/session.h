/*
 * The session: one connection to a peer and what runs on it, split by
 * lifetime.  src/session/ holds the types and what works on the connection
 * alone (HELLO's parameters, rdma_cm); the engine's loops read a session,
 * the driver (src/driver/) makes one, runs its sizes and tears it down.
 *
 *   identity     bench, options, role, the embedding link: fixed at start
 *   conn         the connection: channel, device, placement, QPs, rdma_cm,
 *                what the peer said in HELLO; from connect to teardown
 *   run          the size being measured (and its --load-compare repetition)
 *   test         the --enable-test-delay builds' hooks
 *   features     each behind its own pointer, owned by its module, NULL
 *                when off: --validate (engine/validate.c), --interval's
 *                sink (the driver's, or an embedding driver's), --load
 *                (driver/loadrun.c), -j (driver/threads.c)
 *
 * How to stop: the loops look at *stop (the driver's SIGINT/SIGTERM flag),
 * *halt (-j: a sibling failed) and the link's halt (session_stopped).
 */
#ifndef RB_SESSION_H
#define RB_SESSION_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/bench.h"
#include "cli/options.h"
#include "lib/cpuuse.h"
#include "lib/histogram.h"
#include "lib/oob.h"
#include "lib/output.h"
#include "lib/stats.h"
#include "lib/wire.h"
#include "verbs/device.h"
#include "verbs/placement.h"
#include "verbs/qp.h"

struct rb_session;
struct rb_measure;

/* --interval: each interval just ended (start_ns, end_ns, msgs, bytes;
 * latency: hist) goes to fn, with the window's start for offsets. */
typedef void (*rb_interval_fn)(void *arg, struct rb_session *s, const struct rb_measure *im,
			       uint64_t origin_ns);

/*
 * A session embedded in another driver (rb_mpi, --load): the channel to
 * its peer is given, and instead of a report on stdout the client hands
 * each size's full row (the report's columns, all of them) to row().
 */
struct rb_link {
	struct oob_chan *chan;
	const char *peer;           /* for messages: "rank 3 (node17)" */
	bool is_client;
	void (*row)(void *arg, const union out_val *row, int ncols);
	void *arg;
	bool test_break_qp;         /* tests only (rb_mpi_faults): the QPs to the error state once connected */
	/* rb_mpi's background links: told when the measuring loop starts, and
	 * the loop stops once *halt is set (NULL: neither) */
	void (*started)(void *arg);
	const volatile int *halt;
	/* a load under a latency test (loadrun.h): its CPU chosen away from
	 * these (NULL: no preference), and its intervals handed to
	 * on_interval (with arg; NULL: none) */
	const cpu_set_t *avoid;
	rb_interval_fn on_interval;
};

/* The connection: from its first message to teardown. */
struct rb_conn {
	struct oob_chan *chan;      /* the out-of-band exchange with the peer */
	char peer[64];              /* for messages: the peer's address or name */
	struct rb_device dev;
	struct placement place;
	struct rb_qps q;            /* verbs objects and buffer */
	struct rb_cm *cm;           /* -R: the rdma_cm ids (session/cm.c), else NULL */
	struct wire_rd_offer peer_rd; /* the peer's read/atomic limits (HELLO) */
	uint64_t peer_mtu;          /* the peer's -m (HELLO), 0: none */
};

/* The size being measured. */
struct rb_sizerun {
	uint64_t size;
	uint64_t iters;             /* 0 in duration mode */
	uint64_t warmup_iters;
	unsigned cq_mod;            /* -Q, or fewer for large messages */
	uint64_t duration_ns, warmup_ns;
	bool peer_done;             /* the peer's DONE arrived */
	bool done_sent;             /* this side's DONE went out in its loop */
	unsigned recvs_outstanding; /* receives posted and not completed */
	uint64_t heartbeat_ns;      /* last heartbeat sent (client) or seen (server) */
	bool load_on;               /* --load: this repetition runs loaded (--load-compare) */
	unsigned load_rep;          /* --load-compare: the repetition, from 0 */
};

/* --enable-test-delay builds only: busy waits the tests plant. */
struct rb_test_hooks {
	uint64_t delay_ns;
	uint64_t start_delay_ns;    /* a late start of the posting loop */
	uint64_t repost_delay_ns;   /* before rb_send_lat's pinging side re-posts a receive */
	uint64_t heartbeat_delay_ns; /* after each heartbeat sent */
};

/* --validate: one size's checks (src/engine/validate.c). */
struct rb_vresult {
	uint64_t checked, errors;
	uint64_t first_msg;         /* the first wrong message: its index on its QP */
	int64_t first_off;          /* its first wrong byte, -1: none wrong */
	int first_qp;
};

/* --interval: where the loop hands each interval. */
struct rb_interval_sink {
	rb_interval_fn fn;
	void *arg;
};

struct rb_validate;             /* engine/internal.h */
struct loadrun;                 /* driver/loadrun.h */
struct rb_team;                 /* below */

struct rb_session {
	const struct rb_bench *bench;
	const struct rb_options *opt;
	bool is_client;
	const struct rb_link *link; /* embedded (rb_mpi, --load), else NULL */
	const volatile sig_atomic_t *stop; /* SIGINT/SIGTERM: the driver's flag */
	const volatile int *halt;   /* a -j thread's session: set when a sibling failed */
	int thread;                 /* a -j thread's session: its index */
	struct rb_conn conn;
	struct rb_sizerun run;
	struct rb_test_hooks test;
	struct rb_validate *val;    /* --validate: made by the first loop_prepare */
	const struct rb_interval_sink *intervals; /* --interval: set around the loop */
	struct loadrun *load;       /* --load */
	struct rb_team *team;       /* -j: the measuring threads; NULL: this session measures */
};

struct rb_measure {
	uint64_t msgs;              /* messages completed in the window */
	uint64_t bytes;
	uint64_t start_ns, end_ns;  /* the measured window */
	double peak_bps;            /* bytes/s, NaN when not measured */
	uint64_t wrs_posted, wrs_signaled; /* bandwidth: this side's posted WRs, and how many signalled */
	/* -b with sends: the messages this side received, from the first
	 * arrival to the last (-D: in the same window as the sends). */
	uint64_t rx_msgs, rx_start_ns, rx_end_ns;
	bool rx_measured;
	struct samples samples;     /* latency: every sample (-D: up to SAMPLES_MAX_DURATION) */
	struct histogram *hist;     /* latency: always */
	uint64_t ctr_delta[RB_MAX_COUNTERS]; /* -W: each counter's change over the loop */
	struct cpu_use cpu;         /* --cpu_util: over the window (lib/cpuuse.h) */
	bool measured;              /* false: this side only served the peer */
	bool partial;               /* interrupted (SIGINT) or peer stopped early */
};

/*
 * One measuring loop of a size: the session's own, or (-j) one thread's.
 * The size loop runs 1..N of them the same way (driver/size.c).
 */
struct rb_worker {
	struct rb_session *s;
	struct rb_measure m;        /* the current size's figures */
	int cpu_seen;               /* -j: sched_getcpu() when its loop ended, -1 unknown */
	const char *label;          /* -j: the report's thread cell: "0", "1", ... */
};

/* -j/--threads: the threads as the size loop and the report see them
 * (driver/threads.h starts them and carries their frames: run). */
struct rb_threads;
struct rb_team {
	int n;
	struct rb_worker *w;        /* n of them, in thread order */
	char cpus[256];             /* "3,1,2,0": each thread's CPU, in order */
	struct rb_threads *run;
};

/* --load: one repetition's load figures (in the latency window, and over
 * the load's whole run: its first interval's start to its last one's end,
 * the last messages drained; NaN: not measured on this side or the
 * repetition ran idle). */
struct load_figures {
	bool loaded;
	double bytes, msgs, bw_mibps;
	double run_s, run_bytes;
	int cpu;                    /* the load thread's CPU, -1: none or not known */
};

/* An embedded link's driver halts it (rb_mpi's background links): a busy
 * loop that never idles looks here on each pass it reads the clock. */
static inline bool session_halted(const struct rb_session *s)
{
	return s->link && s->link->halt && *s->link->halt;
}

/* SIGINT, (a thread's session) a sibling thread failed, or (an embedded
 * link) its driver halts it: loops stop where they check their idle watch. */
static inline bool session_stopped(const struct rb_session *s)
{
	return *s->stop || (s->halt && *s->halt) || session_halted(s);
}

/* The last size a run reaches: -s, or -a's top (UD: one MTU, mtu_bytes
 * once the QPs know it, else 4096, the largest; the buffers' size). */
static inline uint64_t session_last_size(const struct rb_options *o, uint64_t mtu_bytes)
{
	if (!o->all)
		return o->size;
	if (o->transport != TR_UD)
		return RB_SWEEP_MAX;
	return mtu_bytes ? mtu_bytes : 4096;
}

#endif
