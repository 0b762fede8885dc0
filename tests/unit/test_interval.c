/* What the intervals of a run show: lowest/highest and when, the
 * coefficient of variation, the intervals under a floor (named, bounded);
 * partial intervals and the floor's rule for them; and the engine's cut of
 * a window into intervals (src/engine/interval.c, window.c) driven by a
 * made-up clock. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/internal.h"
#include "lib/interval.h"
#include "cli/options.h"
#include "tap.h"

static void test_min_max_cv(void)
{
	struct interval_stats st;
	const double bps[] = { 100, 50, 150, 100 };

	interval_stats_init(&st, 0);
	ok(isnan(st.min_bps) && isnan(interval_stats_cv(&st)), "nothing yet: NaN");
	for (int i = 0; i < 4; i++)
		interval_stats_add(&st, i, i + 1, bps[i]);
	ok(st.n == 4 && st.min_bps == 50 && st.min_at_s == 1, "lowest 50 at 1 s");
	ok(st.max_bps == 150 && st.max_at_s == 2, "highest 150 at 2 s");
	/* mean 100, sample stdev sqrt((0 + 2500 + 2500 + 0) / 3) */
	ok(fabs(interval_stats_cv(&st) - sqrt(5000.0 / 3) / 100) < 1e-12, "CV %.6f", interval_stats_cv(&st));
	ok(st.below == 0, "no floor: none below");
}

static void test_below(void)
{
	struct interval_stats st;
	char buf[1024];

	interval_stats_init(&st, 100);
	interval_stats_add(&st, 0, 1, 150);
	interval_stats_add(&st, 1, 2, 99.5);
	interval_stats_add(&st, 2, 3, 100);
	interval_stats_add(&st, 3, 4.5, 10);
	ok(st.below == 2, "two below 100 (100 itself is not)");
	ok(!strcmp(interval_stats_below(&st, buf, sizeof(buf)), "1.000-2.000 s, 3.000-4.500 s"),
	   "named: %s", buf);
	for (int i = 0; i < 20; i++)
		interval_stats_add(&st, 10 + i, 11 + i, 1);
	ok(st.below == 22, "22 below, counted past the named ones");
	interval_stats_below(&st, buf, sizeof(buf));
	ok(strstr(buf, "(and 6 more)") != NULL, "the rest counted: %s", buf);
	ok(!strcmp(interval_stats_below(&st, buf, 8), "1.000-2"), "truncated to the buffer: %s", buf);
}

/* The floor's rule, over a grid: whole intervals on their rate; partial
 * ones under it only when their bound is, not judged when only the rate is. */
static void test_floor_rule(void)
{
	const double rates[] = { 0, 50, 99.999, 100, 100.001, 1e9 };
	const double extra[] = { 0, 0.001, 1, 1e6 };
	int bad = 0, cases = 0;

	for (unsigned a = 0; a < sizeof(rates) / sizeof(rates[0]); a++)
		for (unsigned b = 0; b < sizeof(extra) / sizeof(extra[0]); b++)
			for (int partial = 0; partial < 2; partial++) {
				struct interval_obs o = { 0, 1, rates[a], partial, rates[a] + extra[b] };
				bool want_below = partial ? o.bound_bps < 100 : o.bps < 100;
				bool want_judged = !partial || o.bps >= 100 || o.bound_bps < 100;

				cases++;
				bad += interval_below_floor(100, &o) != want_below;
				bad += interval_judgeable(100, &o) != want_judged;
				bad += interval_below_floor(0, &o) || !interval_judgeable(0, &o);
			}
	ok(bad == 0 && cases == 48, "floor rule over %d cases: %d wrong", cases, bad);
}

