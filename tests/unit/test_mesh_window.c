/*
 * One peer's window (src/prog/mesh/mesh_window.c) against a reference
 * model written here from mesh_window.h's rules alone: every probe ever
 * sent kept in a plain array, indexed by its sequence number, with its
 * state (outstanding, answered, lost, late, restarted), and every rule a
 * linear scan of that array (no ring, no bitmap, no reservoir).  Random
 * sequences of sends, answers, late answers, replies from a new epoch,
 * epoch changes, expiries and closes must give the same counts, loss,
 * epoch and silence at every close, and the percentiles of a sorted copy
 * of the window's RTTs (nearest rank, found by counting).  Then the
 * rules one by one on small cases: the loss formula, restarted never
 * lost, late never twice, the cap of MW_OUTSTANDING, and the reservoir:
 * bounded, deterministic, and a uniform sample (not the first answers).
 */
#include "prog/mesh/mesh_window.h"
#include "tap.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN 34

/* ---- the reference model ---- */

enum ref_state { R_OUT, R_ANSWERED, R_LOST, R_LATE, R_RESTARTED };

#define REF_MAX 4096

struct ref {
	uint64_t timeout, epoch, last;  /* last: the last seq sent */
	uint64_t sent_ns[REF_MAX + 1];
	enum ref_state st[REF_MAX + 1];
	uint64_t sent, answered, lost, restarted, late, restarts;
	uint64_t capped;                /* lost to the cap, ever */
	uint64_t rtt[REF_MAX];
	int nrtt;
};

static int ref_outstanding(const struct ref *m)
{
	int n = 0;

	for (uint64_t s = 1; s <= m->last; s++)
		n += m->st[s] == R_OUT;
	return n;
}

static void ref_lose(struct ref *m, uint64_t s)
{
	m->st[s] = R_LOST;
	m->lost++;
}

static void ref_expire(struct ref *m, uint64_t now)
{
	for (uint64_t s = 1; s <= m->last; s++)
		if (m->st[s] == R_OUT && now > m->sent_ns[s] && now - m->sent_ns[s] > m->timeout)
			ref_lose(m, s);
}

static uint64_t ref_send(struct ref *m, uint64_t now)
{
	if (ref_outstanding(m) == MW_OUTSTANDING)
		for (uint64_t s = 1; s <= m->last; s++)
			if (m->st[s] == R_OUT) {
				ref_lose(m, s);
				m->capped++;
				break;
			}
	m->last++;
	m->sent_ns[m->last] = now;
	m->st[m->last] = R_OUT;
	m->sent++;
	return m->last;
}

/* A new known epoch: what was outstanding and sent before seq restarted. */
static void ref_epoch(struct ref *m, uint64_t epoch, uint64_t before)
{
	if (!epoch || epoch == m->epoch)
		return;
	if (m->epoch) {
		m->restarts++;
		for (uint64_t s = 1; s <= m->last && s < before; s++)
			if (m->st[s] == R_OUT) {
				m->st[s] = R_RESTARTED;
				m->restarted++;
			}
	}
	m->epoch = epoch;
}

