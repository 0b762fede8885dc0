/*
 * One peer's window (mesh_window.h).  The outstanding probes are a ring
 * in send order (sequence numbers increasing from the head), so the
 * oldest is always at the head: expiring and restarting pop from it, an
 * answer removes from anywhere and closes the gap.
 */
#include "prog/mesh/mesh_window.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct mw_probe *ring_at(struct mesh_win *w, int i)
{
	return &w->out[(w->out_head + i) % MW_OUTSTANDING];
}

static void ring_pop(struct mesh_win *w)
{
	w->out_head = (w->out_head + 1) % MW_OUTSTANDING;
	w->out_n--;
}

/* Remove the i-th oldest: the younger ones move down one. */
static void ring_remove(struct mesh_win *w, int i)
{
	for (; i + 1 < w->out_n; i++)
		*ring_at(w, i) = *ring_at(w, i + 1);
	w->out_n--;
}

static void lost_mark(struct mesh_win *w, uint64_t seq, int on)
{
	uint64_t bit = 1ull << (seq % 64);
	uint64_t *word = &w->lost_bits[(seq % MW_LATE_SEQS) / 64];

	*word = on ? *word | bit : *word & ~bit;
}

/* Was seq judged lost, and still one of the last MW_LATE_SEQS sent? */
static int lost_known(const struct mesh_win *w, uint64_t seq)
{
	if (seq == 0 || seq >= w->next_seq || w->next_seq - seq > MW_LATE_SEQS)
		return 0;
	return (int)(w->lost_bits[(seq % MW_LATE_SEQS) / 64] >> (seq % 64) & 1);
}

/* The oldest outstanding probe is judged lost. */
static void lose_oldest(struct mesh_win *w)
{
	lost_mark(w, ring_at(w, 0)->seq, 1);
	ring_pop(w);
	w->lost++;
}

int mw_init(struct mesh_win *w, uint64_t now_ns, uint64_t timeout_ns, int rtt_cap)
{
	memset(w, 0, sizeof(*w));
	if (rtt_cap < 1)
		return -EINVAL;
	w->rtt_ns = calloc((size_t)rtt_cap, sizeof(*w->rtt_ns));
	if (!w->rtt_ns)
		return -ENOMEM;
	w->rtt_cap = rtt_cap;
	w->timeout_ns = timeout_ns;
	w->start_ns = now_ns;
	w->next_seq = 1;
	return 0;
}

void mw_free(struct mesh_win *w)
{
	free(w->rtt_ns);
	w->rtt_ns = NULL;
	w->rtt_cap = w->rtt_n = 0;
}

uint64_t mw_send(struct mesh_win *w, uint64_t now_ns)
{
	uint64_t seq = w->next_seq++;

	if (w->out_n == MW_OUTSTANDING)
		lose_oldest(w);
	lost_mark(w, seq, 0);           /* the slot of seq - MW_LATE_SEQS, gone */
	*ring_at(w, w->out_n++) = (struct mw_probe){ .seq = seq, .sent_ns = now_ns, .epoch = w->epoch };
	w->sent++;
	return seq;
}

void mw_expire(struct mesh_win *w, uint64_t now_ns)
{
	while (w->out_n && now_ns > ring_at(w, 0)->sent_ns &&
	       now_ns - ring_at(w, 0)->sent_ns > w->timeout_ns)
		lose_oldest(w);
}

/* The outstanding probes sent before seq (all: UINT64_MAX) restarted. */
static void restart_before(struct mesh_win *w, uint64_t seq)
{
	while (w->out_n && ring_at(w, 0)->seq < seq) {
		ring_pop(w);
		w->restarted++;
	}
}

/* The peer said epoch: a change from a known one restarts what was sent
 * before seq (the run that ended had them). */
static void learn_epoch(struct mesh_win *w, uint64_t epoch, uint64_t seq)
{
	if (!epoch || epoch == w->epoch)
		return;
	if (w->epoch) {
		w->restarts++;
		restart_before(w, seq);
	}
	w->epoch = epoch;
	for (int i = 0; i < w->out_n; i++)
		ring_at(w, i)->epoch = epoch;
}

void mw_epoch(struct mesh_win *w, uint64_t epoch)
{
	learn_epoch(w, epoch, UINT64_MAX);
}

/* splitmix64: the reservoir's draw for an answer, from its seq. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Algorithm R: the k-th answer (from 1) replaces a kept RTT with
 * probability rtt_cap / k, so the kept ones are a uniform sample. */
static void rtt_keep(struct mesh_win *w, uint64_t seq, uint64_t rtt)
{
	uint32_t v = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt;
	uint64_t j;

	w->rtt_seen++;
	if (rtt > w->rtt_max_ns)
		w->rtt_max_ns = rtt;
	if (w->rtt_n < w->rtt_cap) {
		w->rtt_ns[w->rtt_n++] = v;
		return;
	}
	j = mix(seq) % w->rtt_seen;
	if (j < (uint64_t)w->rtt_cap)
		w->rtt_ns[j] = v;
}

int mw_answer(struct mesh_win *w, uint64_t seq, uint64_t epoch, uint64_t now_ns)
{
	mw_expire(w, now_ns);
	learn_epoch(w, epoch, seq);
	for (int i = 0; i < w->out_n; i++) {
		struct mw_probe *p = ring_at(w, i);

		if (p->seq != seq)
			continue;
		rtt_keep(w, seq, now_ns > p->sent_ns ? now_ns - p->sent_ns : 0);
		ring_remove(w, i);
		w->answered++;
		return 0;
	}
	if (lost_known(w, seq)) {
		lost_mark(w, seq, 0);
		w->late++;
	}
	return -ENOENT;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the ceil(n * permille / 1000)-th smallest, in us. */
static double rank_us(const uint32_t *sorted, int n, unsigned permille)
{
	uint64_t r = ((uint64_t)n * permille + 999) / 1000;

	return sorted[r ? r - 1 : 0] / 1e3;
}

static void fill_rtts(struct mesh_win *w, struct mesh_window_rec *r)
{
	if (!w->rtt_n) {
		r->rtt_p50_us = r->rtt_p90_us = r->rtt_p99_us = r->rtt_max_us = NAN;
		return;
	}
	qsort(w->rtt_ns, (size_t)w->rtt_n, sizeof(*w->rtt_ns), u32_cmp);
	r->rtt_p50_us = rank_us(w->rtt_ns, w->rtt_n, 500);
	r->rtt_p90_us = rank_us(w->rtt_ns, w->rtt_n, 900);
	r->rtt_p99_us = rank_us(w->rtt_ns, w->rtt_n, 990);
	r->rtt_max_us = (double)w->rtt_max_ns / 1e3;
}

void mw_close(struct mesh_win *w, uint64_t now_ns, struct mesh_window_rec *r)
{
	mw_expire(w, now_ns);
	r->peer_epoch = w->epoch;
	r->sent = w->sent;
	r->answered = w->answered;
	r->lost = w->lost;
	r->restarted = w->restarted;
	r->late = w->late;
	r->loss = w->answered + w->lost ? (double)w->lost / (double)(w->answered + w->lost) : 0;
	fill_rtts(w, r);
	w->sent = w->answered = w->lost = w->restarted = w->late = 0;
	w->rtt_n = 0;
	w->rtt_seen = w->rtt_max_ns = 0;
	w->start_ns = now_ns;
}

uint64_t mw_silent_ns(const struct mesh_win *w, uint64_t now_ns)
{
	const struct mw_probe *p = &w->out[w->out_head];

	return w->out_n && now_ns > p->sent_ns ? now_ns - p->sent_ns : 0;
}
