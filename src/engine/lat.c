/*
 * Latency: one operation in flight; send and RDMA write ping-pongs, and
 * read and atomics, whose own completion ends each sample.
 *
 * A sample is one whole iteration of the loop, as perftest's (its
 * tposted[i + 1] - tposted[i]): from just before the post to the end of
 * the iteration's last step, where the next post would begin.  A send
 * ping-pong's includes the wait for the answer, the receive's re-post and
 * the send's completion; a write ping-pong's the write's completion and the
 * wait for the answer; a read's or an atomic's its completion.  What the
 * loop does for itself (recording the sample, --interval, the once-a-second
 * heartbeat, --validate's check, the next iteration's bookkeeping) falls
 * between samples: no sample includes it; nor does --latency_gap's wait,
 * which the measuring side spends before each post (perftest's gap, spun
 * on both sides before their posts, lies inside its samples).
 */
#include "engine/internal.h"

#include <arpa/inet.h>

#include "lib/log.h"

/* ---- latency ---- */

/* A latency wait's progress: the watch's, without the heartbeat that
 * watch_progress may send (lat_record sends it, between samples). */
static inline void lat_progress(struct watch *w)
{
	w->progressed = true;
	w->idle = 0;
}

static void lat_watch_init(struct watch *w, struct rb_session *s, const char *what)
{
	watch_init(w, s, what);
	w->quiet = true;
}

static int wait_cq(struct rb_session *s, struct ibv_cq *cq, struct ibv_wc *wc, struct watch *w,
		   const char *what)
{
	int n, err;

	/* busy polling looks at the CQ itself; -e sleeps in cq_poll */
	while ((n = s->conn.q.chan ? cq_poll(s, cq, wc, 1, true) : ibv_poll_cq(cq, 1, wc)) == 0) {
		err = s->conn.q.chan ? watch_idle(w) : watch_spin(w);
		if (err)
			return err;
	}
	if (n < 0)
		return check_post(-n, s, "ibv_poll_cq");
	lat_progress(w);
	if (cq == s->conn.q.recv_cq)
		s->run.recvs_outstanding--;
	return wc_check(s, wc, what);
}

static int lat_post_one(struct rb_session *s, struct post_set *p, bool last)
{
	struct ibv_send_wr *wr = &p->wr[0], *bad;

	wr->send_flags = p->base_flags | IBV_SEND_SIGNALED;
	if (last && wr->opcode == IBV_WR_SEND) {
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htonl(1);
	}
	test_delay(s);
	return check_post(ibv_post_send(s->conn.q.qp[0], wr, &bad), s, "ibv_post_send");
}

struct lat_run {
	uint64_t k, t0;                 /* t0: iteration k's post */
	uint64_t gap_ns;                /* --latency_gap */
	uint64_t first_ns, last_ns;     /* -n: the first counted post, the last counted end */
	uint64_t counted;               /* samples counted */
	size_t kept_from;               /* m->samples.n at the loop's start */
	bool beats;                     /* this side sends the heartbeat (heartbeat()) */
	bool between;                   /* beats or gap_ns: lat_between's work to do */
	struct window win;
	struct ivl iv;                  /* --interval: this interval's histogram */
};

static void lat_run_init(struct lat_run *l, struct rb_session *s, const struct rb_measure *m)
{
	*l = (struct lat_run){ .kept_from = m->samples.n, .gap_ns = s->opt->latency_gap_us * 1000ull,
			       .beats = s->is_client && s->bench->server == loop_passive &&
					!s->opt->bidir };
	l->between = l->beats || l->gap_ns;
	window_init(&l->win, s);
}

/* Should the ping about to go be the last one? */
static bool lat_is_last(const struct rb_session *s, struct lat_run *l,
			const volatile sig_atomic_t *stop)
{
	if (*stop)
		return true;
	if (s->run.duration_ns)
		return window_tick(&l->win, s, l->k);
	return l->k + 1 >= s->run.warmup_iters + s->run.iters;
}

/*
 * A counted sample: kept in m->samples, whose samples go into the
 * histogram after the loop (lat_finish: the same counts, sums, minimum
 * and maximum, out of the loop); one the store could not keep goes into
 * it now.
 */
static inline void lat_keep(struct rb_measure *m, uint64_t ns)
{
	size_t n = m->samples.n;

	if (n < m->samples.cap) {
		m->samples.v[n] = ns;
		m->samples.n = n + 1;
		return;
	}
	samples_push_slow(&m->samples, ns);
	if (m->samples.n == n)
		histogram_record(m->hist, ns);
}