static int ref_answer(struct ref *m, uint64_t seq, uint64_t epoch, uint64_t now)
{
	ref_expire(m, now);
	ref_epoch(m, epoch, seq);
	if (seq >= 1 && seq <= m->last && m->st[seq] == R_OUT) {
		m->st[seq] = R_ANSWERED;
		m->answered++;
		m->rtt[m->nrtt++] = now - m->sent_ns[seq];
		return 0;
	}
	if (seq >= 1 && seq <= m->last && m->st[seq] == R_LOST && m->last + 1 - seq <= MW_LATE_SEQS) {
		m->st[seq] = R_LATE;
		m->late++;
	}
	return -ENOENT;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank by counting: the smallest v of the sorted list with at
 * least permille / 1000 of the list at or below it. */
static double ref_rank_us(const uint64_t *sorted, int n, int permille)
{
	for (int i = 1; i <= n; i++)
		if ((uint64_t)i * 1000 >= (uint64_t)permille * (uint64_t)n)
			return sorted[i - 1] / 1e3;
	return NAN;
}

/* The window's record as the model sees it; the window starts anew. */
static void ref_close(struct ref *m, uint64_t now, struct mesh_window_rec *r)
{
	uint64_t sorted[REF_MAX];

	ref_expire(m, now);
	memset(r, 0, sizeof(*r));
	r->peer_epoch = m->epoch;
	r->sent = m->sent, r->answered = m->answered, r->lost = m->lost;
	r->restarted = m->restarted, r->late = m->late;
	r->loss = m->answered + m->lost ? (double)m->lost / (double)(m->answered + m->lost) : 0;
	memcpy(sorted, m->rtt, (size_t)m->nrtt * sizeof(*sorted));
	qsort(sorted, (size_t)m->nrtt, sizeof(*sorted), u64_cmp);
	r->rtt_p50_us = m->nrtt ? ref_rank_us(sorted, m->nrtt, 500) : NAN;
	r->rtt_p90_us = m->nrtt ? ref_rank_us(sorted, m->nrtt, 900) : NAN;
	r->rtt_p99_us = m->nrtt ? ref_rank_us(sorted, m->nrtt, 990) : NAN;
	r->rtt_max_us = m->nrtt ? sorted[m->nrtt - 1] / 1e3 : NAN;
	m->sent = m->answered = m->lost = m->restarted = m->late = 0;
	m->nrtt = 0;
}

static uint64_t ref_silent(const struct ref *m, uint64_t now)
{
	for (uint64_t s = 1; s <= m->last; s++)
		if (m->st[s] == R_OUT)
			return now > m->sent_ns[s] ? now - m->sent_ns[s] : 0;
	return 0;
}

/* ---- random sequences ---- */

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	uint64_t v = tap_xorshift(&rng_state);

	return n ? v % n : 0;
}

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* r (the module's) and want (the model's) agree; else why. */
static int same_rec(const struct mesh_window_rec *r, const struct mesh_window_rec *want, char *why)
{
	if (r->sent != want->sent || r->answered != want->answered || r->lost != want->lost ||
	    r->restarted != want->restarted || r->late != want->late || r->peer_epoch != want->peer_epoch)
		return sprintf(why, "counts sent/answered/lost/restarted/late/epoch %llu/%llu/%llu/%llu/%llu/%llx, "
			       "want %llu/%llu/%llu/%llu/%llu/%llx",
			       (unsigned long long)r->sent, (unsigned long long)r->answered,
			       (unsigned long long)r->lost, (unsigned long long)r->restarted,
			       (unsigned long long)r->late, (unsigned long long)r->peer_epoch,
			       (unsigned long long)want->sent, (unsigned long long)want->answered,
			       (unsigned long long)want->lost, (unsigned long long)want->restarted,
			       (unsigned long long)want->late, (unsigned long long)want->peer_epoch);
	if (!same_double(r->loss, want->loss))
		return sprintf(why, "loss %g, want %g", r->loss, want->loss);
	if (!same_double(r->rtt_p50_us, want->rtt_p50_us) || !same_double(r->rtt_p90_us, want->rtt_p90_us) ||
	    !same_double(r->rtt_p99_us, want->rtt_p99_us) || !same_double(r->rtt_max_us, want->rtt_max_us))
		return sprintf(why, "p50/p90/p99/max %g/%g/%g/%g us, want %g/%g/%g/%g", r->rtt_p50_us,
			       r->rtt_p90_us, r->rtt_p99_us, r->rtt_max_us, want->rtt_p50_us,
			       want->rtt_p90_us, want->rtt_p99_us, want->rtt_max_us);
	return 0;
}

/* A seq to answer: mostly an outstanding one, else a lost one (late),
 * a restarted or answered one, or one never sent. */