/* The cases: 1 MiB messages, -Q 1, one QP, floor 1 Kb/s (125 B/s). */
static void test_floor_partial_cases(void)
{
	struct interval_obs o;

	/* SIGINT 1 ms into an interval, no completion in it */
	o = interval_obs_make(3.45, 3.451, 0, true, 1048576);
	ok(!interval_below_floor(125, &o) && !interval_judgeable(125, &o),
	   "an empty 1 ms tail at 1 MiB/completion: not judged (bound %.0f B/s)", o.bound_bps);
	/* the same tail, whole: a whole empty interval is below */
	o = interval_obs_make(3.45, 3.451, 0, false, 1048576);
	ok(interval_below_floor(125, &o), "an empty whole interval: below");
	/* a stall over 0.9 s of a 1 s interval at a 10 Gb/s floor, 64 KiB, -Q 16, 2 QPs */
	o = interval_obs_make(7, 7.9, 10 * 65536.0, true, 2 * 16 * 65536.0);
	ok(interval_below_floor(1.25e9, &o) && interval_judgeable(1.25e9, &o),
	   "a partial 0.9 s at %.2f MB/s (bound %.2f MB/s): below 10 Gb/s", o.bps / 1e6, o.bound_bps / 1e6);
	/* a partial interval long and healthy: not below, judged */
	o = interval_obs_make(7, 7.5, 1e9, true, 65536.0);
	ok(!interval_below_floor(1.25e9, &o) && interval_judgeable(1.25e9, &o) && o.bps == 2e9,
	   "a healthy partial 0.5 s at 2 GB/s: judged, above");
	/* zero width: no rate, never below */
	o = interval_obs_make(2, 2, 0, true, 1);
	ok(isnan(o.bps) && !interval_below_floor(125, &o), "a zero-width interval has no rate");
}

/* Partial intervals stay out of the lowest, highest, CV and widths. */
static void test_observe_partial(void)
{
	struct interval_stats st;
	struct interval_obs o;
	char buf[256];

	interval_stats_init(&st, 100);
	interval_stats_add(&st, 0, 1.02, 200);
	interval_stats_add(&st, 1.02, 2.5, 300);
	o = interval_obs_make(2.5, 2.501, 0, true, 1000);
	interval_stats_observe(&st, &o);
	ok(st.n == 3 && st.whole == 2 && st.partial == 1 && st.unjudged == 1 && st.below == 0,
	   "3 intervals: 2 whole, 1 partial not judged, none below");
	ok(st.min_bps == 200 && st.max_bps == 300 && st.min_at_s == 0 && st.max_at_s == 1.02,
	   "lowest and highest from the whole ones");
	ok(fabs(st.min_width_s - 1.02) < 1e-12 && fabs(st.max_width_s - 1.48) < 1e-12,
	   "widths %.3f-%.3f s", st.min_width_s, st.max_width_s);
	ok(fabs(interval_stats_cv(&st) - sqrt(5000.0) / 250) < 1e-12, "CV over the whole ones");
	o = interval_obs_make(2.501, 3.4, 10, true, 10);
	interval_stats_observe(&st, &o);
	ok(st.below == 1 && st.unjudged == 1 && st.partial == 2 &&
	   !strcmp(interval_stats_below(&st, buf, sizeof(buf)), "2.501-3.400 s"),
	   "a partial one whose bound is under the floor is named: %s", buf);
	interval_stats_init(&st, 0);
	o = interval_obs_make(0, 0.003, 0, true, 1);
	interval_stats_observe(&st, &o);
	ok(st.n == 1 && st.whole == 0 && isnan(st.min_bps) && isnan(st.min_width_s) && st.unjudged == 0,
	   "only a partial one, no floor: no lowest, nothing unjudged");
}

/* ---- the engine's cut, driven by a made-up clock ---- */

struct cut {
	int n;
	uint64_t start[64], end[64], msgs[64];
	bool partial[64];
	uint64_t origin;
	struct rb_interval_sink sink;   /* the session's, to on_ivl */
};

static void on_ivl(void *arg, struct rb_session *s, const struct rb_measure *im, uint64_t origin)
{
	struct cut *c = arg;

	(void)s;
	if (c->n < 64) {
		c->start[c->n] = im->start_ns;
		c->end[c->n] = im->end_ns;
		c->msgs[c->n] = im->msgs;
		c->partial[c->n] = im->partial;
	}
	c->origin = origin;
	c->n++;
}

static const struct rb_bench bw_bench = { .name = "rb_write_bw", .metric = METRIC_BW };

