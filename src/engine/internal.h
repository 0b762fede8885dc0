/*
 * What the engine's files share: the watch over a loop (stalls, a lost
 * peer, SIGINT), work-request templates and their addresses, the window of
 * a duration run, and the receive side's state.  Not for callers outside
 * src/engine/: they use loops.h.
 */
#ifndef RB_ENGINE_INTERNAL_H
#define RB_ENGINE_INTERNAL_H

#include "config.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/testfault.h"
#include "engine/loops.h"
#include "engine/postsched.h"

#define POLL_BATCH 16
#define IDLE_CHECK_MASK 1023u
#define IDLE_YIELD_MASK 63u     /* a side sharing its one CPU yields this often */
#define BUSY_CHECK_BYTES (1u << 20)
#define BUSY_MSG_WEIGHT 4096u
#define WR_ID(qp, n) (((uint64_t)(qp) << 32) | (uint32_t)(n))
#define WR_QP(id) ((int)((id) >> 32))
#define WR_COUNT(id) ((uint32_t)(id))

/* Watching for a stalled queue, a lost peer and SIGINT without reading the
 * clock on every poll. */
struct watch {
	struct rb_session *s;
	const char *what;
	uint64_t last_ns;
	unsigned idle;
	unsigned spins;             /* empty looks of a latency wait (watch_spin) */
	uint64_t busy;              /* weighted completions since the last heartbeat check */
	uint64_t weight;            /* one completion's: the size + BUSY_MSG_WEIGHT */
	bool progressed;
	bool pause;                 /* --poll-pause: cpu_relax() at each empty look */
	bool quiet;                 /* a latency wait: no heartbeat inside a sample (lat.c sends it between) */
};

/*
 * The CPU's spin-wait hint (x86 PAUSE, arm64 YIELD).  A hypervisor takes a
 * vCPU spinning on it off its core for another (KVM's pause-loop exiting),
 * and qemu's TCG moves to its next vCPU at once: without it, two polling
 * processes in a single-threaded TCG guest see each other only at the guest
 * kernel's tick.  perftest's loops have none, so it is off by default.
 */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

void watch_init(struct watch *w, struct rb_session *s, const char *what);
int watch_idle(struct watch *w);

/*
 * A latency wait's look that found nothing: watch_idle's checks (SIGINT,
 * the peer, the deadline, stepping aside for a side sharing the CPU) once
 * every SPIN_CHECK_MASK + 1 looks, a counter test otherwise, so that the
 * spin is little more than the look itself (the CQ poll, or the byte of a
 * write ping-pong) and notices an arrival as soon as perftest's.
 */
#define SPIN_CHECK_MASK 15u
static inline int watch_spin(struct watch *w)
{
	if (w->pause)
		cpu_relax();
	if (++w->spins & SPIN_CHECK_MASK)
		return 0;
	return watch_idle(w);
}
void heartbeat(struct rb_session *s, uint64_t now);
int peer_done(struct rb_session *s);
int loop_end(int err, struct rb_measure *m);

/* n completions reset the idle count.  A side that never idles (a streaming
 * bandwidth client) still sends its heartbeat: the clock is read about once
 * per MiB moved (or 256 small messages), however large the messages are. */
static inline void watch_progress(struct watch *w, int n)
{
	w->progressed = true;
	w->idle = 0;
	w->busy += (uint64_t)n * w->weight;
	if (w->busy >= BUSY_CHECK_BYTES) {
		w->busy = 0;
		heartbeat(w->s, clock_now_ns());
	}
}

static inline void busy_wait(uint64_t ns)
{
	uint64_t until = clock_now_ns() + ns;

	while (ns && clock_now_ns() < until)
		;
}

static inline void test_delay(const struct rb_session *s)
{
#ifdef RB_TEST_DELAY
	busy_wait(s->test.delay_ns);
#else
	(void)s;
#endif
}

/* A posting side that leaves the start barrier late (t_24: the receiver's
 * window must not include the wait). */
static inline void test_start_delay(const struct rb_session *s)
{
#ifdef RB_TEST_DELAY
	busy_wait(s->test.start_delay_ns);
#else
	(void)s;
	(void)busy_wait;
#endif
}

/* Test hooks for the latency samples (t_11, t_13): a busy wait where a
 * sample must include it (before the pinging side re-posts its receive)
 * or must not (after a heartbeat goes out, between samples). */
