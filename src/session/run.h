/*
 * The driver: setup -> exchange -> connect -> the plug-in's loops ->
 * report -> teardown.  A session holds everything one connection owns; a
 * measure holds one size's results.
 */
#ifndef RB_RUN_H
#define RB_RUN_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/bench.h"
#include "verbs/device.h"
#include "lib/histogram.h"
#include "verbs/placement.h"
#include "lib/oob.h"
#include "cli/options.h"
#include "lib/output.h"
#include "verbs/qp.h"
#include "lib/stats.h"

/*
 * A session embedded in another driver (rb_mpi): the channel to its peer
 * is given, and instead of a report on stdout the client hands each size's
 * full row (the report's columns, all of them) to row().
 */
struct rb_session;
struct rb_measure;

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
	void (*on_interval)(void *arg, struct rb_session *s, const struct rb_measure *im,
			    uint64_t origin_ns);
};

/* --validate: one size's checks (src/engine/validate.c). */
struct rb_vresult {
	uint64_t checked, errors;
	uint64_t first_msg;         /* the first wrong message: its index on its QP */
	int64_t first_off;          /* its first wrong byte, -1: none wrong */
	int first_qp;
};

struct rb_session {
	const struct rb_bench *bench;
	const struct rb_options *opt;
	bool is_client;
	struct oob_chan *chan;      /* the out-of-band exchange with the peer */
	const struct rb_link *link; /* embedded (rb_mpi), else NULL */
	char peer[64];
	struct rb_device dev;
	struct placement place;
	struct rb_qps q;            /* verbs objects and buffer */
	struct rb_cm *cm;           /* -R: the rdma_cm ids, else NULL */
	struct wire_rd_offer peer_rd; /* the peer's read/atomic limits (HELLO) */
	uint64_t peer_mtu;          /* the peer's -m (HELLO), 0: none */
	/* the current size's run */
	uint64_t size;
	uint64_t iters;             /* 0 in duration mode */
	uint64_t warmup_iters;
	unsigned cq_mod;            /* -Q, or fewer for large messages */
	uint64_t duration_ns, warmup_ns;
	bool peer_done;             /* the peer's DONE arrived */
	bool done_sent;             /* this side's DONE went out in its loop */
	unsigned recvs_outstanding; /* receives posted and not completed */
	uint64_t test_delay_ns;     /* --enable-test-delay builds only */
	uint64_t test_start_delay_ns; /* the same: a late start of the posting loop */
	uint64_t test_repost_delay_ns; /* the same: before rb_send_lat's pinging side re-posts a receive */
	uint64_t test_heartbeat_delay_ns; /* the same: after each heartbeat sent */
	uint64_t heartbeat_ns;      /* last heartbeat sent (client) or seen (server) */
	/* --validate: the expected payload of each slot of each QP at this
	 * size (slots x stride per QP), and what the checks found */
	uint8_t *vref;
	uint64_t *vnext;            /* per QP: UC/UD, the next sequence number due */
	struct rb_vresult vres;
	/* -j/--threads (threads.h): */
	struct rb_threads *threads; /* the measuring threads, NULL: this session measures */
	int thread;                 /* a thread's session: its index */
	const volatile int *halt;   /* a thread's session: set when a sibling failed */
	/* --interval: the loop hands each interval just ended (start_ns,
	 * end_ns, msgs, bytes; latency: hist) to on_interval, with the
	 * window's start for offsets.  NULL: no interval rows. */
	void (*on_interval)(void *arg, struct rb_session *s, const struct rb_measure *im,
			    uint64_t origin_ns);
	void *interval_arg;
	/* --load (loadrun.h): the load's channel and thread, NULL: no load;
	 * load_on: the current repetition runs loaded (--load-compare) */
	struct loadrun *load;
	bool load_on;
	unsigned load_rep;          /* --load-compare: the repetition, from 0 */
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
	bool measured;              /* false: this side only served the peer */
	bool partial;               /* interrupted (SIGINT) or peer stopped early */
};

/* Set by the SIGINT/SIGTERM handler; loops check it. */
extern volatile sig_atomic_t rb_stop;

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
	return rb_stop || (s->halt && *s->halt) || session_halted(s);
}

/* Run benchmark b with options o; returns an RB_EXIT_* code. */
int run_bench(const struct rb_bench *b, const struct rb_options *o);

/* What run_bench() does first: the SIGINT/SIGTERM handler, the PSN seed. */
void run_init(void);
/* One embedded session over l's channel; returns an RB_EXIT_* code. */
int run_link(const struct rb_bench *b, const struct rb_options *o, const struct rb_link *l);

#endif