static uint64_t pick_seq(const struct ref *m)
{
	uint64_t k = rnd(10), s = 1;

	if (!m->last || k == 9)
		return k & 1 ? 0 : m->last + 1 + rnd(3);
	for (int tries = 0; tries < 8; tries++) {
		s = m->last - rnd(m->last < 300 ? m->last : 300);
		if ((k < 6 && m->st[s] == R_OUT) || (k >= 6 && k < 8 && m->st[s] == R_LOST) || k == 8)
			return s;
	}
	return s;
}

struct sim {
	struct mesh_win w;
	struct ref *m;
	uint64_t now, epochs[3];
	uint64_t answer_pct;            /* of the events, answers */
	long closes, events, answers, lates, restarts, capped;
};

/* One random event; 0 or why the module and the model differ. */
static int sim_step(struct sim *s, char *why)
{
	struct mesh_window_rec r, want;
	uint64_t k = rnd(100), seq, ep;
	int got, exp;

	s->now += rnd(k < 50 ? 400 : 60);
	s->events++;
	if (k < 45)
		return mw_send(&s->w, s->now) == ref_send(s->m, s->now) ? 0 : sprintf(why, "send: another seq");
	if (k < 45 + s->answer_pct) {
		seq = pick_seq(s->m);
		ep = s->epochs[rnd(100) < 96 ? 0 : 1 + rnd(2)];
		got = mw_answer(&s->w, seq, ep, s->now);
		exp = ref_answer(s->m, seq, ep, s->now);
		s->answers += got == 0;
		return got == exp ? 0 : sprintf(why, "answer %llu: %d, want %d", (unsigned long long)seq, got, exp);
	}
	if (k < 48 + s->answer_pct) {
		s->epochs[0] = s->epochs[1 + rnd(2)] = 1 + rnd(UINT64_MAX - 1);
		mw_epoch(&s->w, s->epochs[0]);
		ref_epoch(s->m, s->epochs[0], UINT64_MAX);
		return 0;
	}
	if (k < 95) {
		mw_expire(&s->w, s->now);
		ref_expire(s->m, s->now);
		return mw_silent_ns(&s->w, s->now) == ref_silent(s->m, s->now) ? 0 : sprintf(why, "silent");
	}
	mw_close(&s->w, s->now, &r);
	ref_close(s->m, s->now, &want);
	s->closes++;
	s->lates += want.late;
	return same_rec(&r, &want, why);
}

/* One random sequence of up to REF_MAX sends: 0 or why (and where). */
static int sim_run(uint64_t seed, uint64_t timeout, struct sim *s, char *why)
{
	char what[400];

	rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
	memset(s->m, 0, sizeof(*s->m));
	s->now = 1000 + rnd(1000);
	s->epochs[0] = rnd(2) ? 0 : 1 + rnd(1000);  /* 0: the epoch is not said at first */
	s->epochs[1] = 77, s->epochs[2] = 1 + rnd(1000);
	s->m->timeout = timeout;
	s->answer_pct = seed % 4 ? 40 : 10;    /* 10: the cap is reached */
	if (mw_init(&s->w, s->now, timeout, REF_MAX))
		return sprintf(why, "mw_init failed");
	for (int e = 0; e < 1200 && s->m->last < REF_MAX - 1; e++)
		if (sim_step(s, what)) {
			sprintf(why, "seed %llu event %d: %s", (unsigned long long)seed, e, what);
			break;
		}
	s->restarts += s->w.restarts;
	s->capped += s->m->capped;
	if (!why[0] && s->w.restarts != s->m->restarts)
		sprintf(why, "seed %llu: %llu restarts, want %llu", (unsigned long long)seed,
			(unsigned long long)s->w.restarts, (unsigned long long)s->m->restarts);
	mw_free(&s->w);
	return why[0] != 0;
}