static inline void test_repost_delay(const struct rb_session *s)
{
#ifdef RB_TEST_DELAY
	busy_wait(s->test.repost_delay_ns);
#else
	(void)s;
#endif
}

static inline void test_heartbeat_delay(const struct rb_session *s)
{
#ifdef RB_TEST_DELAY
	busy_wait(s->test.heartbeat_delay_ns);
#else
	(void)s;
#endif
}


int cq_poll_wait(struct rb_session *s, struct ibv_cq *cq, struct ibv_wc *wc, int max);

/* Poll a CQ; with -e and may_sleep, when it is empty, sleep on the
 * completion channel (cq_poll_wait).  Inline: a busy poll is the
 * provider's call alone. */
static inline int cq_poll(struct rb_session *s, struct ibv_cq *cq, struct ibv_wc *wc, int max,
			  bool may_sleep)
{
	int n = ibv_poll_cq(cq, max, wc);

	if (n || !may_sleep || !s->conn.q.chan)
		return n;
	return cq_poll_wait(s, cq, wc, max);
}
const char *verb_name(enum rb_verb v) __attribute__((const));
int wc_fail(const struct rb_session *s, const struct ibv_wc *wc, const char *what);
int post_fail(int err, const struct rb_session *s, const char *call);

/* A completion's status: 0, or -EIO said on stderr.  Inline, the success
 * a test and no call (what, often verb_name(), is worked out only for an
 * error: verb_name is const). */
static inline int wc_check(const struct rb_session *s, const struct ibv_wc *wc, const char *what)
{
	if (__builtin_expect(wc->status == IBV_WC_SUCCESS, 1))
		return 0;
	return wc_fail(s, wc, what);
}

/* A post's (or poll's) errno: 0, or -err said on stderr. */
static inline int check_post(int err, const struct rb_session *s, const char *call)
{
	if (__builtin_expect(!err, 1))
		return 0;
	return post_fail(err, s, call);
}

/* ---- work request templates ---- */

struct post_set {
	struct ibv_send_wr *wr;     /* n QPs x post_list, chained per QP */
	struct ibv_sge *sge;
	unsigned list;
	unsigned base_flags;
	/* Where the k-th WR of a QP lands (loop_addr_slots), worked out once a
	 * size so that the hot path has no division: slot_mask is slots - 1
	 * when that is a power of two (atomics, sizes up to 64 B), else 0. */
	uint64_t slots, stride, slot_mask;
	bool cas;                   /* compare-and-swap operands per WR */
	bool remote;                /* a remote address per WR (RDMA and atomics, not UD) */
	bool stamp;                 /* each WR stamped as it is posted (wr_stamp): --validate's
				     * payload, the immediate's sequence number */
	unsigned *sig;              /* bw_post_batch: the signalled WRs of a post */
	/*
	 * A ring (post lists; -l 1 too in the bandwidth loops): every QP's
	 * WRs for a whole cycle of addresses, ring WRs (a multiple of list
	 * and of slots), each with its address set once, chained list by
	 * list; a list's last WR is signalled in the template where every
	 * post signals that one alone (sig_last).  A post then sends the next
	 * list as it is: no WR's address is touched per message.  Not fixed,
	 * ring == list: --validate (its own buffer per WR), compare-and-swap
	 * (operands per WR), t_50's slow posts, or a cycle too long to keep.
	 * A post starts a list, always (postsched.h: only the run's last post
	 * is shorter).
	 */
	uint64_t ring;              /* WRs per QP in p->wr (list where not fixed) */
	bool fixed;                 /* a ring: the addresses set once */
	struct ibv_send_wr **at;    /* a ring's next list per QP (bw_post_batch_body) */
	bool sig_last;
};

/* ring: a ring at -l 1 too (the bandwidth loops; a latency loop's one WR
 * has its operands set per post). */
int post_set_init(struct post_set *p, const struct rb_session *s, unsigned list, bool ring);
void post_set_free(struct post_set *p);
int atomic_result(const struct rb_session *s, int i, uint64_t k, uint64_t got, bool say);
int atomic_check(const struct rb_session *s, int i, uint64_t k);
int atomic_check_all(const struct rb_session *s, int i, uint64_t posted);

/*
 * Operands of the k-th WR of a QP: its addresses (above) and, for atomics,
 * its values.  Atomics check themselves: every slot of the peer's target
 * starts at 0 (loop_prepare), so operation k finds k / slots in its slot:
 * fetch-and-add adds 1; compare-and-swap compares with k / slots and swaps
 * in one more, so every one of them swaps.  Either returns what it found
 * into slot k mod slots of the sender's area.
 */