/*
 * Between two samples, where there is work (one test per iteration, the
 * same as the heartbeat's alone): the heartbeat of a side whose peer only
 * serves its memory, once a second; --latency_gap's wait from end, slept
 * then spun (pace_nap), cut short by SIGINT.  The watch needs no word: the
 * last wait's progress stands until its next look, after the gap.
 */
static __attribute__((noinline)) void lat_between(struct rb_session *s, const struct lat_run *l, uint64_t end)
{
	uint64_t due = end + l->gap_ns, now;

	if (l->beats && (!s->run.heartbeat_ns || end - s->run.heartbeat_ns >= NSEC_PER_SEC))
		heartbeat(s, end);
	while (l->gap_ns && (now = clock_now_ns()) < due && !*s->stop)
		pace_nap(due, now);
}

/*
 * The iteration that began at l->t0 ended at end: its sample, when it is
 * counted; then what the loop does between samples (lat_between: the
 * test here, the call only where there is work).
 */
static inline __attribute__((always_inline)) void
lat_record(struct rb_session *s, struct lat_run *l, struct rb_measure *m,
			      uint64_t end)
{
	bool in_window = s->run.duration_ns ? l->win.phase == 1 : l->k >= s->run.warmup_iters;
	uint64_t ns = end - l->t0;

	if (in_window) {
		if (!l->counted++)
			l->first_ns = l->t0;
		l->last_ns = end;
		lat_keep(m, ns);
		if (l->iv.every_ns) {
			histogram_record(l->iv.hist, ns);
			ivl_tick(&l->iv, s, &l->win, end, l->counted, 0);
		}
	}
	if (l->between)
		lat_between(s, l, end);
}

/* The window: -D's, or (-n) from the first counted iteration's post to the
 * last one's end, so that window_s spans exactly the iterations counted. */
static void lat_finish(struct rb_session *s, struct lat_run *l, struct rb_measure *m)
{
	uint64_t now = clock_now_ns(), count;

	for (size_t i = l->kept_from; i < m->samples.n; i++)
		histogram_record(m->hist, m->samples.v[i]);
	count = histogram_count(m->hist);
	window_close(&l->win, now, count);
	ivl_finish(&l->iv, s, &l->win);
	ivl_free(&l->iv);
	if (s->run.duration_ns) {
		m->start_ns = l->win.begin_ns;
		m->end_ns = l->win.end_ns;
	} else {
		m->start_ns = count ? l->first_ns : now;
		m->end_ns = count ? l->last_ns : now;
	}
	m->msgs = count;
	m->bytes = m->msgs * s->run.size;
	m->measured = true;
	m->partial = *s->stop != 0;
	measure_cpu(m, &l->win);
}

int loop_lat_send_ping(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct lat_run l;
	const volatile sig_atomic_t *stop = s->stop; /* in a register: no load per ping */
	struct ibv_wc wc;
	struct watch w;
	bool last = false;
	int (*again)(struct rb_session *, bool) = s->conn.q.ring ? recv_again_checked : recv_again;
	int err = post_set_init(&p, s, 1, false);

	lat_watch_init(&w, s, "send ping-pong");
	lat_run_init(&l, s, m);
	if (!err)
		err = ivl_init(&l.iv, s);
	for (; !err && !last; l.k++) {
		last = lat_is_last(s, &l, stop);
		l.t0 = clock_now_ns();
		err = lat_post_one(s, &p, last);
		if (!err)
			err = wait_cq(s, s->conn.q.recv_cq, &wc, &w, "receive");
		if (!err) {
			test_repost_delay(s);
			err = again(s, !last);
		}
		if (!err)
			err = wait_cq(s, s->conn.q.send_cq, &wc, &w, "send");
		if (!err)
			lat_record(s, &l, m, clock_now_ns());
	}
	lat_finish(s, &l, m);
	post_set_free(&p);
	return loop_end(err, m);
}

int loop_lat_send_pong(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct ibv_wc wc;
	struct watch w;
	bool last = false;
	int (*again)(struct rb_session *, bool) = s->conn.q.ring ? recv_again_checked : recv_again;
	int err = post_set_init(&p, s, 1, false);

	(void)m;
	lat_watch_init(&w, s, "send ping-pong");
	while (!err && !last) {
		err = wait_cq(s, s->conn.q.recv_cq, &wc, &w, "receive");
		if (err)
			break;
		last = wc.wc_flags & IBV_WC_WITH_IMM;
		err = lat_post_one(s, &p, false);
		if (!err)
			err = again(s, !last);
		if (!err)
			err = wait_cq(s, s->conn.q.send_cq, &wc, &w, "send");
	}
	post_set_free(&p);
	return loop_end(err, m);
}

/* RDMA write ping-pong: the last byte of each message carries a sequence
 * number (1..254, 255 marks the last message); each side spins on its own
 * receive area until the expected value lands. */