static void test_random(void)
{
	static struct ref model;
	struct sim s = { .m = &model };
	char why[512] = "";
	const uint64_t timeout[] = { 1000, 5000, 100000 };
	int failed = 0, seeds = 1200;

	for (int i = 0; i < seeds && !failed; i++)
		failed = sim_run((uint64_t)i + 1, timeout[i % 3], &s, why);
	ok(!failed, "%d random sequences (%ld events, %ld closes): the module's records are the model's%s%s",
	   seeds, s.events, s.closes, failed ? ": " : "", why);
	ok(s.answers > 1000 && s.lates > 100 && s.restarts > 100 && s.closes > 1000 && s.capped > 100,
	   "...they answered (%ld), were late (%ld), restarted (%ld), hit the cap (%ld), closed (%ld)",
	   s.answers, s.lates, s.restarts, s.capped, s.closes);
}

/* ---- the rules, one by one ---- */

static void test_loss(void)
{
	struct mesh_window_rec r;
	struct mesh_win w;
	uint64_t seq[10];

	ok(mw_init(&w, 0, 1000, 16) == 0, "mw_init");
	for (int i = 0; i < 10; i++)
		seq[i] = mw_send(&w, 100 + (uint64_t)i);
	ok(seq[0] == 1 && seq[9] == 10, "sequence numbers from 1");
	for (int i = 0; i < 7; i++)
		mw_answer(&w, seq[i], 5, 200 + 10 * (uint64_t)i);
	mw_close(&w, 5000, &r);
	ok(r.sent == 10 && r.answered == 7 && r.lost == 3 && r.loss == 0.3,
	   "10 sent, 7 answered, 3 timed out: loss 3 / 10 = %g", r.loss);
	is_near(r.rtt_p50_us, 0.127, 1e-12, "p50: the 4th of 7 RTTs (100, 109, .. 154 ns)");
	is_near(r.rtt_p90_us, 0.154, 1e-12, "p90: the 7th (ceil(6.3))");
	is_near(r.rtt_max_us, 0.154, 1e-12, "max: the slowest");
	mw_close(&w, 6000, &r);
	ok(r.sent == 0 && r.loss == 0 && isnan(r.rtt_p50_us) && isnan(r.rtt_p99_us) && isnan(r.rtt_max_us),
	   "an empty window: loss 0, percentiles NaN");
	mw_free(&w);
	ok(mw_init(&w, 0, 1000, 0) == -EINVAL, "rtt_cap 0: -EINVAL");
}

static void test_restart_late(void)
{
	struct mesh_window_rec r;
	struct mesh_win w;

	mw_init(&w, 0, 1000, 16);
	for (int i = 0; i < 5; i++)
		mw_send(&w, 10);
	mw_answer(&w, 1, 0xaa, 20);
	ok(w.restarts == 0 && w.epoch == 0xaa, "the first epoch learned is no restart");
	mw_epoch(&w, 0xbb);
	ok(w.restarts == 1 && w.restarted == 4 && w.out_n == 0, "a new epoch: the 4 outstanding restarted");
	ok(mw_answer(&w, 3, 0xbb, 30) == -ENOENT, "a restarted probe's reply: unknown");
	mw_close(&w, 99999, &r);
	ok(r.restarted == 4 && r.lost == 0 && r.late == 0 && r.loss == 0 && r.answered == 1,
	   "restarted never lost nor late: lost %llu late %llu loss %g", (unsigned long long)r.lost,
	   (unsigned long long)r.late, r.loss);
	for (int i = 0; i < 4; i++)
		mw_send(&w, 100000);                            /* 6..9 */
	ok(mw_answer(&w, 8, 0xcc, 100050) == 0 && w.restarted == 2 && w.out_n == 1,
	   "a reply from a new epoch: the 2 sent before it restarted, it answered, the one after kept");
	mw_close(&w, 100060, &r);
	ok(r.restarted == 2 && r.answered == 1 && r.sent == 4 && r.peer_epoch == 0xcc,
	   "...the record: epoch 0xcc, 2 restarted");
	mw_send(&w, 200000);                                    /* 10 */
	mw_expire(&w, 201001);
	ok(w.lost == 2, "one past its timeout lost, and 9 (sent at 100000)");
	ok(mw_answer(&w, 10, 0xcc, 201002) == -ENOENT && w.late == 1, "its reply: late");
	ok(mw_answer(&w, 10, 0xcc, 201003) == -ENOENT && w.late == 1, "...and again: never twice");
	mw_send(&w, 300000);                                    /* 11 */
	ok(mw_answer(&w, 11, 0xcc, 301001) == -ENOENT && w.lost == 3 && w.late == 2 && w.answered == 0,
	   "a reply after the timeout, nothing expired before: lost, then late");
	ok(mw_answer(&w, 11, 0xcc, 300500) == -ENOENT && w.late == 2, "...not answered either");
	mw_send(&w, 400000);                                    /* 12 */
	ok(mw_answer(&w, 12, 0xcc, 401000) == 0 && w.answered == 1 && w.lost == 3,
	   "a reply at exactly the timeout: in time");
	mw_free(&w);
}