static inline void wr_operands(const struct rb_session *s, const struct post_set *p, int i,
			       struct ibv_send_wr *wr, uint64_t k)
{
	uint64_t off;

	if (p->cas) {
		wr->wr.atomic.compare_add = k / p->slots;
		wr->wr.atomic.swap = k / p->slots + 1;
	}
	if (p->slots == 1)
		return;
	off = (p->slot_mask ? k & p->slot_mask : k % p->slots) * p->stride;
	wr->sg_list->addr = (uintptr_t)qps_send_area(&s->conn.q, i) + off;
	/* atomic.remote_addr and rdma.remote_addr share their place */
	if (p->remote)
		wr->wr.rdma.remote_addr = qps_remote_addr(&s->conn.q, i) + off;
}

/*
 * wr_operands for a burst on one QP, with what does not change per WR in
 * registers: the base addresses and, for compare-and-swap, the operands
 * (wr_cycle_set falls back to wr_operands for those).
 */
struct wr_cycle {
	const struct rb_session *s;
	const struct post_set *p;
	uint64_t local, remote, mask, stride;
	int i;
	bool simple;                /* no compare-and-swap, a power-of-two slot count above 1 */
	bool remote_on;             /* post_set's remote */
};

static inline struct wr_cycle wr_cycle_init(const struct rb_session *s, const struct post_set *p,
					    int i)
{
	return (struct wr_cycle){ .s = s, .p = p, .i = i, .mask = p->slot_mask, .stride = p->stride,
				  .local = (uintptr_t)qps_send_area(&s->conn.q, i),
				  .remote = qps_remote_addr(&s->conn.q, i),
				  .simple = !p->cas && p->slots > 1 && p->slot_mask,
				  .remote_on = p->remote };
}

static inline void wr_cycle_set(const struct wr_cycle *cy, struct ibv_send_wr *wr, uint64_t k)
{
	uint64_t off = (k & cy->mask) * cy->stride;

	if (!cy->simple) {
		wr_operands(cy->s, cy->p, cy->i, wr, k);
		return;
	}
	wr->sg_list->addr = cy->local + off;
	if (cy->remote_on)
		wr->wr.rdma.remote_addr = cy->remote + off;
}

/* The window of a duration run: warm-up, then measure, then stop. */
struct window {
	uint64_t t0, begin_ns, end_ns;
	uint64_t begin_msgs, end_msgs;
	uint64_t begin_rx, end_rx;      /* -b with sends: the receives */
	int phase;                      /* 0 warm-up, 1 measuring, 2 done */
	struct cpu_mark cpu[2];         /* --cpu_util: at the window's edges */
};

void window_init_at(struct window *win, const struct rb_session *s, uint64_t t0);
void window_init(struct window *win, const struct rb_session *s);
bool window_tick_rx(struct window *win, const struct rb_session *s, uint64_t msgs, uint64_t rx);
bool window_tick(struct window *win, const struct rb_session *s, uint64_t msgs);
void window_close_rx(struct window *win, uint64_t end_ns, uint64_t msgs, uint64_t rx);
void window_close(struct window *win, uint64_t end_ns, uint64_t msgs);
void measure_window(struct rb_measure *m, const struct window *win, uint64_t size);
/* --cpu_util: m's CPU use, between the window's edges. */
void measure_cpu(struct rb_measure *m, const struct window *win);

/*
 * --interval: boundaries every SEC inside the window, checked with a
 * clock value the loop read anyway (once per pass of its outer loop, never
 * per message).  The intervals run from the window's start to its end, so
 * their messages add up to the window's exactly.
 */
struct ivl {
	uint64_t every_ns;              /* 0: off */
	uint64_t next_ns;               /* the next boundary; 0: not started */
	uint64_t begin_ns, begin_msgs, begin_rx;
	uint64_t origin_ns;             /* the window's start */
	struct histogram *hist;         /* latency: this interval's samples */
	bool done;
	bool cut;                       /* the last one, ended by the stop */
};

int ivl_init(struct ivl *iv, const struct rb_session *s);
void ivl_free(struct ivl *iv);
void ivl_step(struct ivl *iv, struct rb_session *s, const struct window *win, uint64_t now,
	      uint64_t msgs, uint64_t rx);