#define SEQ_LAST 255

static uint8_t seq_of(uint64_t k)
{
	return (uint8_t)(k % 254 + 1);
}

static int spin_for(struct rb_session *s, uint8_t want, struct watch *w, bool *last)
{
	volatile uint8_t *slot = qps_cpu_recv_area(&s->conn.q, 0) + s->run.size - 1;
	uint8_t got;
	int err;

	while ((got = *slot) != want && got != SEQ_LAST) {
		err = watch_spin(w);
		if (err)
			return err;
	}
	lat_progress(w);
	*last = got == SEQ_LAST;
	return 0;
}

static int write_one(struct rb_session *s, struct post_set *p, uint8_t seq, struct watch *w)
{
	struct ibv_wc wc;

	qps_cpu_send_area(&s->conn.q, 0)[s->run.size - 1] = seq;
	return lat_post_one(s, p, false) ? -EIO :
	       wait_cq(s, s->conn.q.send_cq, &wc, w, "RDMA write");
}

int loop_lat_write_ping(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct lat_run l;
	const volatile sig_atomic_t *stop = s->stop; /* in a register: no load per ping */
	struct watch w;
	bool last = false, echoed;
	int err = post_set_init(&p, s, 1, false);

	lat_watch_init(&w, s, "write ping-pong");
	lat_run_init(&l, s, m);
	if (!err)
		err = ivl_init(&l.iv, s);
	for (; !err && !last; l.k++) {
		uint8_t seq;

		last = lat_is_last(s, &l, stop);
		seq = last ? SEQ_LAST : seq_of(l.k);
		l.t0 = clock_now_ns();
		err = write_one(s, &p, seq, &w);
		if (!err)
			err = spin_for(s, seq, &w, &echoed);
		if (!err)
			lat_record(s, &l, m, clock_now_ns());
	}
	lat_finish(s, &l, m);
	post_set_free(&p);
	return loop_end(err, m);
}

int loop_lat_write_pong(struct rb_session *s, struct rb_measure *m)
{
	struct post_set p;
	struct watch w;
	bool last = false;
	int err = post_set_init(&p, s, 1, false);

	lat_watch_init(&w, s, "write ping-pong");
	for (uint64_t k = 0; !err && !last; k++) {
		err = spin_for(s, seq_of(k), &w, &last);
		if (!err)
			err = write_one(s, &p, last ? SEQ_LAST : seq_of(k), &w);
	}
	post_set_free(&p);
	return loop_end(err, m);
}

/* What each sample of a read or atomic checks: atomics their result,
 * reads with --validate their payload (validate.c), plain reads nothing. */
static int read_check(const struct rb_session *s, int i, uint64_t k)
{
	validate_reads((struct rb_session *)s, i, k, 1);
	return 0;
}

/* An atomic's sample: what operation k found in its slot (atomic_check's
 * test, inline: the slot count from the post set, the call only for a
 * wrong result). */
static inline int lat_atomic_check(const struct rb_session *s, const struct post_set *p, uint64_t k)
{
	uint64_t got, slot = p->slot_mask ? k & p->slot_mask : k % p->slots;

	memcpy(&got, qps_send_area(&s->conn.q, 0) + slot * RB_LINE_BYTES, sizeof(got));
	return got == k / p->slots ? 0 : atomic_result(s, 0, k, got, true);
}

int loop_lat_oneside(struct rb_session *s, struct rb_measure *m)
{
	bool atomics = s->bench->verb == VERB_ATOMIC, reads = !atomics && s->opt->validate;
	const char *what = verb_name(s->bench->verb);
	struct post_set p;
	struct lat_run l;
	const volatile sig_atomic_t *stop = s->stop; /* in a register: no load per ping */
	struct ibv_wc wc;
	struct watch w;
	bool last = false;
	int err = post_set_init(&p, s, 1, false);

	lat_watch_init(&w, s, what);
	lat_run_init(&l, s, m);
	if (!err)
		err = ivl_init(&l.iv, s);
	for (; !err && !last; l.k++) {
		last = lat_is_last(s, &l, stop);
		l.t0 = clock_now_ns();
		wr_operands(s, &p, 0, &p.wr[0], l.k);
		err = lat_post_one(s, &p, false);
		if (!err)
			err = wait_cq(s, s->conn.q.send_cq, &wc, &w, what);
		if (!err)
			lat_record(s, &l, m, clock_now_ns());
		if (!err && atomics)
			err = lat_atomic_check(s, &p, l.k);
		if (!err && reads)
			err = read_check(s, 0, l.k);
	}
	lat_finish(s, &l, m);
	post_set_free(&p);
	return loop_end(err, m);
}
