/*
 * The window of a duration run (-D): warm-up, then measure, then stop,
 * advanced with the message counts a loop already keeps.
 */
#include "engine/internal.h"

/* --cpu_util: the thread's CPU and the host's /proc/stat at an edge
 * (twice a window, never per message). */
static void window_cpu(struct window *win, const struct rb_session *s, int edge)
{
	if (s->opt->cpu_util)
		cpu_mark_read(&win->cpu[edge]);
}

/* A window that starts (its warm-up first) at t0. */
void window_init_at(struct window *win, const struct rb_session *s, uint64_t t0)
{
	*win = (struct window){ .t0 = t0, .begin_ns = t0 };
	win->phase = s->run.duration_ns ? 0 : 1;
	if (s->run.duration_ns && !s->run.warmup_ns)
		win->phase = 1;
	if (win->phase == 1)
		window_cpu(win, s, 0);
}

void window_init(struct window *win, const struct rb_session *s)
{
	window_init_at(win, s, clock_now_ns());
}

/* Advance the window with the messages counted so far (and the receives
 * of -b with sends); true once done. */
bool window_tick_rx(struct window *win, const struct rb_session *s, uint64_t msgs,
			   uint64_t rx)
{
	return window_tick_at(win, s, clock_now_ns(), msgs, rx);
}

/* What the window measures: -D less the warm-up, from the warm-up's end
 * as the loop saw it (so that --interval's grid, which starts there, fits
 * a window of whole intervals exactly). */
static uint64_t window_span(const struct rb_session *s)
{
	return s->run.duration_ns > s->run.warmup_ns ? s->run.duration_ns - s->run.warmup_ns : 0;
}

/* Is the window over at now?  A warm-up whose end the loop first saw only
 * after the whole -D had passed (the loop stalled through it) measured
 * nothing: the window closes empty at once, and the run says so. */
static bool window_over(const struct window *win, const struct rb_session *s, uint64_t now)
{
	if (win->begin_ns - win->t0 >= s->run.duration_ns)
		return true;
	return now - win->begin_ns >= window_span(s);
}

/* window_tick_rx with the clock value the caller read. */
bool window_tick_at(struct window *win, const struct rb_session *s, uint64_t now,
		    uint64_t msgs, uint64_t rx)
{
	if (win->phase == 0 && now - win->t0 >= s->run.warmup_ns) {
		win->phase = 1;
		win->begin_ns = now;
		win->begin_msgs = msgs;
		win->begin_rx = rx;
		window_cpu(win, s, 0);
	}
	if (win->phase == 1 && window_over(win, s, now)) {
		window_cpu(win, s, 1);
		win->phase = 2;
		win->end_ns = now;
		win->end_msgs = msgs;
		win->end_rx = rx;
	}
	return win->phase == 2;
}

bool window_tick(struct window *win, const struct rb_session *s, uint64_t msgs)
{
	return window_tick_rx(win, s, msgs, 0);
}

/*
 * The loop ended before the window did (the peer stopped first, SIGINT):
 * the window closes at end_ns with msgs.  One that never opened (still in
 * warm-up) measured nothing: it is empty, and the run says so.
 */
void window_close_rx(struct window *win, uint64_t end_ns, uint64_t msgs, uint64_t rx)
{
	if (win->phase == 2)
		return;
	if (win->phase == 0) {
		win->begin_ns = end_ns;
		win->begin_msgs = msgs;
		win->begin_rx = rx;
		win->cpu[0] = win->cpu[1];	/* empty: no CPU either */
	} else if (win->cpu[0].ok) {
		cpu_mark_read(&win->cpu[1]);
	}
	win->phase = 2;
	win->end_ns = end_ns;
	win->end_msgs = msgs;
	win->end_rx = rx;
}

void window_close(struct window *win, uint64_t end_ns, uint64_t msgs)
{
	window_close_rx(win, end_ns, msgs, 0);
}

void measure_window(struct rb_measure *m, const struct window *win, uint64_t size)
{
	m->start_ns = win->begin_ns;
	m->end_ns = win->end_ns;
	m->msgs = win->end_msgs - win->begin_msgs;
	m->bytes = m->msgs * size;
	m->measured = true;
	measure_cpu(m, win);
}

void measure_cpu(struct rb_measure *m, const struct window *win)
{
	cpu_use_between(&win->cpu[0], &win->cpu[1], &m->cpu);
}