/* A session with --interval=every_s, -D duration_s (0: none, -1:
 * --run_infinitely) and warmup_s. */
static void session_make(struct rb_session *s, struct rb_options *o, struct cut *c,
			 double every_s, double duration_s, double warmup_s)
{
	memset(o, 0, sizeof(*o));
	memset(s, 0, sizeof(*s));
	memset(c, 0, sizeof(*c));
	o->interval_s = every_s;
	s->opt = o;
	s->bench = &bw_bench;
	c->sink = (struct rb_interval_sink){ on_ivl, c };
	s->intervals = &c->sink;
	s->run.size = 4096;
	s->run.duration_ns = duration_s < 0 ? UINT64_MAX / 2 : (uint64_t)(duration_s * 1e9);
	s->run.warmup_ns = (uint64_t)(warmup_s * 1e9);
}

/* Ticks every step_ns (plus a pseudo-random jitter under jitter_ns) from
 * t0, one message per tick, until the window ends or stop_ns (then the
 * loop's end closes it, as SIGINT does).  Returns the window. */
static struct window drive(struct rb_session *s, struct ivl *iv, uint64_t t0, uint64_t step_ns,
			   uint64_t jitter_ns, uint64_t stop_ns)
{
	struct window win;
	uint64_t now = t0, msgs = 0, seed = 12345;

	window_init_at(&win, s, t0);
	while (now < stop_ns) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		now += step_ns + (jitter_ns ? (seed >> 33) % jitter_ns : 0);
		msgs++;
		if (s->run.duration_ns && window_tick_at(&win, s, now, msgs, 0)) {
			ivl_tick(iv, s, &win, now, msgs, 0);
			break;
		}
		ivl_tick(iv, s, &win, now, msgs, 0);
	}
	if (s->run.duration_ns && win.phase < 2)
		window_tick_at(&win, s, now, msgs, 0);
	window_close_rx(&win, now, msgs, 0);
	ivl_finish(iv, s, &win);
	return win;
}

/* The intervals tile the window: none lost, none overlapping, counts add up. */
static bool tiles(const struct cut *c, const struct window *win)
{
	uint64_t sum = 0;

	if (c->n == 0 || c->n > 64 || c->start[0] != win->begin_ns || c->end[c->n - 1] != win->end_ns)
		return false;
	for (int i = 0; i < c->n; i++) {
		sum += c->msgs[i];
		if (i && c->start[i] != c->end[i - 1])
			return false;
	}
	return sum == win->end_msgs - win->begin_msgs;
}

/* -D 6 --warmup-time 1 --interval=1, a tick every ~1 ms: 5 whole
 * intervals, none partial (the window ends on the grid), each ending at
 * the first tick past its grid point: 1 s wide give or take a tick. */
static void test_engine_duration(void)
{
	struct rb_session s;
	struct rb_options o;
	struct cut c;
	struct ivl iv;
	struct window win;
	int whole = 0, wide_ok = 1;

	session_make(&s, &o, &c, 1, 6, 1);
	ivl_init(&iv, &s);
	win = drive(&s, &iv, 1000, 1000000, 500000, UINT64_MAX / 4);
	for (int i = 0; i < c.n && i < 64; i++) {
		whole += !c.partial[i];
		wide_ok &= c.end[i] - c.start[i] > 998500000u && c.end[i] - c.start[i] < 1001500000u &&
			   c.end[i] >= win.begin_ns + (uint64_t)(i + 1) * 1000000000u;
	}
	ok(c.n == 5 && whole == 5 && tiles(&c, &win), "-D 6 -W 1 --interval=1: %d intervals, %d whole, tiling the window", c.n, whole);
	ok(wide_ok, "each ends past its grid point, 1 s wide +- a tick (< 1.5 ms)");
	ok(win.end_ns - win.begin_ns >= 5000000000u && c.origin == win.begin_ns,
	   "the window measures 5 s from the warm-up's end (%.6f s)", (double)(win.end_ns - win.begin_ns) / 1e9);
	/* -D 2.5 --warmup-time 0.5 --interval=0.3: 6 whole, the 7th partial (0.2 s) */
	session_make(&s, &o, &c, 0.3, 2.5, 0.5);
	ivl_init(&iv, &s);
	win = drive(&s, &iv, 1000, 1000000, 0, UINT64_MAX / 4);
	ok(c.n == 7 && !c.partial[5] && c.partial[6] && tiles(&c, &win),
	   "-D 2.5 --interval=0.3: 7 intervals, the last partial (%.3f s)", (double)(c.end[6] - c.start[6]) / 1e9);
}

