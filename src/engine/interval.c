/*
 * --interval in the loops: each interval just ended goes to the session's
 * on_interval as a measure of its own (bandwidth: its messages; latency:
 * its histogram, then reset), so nothing grows with the run's length.
 * One that ended before its boundary (the run's end cut it short) is
 * marked partial.  An interval's boundary is the end of the slot nearest
 * its start: the loop closes intervals late (at its first look at the
 * clock past the boundary), and one closed just short of the next
 * boundary leaves that slot to the interval before (CI run 11: a last
 * interval of 0.3 ms with no message, begun 1 us before a boundary, was
 * judged whole against --min-bw).  One the stop ended (SIGINT, SIGTERM)
 * is partial wherever its boundary was: the loop stopped counting its
 * messages in flight (a boot beside busy loops: a stop seen 0.06 s after
 * the last close, a post of 1 MiB messages between, no completion).
 */
#include "engine/internal.h"

int ivl_init(struct ivl *iv, const struct rb_session *s)
{
	memset(iv, 0, sizeof(*iv));
	if (!s->intervals || s->opt->interval_s <= 0)
		return 0;
	iv->every_ns = (uint64_t)(s->opt->interval_s * 1e9);
	if (s->bench->metric == METRIC_LAT) {
		iv->hist = histogram_new();
		if (!iv->hist)
			return -ENOMEM;
	}
	return 0;
}

void ivl_free(struct ivl *iv)
{
	histogram_free(iv->hist);
	iv->hist = NULL;
}

static void ivl_emit(struct ivl *iv, struct rb_session *s, uint64_t end_ns, uint64_t msgs,
		     uint64_t rx)
{
	struct rb_measure im = { .start_ns = iv->begin_ns, .end_ns = end_ns,
				 .msgs = msgs - iv->begin_msgs, .hist = iv->hist,
				 .peak_bps = __builtin_nan(""), .measured = true,
				 .partial = end_ns < iv->next_ns || iv->cut };

	im.bytes = im.msgs * s->run.size;
	im.rx_measured = s->bench->verb == VERB_SEND && s->opt->bidir && s->bench->metric != METRIC_LAT;
	im.rx_msgs = rx - iv->begin_rx;
	im.rx_start_ns = iv->begin_ns;
	im.rx_end_ns = end_ns;
	if (end_ns > iv->begin_ns)
		s->intervals->fn(s->intervals->arg, s, &im, iv->origin_ns);
	if (iv->hist)
		histogram_reset(iv->hist);
	iv->begin_ns = end_ns;
	iv->begin_msgs = msgs;
	iv->begin_rx = rx;
}

/* The first interval starts with the window (after the warm-up). */
static void ivl_start(struct ivl *iv, const struct window *win)
{
	iv->origin_ns = iv->begin_ns = win->begin_ns;
	iv->begin_msgs = win->begin_msgs;
	iv->begin_rx = win->begin_rx;
	iv->next_ns = win->begin_ns + iv->every_ns;
}

void ivl_step(struct ivl *iv, struct rb_session *s, const struct window *win, uint64_t now,
	      uint64_t msgs, uint64_t rx)
{
	if (win->phase == 0)
		return;
	if (!iv->next_ns)
		ivl_start(iv, win);
	if (win->phase == 2) {
		ivl_finish(iv, s, win);
		return;
	}
	if (now < iv->next_ns)
		return;
	ivl_emit(iv, s, now, msgs, rx);
	while (iv->next_ns <= now + iv->every_ns / 2)
		iv->next_ns += iv->every_ns;
}

void ivl_finish(struct ivl *iv, struct rb_session *s, const struct window *win)
{
	if (!iv->every_ns || iv->done)
		return;
	if (!iv->next_ns)
		ivl_start(iv, win);
	iv->done = true;
	iv->cut = s->stop && *s->stop;
	ivl_emit(iv, s, win->end_ns, win->end_msgs, win->end_rx);
}