static void test_cap(void)
{
	struct mesh_win w;
	uint64_t seq;

	mw_init(&w, 0, 1000000, 4);
	for (int i = 0; i < MW_OUTSTANDING; i++)
		mw_send(&w, 10);
	ok(w.out_n == MW_OUTSTANDING && w.lost == 0, "%d outstanding", MW_OUTSTANDING);
	ok(mw_silent_ns(&w, 110) == 100, "silent: 100 ns since the oldest");
	mw_send(&w, 20);
	ok(w.out_n == MW_OUTSTANDING && w.lost == 1, "one more: the oldest judged lost at once");
	ok(mw_answer(&w, 1, 0, 30) == -ENOENT && w.late == 1, "...its reply late");
	for (int i = 0; i < MW_LATE_SEQS; i++)
		mw_send(&w, 40);
	seq = w.next_seq;
	ok(mw_answer(&w, seq - MW_LATE_SEQS - 1, 0, 50) == -ENOENT && w.late == 1,
	   "a reply to a lost probe sent MW_LATE_SEQS + 1 probes ago: unknown, not late");
	ok(mw_answer(&w, seq - MW_LATE_SEQS, 0, 50) == -ENOENT && w.late == 2,
	   "...MW_LATE_SEQS probes ago: late");
	mw_free(&w);
}

/* n answers in one window, the RTT of seq s s ns (a reservoir that kept
 * the first answers would keep the fastest); the record. */
static void reservoir_window(int cap, int n, struct mesh_window_rec *r, int *kept)
{
	struct mesh_win w;

	mw_init(&w, 0, 1ull << 40, cap);
	for (int i = 0; i < n; i++) {
		uint64_t s = mw_send(&w, 1000000);

		mw_answer(&w, s, 1, 1000000 + s);
	}
	*kept = w.rtt_n;
	ok(w.rtt_seen == (uint64_t)n, "reservoir: %d answers seen", n);
	mw_close(&w, 2000000, r);
	mw_free(&w);
}

static void test_reservoir(void)
{
	struct mesh_window_rec a, b;
	int kept;

	reservoir_window(200, 10007, &a, &kept);
	ok(kept == 200, "...%d RTTs kept, the cap", kept);
	ok(a.rtt_max_us == 10.007, "...max exact beyond the cap: %g us", a.rtt_max_us);
	ok(a.rtt_p50_us > 4.0 && a.rtt_p50_us < 6.0 && a.rtt_p90_us > 8.2 && a.rtt_p90_us < 9.6,
	   "...a uniform sample of 1..10007 ns: p50 %g, p90 %g us (want about 5 and 9)", a.rtt_p50_us,
	   a.rtt_p90_us);
	reservoir_window(200, 10007, &b, &kept);
	ok(a.rtt_p50_us == b.rtt_p50_us && a.rtt_p90_us == b.rtt_p90_us && a.rtt_p99_us == b.rtt_p99_us,
	   "...deterministic: the same again");
}

int main(void)
{
	printf("1..%d\n", PLAN);
	test_random();
	test_loss();
	test_restart_late();
	test_cap();
	test_reservoir();
	if (tap_n != PLAN)
		printf("# planned %d checks, ran %d\n", PLAN, tap_n);
	return tap_failed || tap_n != PLAN;
}