/* --run_infinitely stopped (SIGINT: the loop's end) at many points: the
 * last interval is partial unless it reached its boundary; the window's
 * end is always set, never INT64_MAX. */
static void test_engine_sigint(void)
{
	struct rb_session s;
	struct rb_options o;
	struct cut c;
	struct ivl iv;
	struct window win;
	int bad = 0, runs = 0;

	for (uint64_t stop = 1000000000u; stop < 1400000000u; stop += 7777777u) {
		session_make(&s, &o, &c, 0.05, -1, 1);
		ivl_init(&iv, &s);
		win = drive(&s, &iv, 0, 100000, 0, stop);
		runs++;
		if (win.phase != 2 || win.end_ns > stop + 100000 || win.end_ns < win.begin_ns)
			bad++;
		else if (c.n && (!tiles(&c, &win) ||
				 c.partial[c.n - 1] != (c.end[c.n - 1] - c.start[c.n - 1] < 50000000u)))
			bad++;
		for (int i = 0; i + 1 < c.n && i < 63; i++)
			bad += c.partial[i];
	}
	ok(runs > 40 && bad == 0, "--run_infinitely --interval=0.05 stopped at %d points: windows closed, only the last interval partial, when short of 0.05 s", runs);
	/* stopped in the warm-up: an empty window, no interval */
	session_make(&s, &o, &c, 0.05, -1, 1);
	ivl_init(&iv, &s);
	win = drive(&s, &iv, 0, 100000, 0, 500000000u);
	ok(c.n == 0 && win.end_ns == win.begin_ns && win.end_ns == 500000000u,
	   "stopped in the warm-up: no interval, an empty window at the stop");
	/* stopped 2 ms after the warm-up: one partial interval of 2 ms */
	session_make(&s, &o, &c, 0.05, -1, 1);
	ivl_init(&iv, &s);
	win = drive(&s, &iv, 0, 100000, 0, 1002000000u);
	ok(c.n == 1 && c.partial[0] && c.end[0] - c.start[0] <= 2100000u && win.end_ns < 2000000000u,
	   "stopped 2 ms after the warm-up: one partial interval (%.4f s), the window's end set",
	   (double)(c.end[0] - c.start[0]) / 1e9);
}

/* -D 2 --warmup-time 0.5, the loop stalled 3 s before its first look
 * (t_50's stall case): the warm-up's end was seen only after the whole -D
 * had passed, so the window closes empty at once (the run fails, saying so)
 * rather than measuring 1.5 s from then. */
static void test_window_stalled(void)
{
	struct rb_session s;
	struct rb_options o;
	struct cut c;
	struct window win;

	session_make(&s, &o, &c, 0, 2, 0.5);
	window_init_at(&win, &s, 1000);
	ok(window_tick_at(&win, &s, 1000 + 3000000000u, 1, 0) && win.end_msgs == win.begin_msgs &&
	   win.end_ns == win.begin_ns, "-D 2, first look at 3 s: the window closed empty");
	window_init_at(&win, &s, 1000);
	ok(!window_tick_at(&win, &s, 1000 + 600000000u, 1, 0) &&
	   window_tick_at(&win, &s, 1000 + 2100000000u, 9, 0) && win.end_msgs - win.begin_msgs == 8,
	   "-D 2, first look at 0.6 s: open, closed at 2.1 s with the 8 messages between");
}

/* A loop that looks at the clock once per burst (CI run 11: -s 1M, 0.6 to
 * 1.4 s between looks, --interval=0.05), its last look `before` ns short of
 * a grid point, then SIGINT: the loop's end looks again `after` ns past
 * it.  Every whole interval covers at least half of --interval, whatever
 * the looks' place against the grid. */