/* Pacing's waits (--rate_limit=SW, --latency_gap): sleep no closer to a
 * deadline than PACE_SPIN_NS (a sleep in a guest overshoots by tens of
 * microseconds) and no longer than PACE_NAP_MAX_NS (the caller looks at
 * the peer, SIGINT and -D between naps); the last stretch is the caller's
 * to spin. */
#define PACE_SPIN_NS 100000ull
#define PACE_NAP_MAX_NS 10000000ull

static inline void pace_nap(uint64_t due, uint64_t now)
{
	uint64_t ns;
	struct timespec ts;

	if (due <= now + PACE_SPIN_NS)
		return;
	ns = due - now - PACE_SPIN_NS;
	if (ns > PACE_NAP_MAX_NS)
		ns = PACE_NAP_MAX_NS;
	ts = (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
}

/* The last interval, up to the window's end (or end_ns where no window closed). */
void ivl_finish(struct ivl *iv, struct rb_session *s, const struct window *win);

/* Once per pass of a loop's outer loop, with the clock read there. */
static inline void ivl_tick(struct ivl *iv, struct rb_session *s, const struct window *win,
			    uint64_t now, uint64_t msgs, uint64_t rx)
{
	if (iv->every_ns && !iv->done && (now >= iv->next_ns || win->phase == 2))
		ivl_step(iv, s, win, now, msgs, rx);
}

bool window_tick_at(struct window *win, const struct rb_session *s, uint64_t now,
		    uint64_t msgs, uint64_t rx);

struct recv_state {
	uint64_t total, target;
	uint64_t probe_ns;              /* until the first arrival: when the last poll began */
	uint64_t first_ns, last_ns;     /* the window: the poll that found the first, the last */
};

int recv_post(struct rb_session *s, int i);
int recv_again(struct rb_session *s, bool more);
/* The general receive path (rxq.c, qp.h's rx_general). */
int rx_prepare(struct rb_session *s);
int rx_one(struct rb_session *s, const struct ibv_wc *wc, bool ends, bool *last);
int rx_complete(struct rb_session *s, struct recv_state *r, const struct ibv_wc *wc, int n);
int recv_reap(struct rb_session *s, struct recv_state *r, struct watch *w, bool may_sleep);
int recv_drain(struct rb_session *s, struct recv_state *r);

/* --validate (validate.c): the session's s->val, made by the first
 * validate_prepare: the expected payload of each slot of each QP at this
 * size (slots x stride per QP), and what the checks found. */
struct rb_validate {
	uint8_t *ref;
	uint64_t *next;             /* per QP: UC/UD, the next sequence number due */
	struct rb_vresult res;
};

int validate_prepare(struct rb_session *s);
void validate_stamp(struct rb_session *s, int i, struct ibv_send_wr *wr, uint64_t k);
/* QP i's c-th receive, in buffer off of QP a's area (a: rx_owner) */
void validate_recv_at(struct rb_session *s, int i, uint64_t c, int a, size_t off);
void validate_poison_at(struct rb_session *s, size_t off);
void validate_reads(struct rb_session *s, int i, uint64_t k, uint64_t n);
void validate_done(struct rb_session *s, int i, uint64_t k, uint64_t n);

/*
 * Immediate data (--write_with_imm, --send_with_imm): the k-th message of
 * a QP carries k's low 31 bits, big-endian as verbs sends it; a ping-pong's
 * last message has the top bit set too (the end, as a plain send
 * ping-pong's SEND_WITH_IMM).  The receiver checks each (recv.c).
 */
#define RB_IMM_SEQ 0x7fffffffu
#define RB_IMM_LAST 0x80000000u

/* The faults build's "imm-skip": QP 0's WR 3 carries 4 (a lost one). */
static inline uint32_t imm_of(int i, uint64_t k)
{
	if (i == 0 && k == 3 && test_fault("imm-skip"))
		k++;
	return htobe32((uint32_t)k & RB_IMM_SEQ);
}

/* A WR of a stamping post set (p->stamp), about to be posted as operation
 * k of QP i: --validate's payload, the immediate.  A copy of the loops
 * runs it (their v), so that a loop without either pays nothing. */
static inline void wr_stamp(struct rb_session *s, int i, struct ibv_send_wr *wr, uint64_t k)
{
	if (s->conn.q.tx_ring)
		validate_stamp(s, i, wr, k);
	wr->imm_data = imm_of(i, k);
}

#endif