static void drive_looks(struct rb_session *s, struct ivl *iv, struct window *win,
			const uint64_t *t, int n)
{
	window_init_at(win, s, 0);
	for (int i = 0; i < n; i++) {
		window_tick_at(win, s, t[i], (uint64_t)i + 1, 0);
		ivl_tick(iv, s, win, t[i], (uint64_t)i + 1, 0);
	}
	window_close_rx(win, t[n - 1], (uint64_t)n, 0);
	ivl_finish(iv, s, win);
}

static void test_engine_bursty(void)
{
	struct rb_session s;
	struct rb_options o;
	struct cut c;
	struct ivl iv;
	struct window win;
	int bad = 0, runs = 0;

	for (uint64_t before = 1000; before < 49000000u; before += 3999991u)
		for (uint64_t after = 1000; after < 60000000u; after += 7000001u) {
			/* warm-up 1 s; looks at 1.8, 2.6, then just short of 3.5 s */
			uint64_t t[5] = { 1000000000u, 1800000000u, 2600000000u, 3500000000u - before,
					  3500000000u + after };

			session_make(&s, &o, &c, 0.05, -1, 1);
			ivl_init(&iv, &s);
			drive_looks(&s, &iv, &win, t, 5);
			runs++;
			bad += !tiles(&c, &win);
			for (int i = 0; i < c.n && i < 64; i++)
				bad += !c.partial[i] && c.end[i] - c.start[i] < 25000000u;
			ivl_free(&iv);
		}
	ok(runs > 100 && bad == 0, "looks 0.8 s apart, --interval=0.05, the last just short of a grid point, SIGINT just past it (%d runs): no whole interval under 0.025 s", runs);
}

/* The stop (SIGINT) seen `after` ns past the last close with no message
 * since (a post of 1 MiB messages between: a loaded boot saw 0.06 s): the
 * last interval is partial however far past its boundary, the stop flag
 * set; the same end without the flag (a -D window's) is whole once past. */
static int stopped_last_partial(uint64_t after, const volatile sig_atomic_t *flag)
{
	const uint64_t t[3] = { 1000000000u, 1800000000u, 2600000000u };
	struct rb_session s;
	struct rb_options o;
	struct cut c;
	struct ivl iv;
	struct window win;

	session_make(&s, &o, &c, 0.05, -1, 1);
	s.stop = flag;
	ivl_init(&iv, &s);
	window_init_at(&win, &s, 0);
	for (int i = 0; i < 3; i++) {
		window_tick_at(&win, &s, t[i], (uint64_t)i + 1, 0);
		ivl_tick(&iv, &s, &win, t[i], (uint64_t)i + 1, 0);
	}
	window_close_rx(&win, t[2] + after, 3, 0);
	ivl_finish(&iv, &s, &win);
	ivl_free(&iv);
	return c.n >= 2 && tiles(&c, &win) && !c.partial[c.n - 2] ? c.partial[c.n - 1] : -1;
}

static void test_engine_stopped(void)
{
	static const volatile sig_atomic_t set = 1, clear = 0;
	int bad_set = 0, bad_clear = 0, runs = 0;

	for (uint64_t after = 1000000u; after < 300000000u; after += 3333333u) {
		int want_clear = after < 50000000u; /* the next boundary: 2.65 s */

		runs++;
		bad_set += stopped_last_partial(after, &set) != 1;
		if (after < 45000000u || after > 55000000u)
			bad_clear += stopped_last_partial(after, &clear) != want_clear;
	}
	ok(runs > 80 && bad_set == 0, "the stop seen 0.001-0.3 s past the last close, no message since (%d runs): the last interval partial every time", runs);
	ok(bad_clear == 0, "the same end without the stop flag: partial only short of its boundary");
}

int main(void)
{
	test_window_stalled();
	test_min_max_cv();
	test_below();
	test_floor_rule();
	test_floor_partial_cases();
	test_observe_partial();
	test_engine_duration();
	test_engine_sigint();
	test_engine_bursty();
	test_engine_stopped();
	return tap_done();
}
