/* The session's pure parts: the last size of a run (one function for the
 * buffers, the size loop and the report) and the size loop's measure
 * from its workers (one, or -j's threads' total). */
#include "driver/internal.h"
#include "tap.h"

#include <math.h>
#include <string.h>

static void test_last_size(void)
{
	struct rb_options o;

	memset(&o, 0, sizeof(o));
	o.size = 65536;
	o.transport = TR_RC;
	is_int(session_last_size(&o, 0), 65536, "-s 65536: the last size is -s");
	o.transport = TR_UD;
	o.size = 2048;
	is_int(session_last_size(&o, 1024), 2048, "UD -s 2048: -s, whatever the MTU (the size loop refuses it)");
	o.all = true;
	is_int(session_last_size(&o, 1024), 1024, "UD -a, path MTU 1024: the sweep ends at 1024");
	is_int(session_last_size(&o, 0), 4096, "UD -a, MTU not known yet (the buffers): 4096");
	o.transport = TR_UC;
	is_int(session_last_size(&o, 1024), RB_SWEEP_MAX, "UC -a: RB_SWEEP_MAX, the MTU no limit");
}

static struct rb_measure measure(uint64_t msgs, uint64_t start, uint64_t end, bool partial)
{
	return (struct rb_measure){ .msgs = msgs, .bytes = msgs * 4096, .start_ns = start,
				    .end_ns = end, .peak_bps = 1e9, .measured = true,
				    .partial = partial, .wrs_posted = msgs, .wrs_signaled = msgs / 4 };
}

static void test_one_worker(void)
{
	struct rb_worker w = { .m = measure(1000, 10, 20, false) };
	struct rb_measure sum, *m = workers_sum(&w, 1, &sum);

	ok(m == &w.m, "one worker: the size's measure is its own (its samples, its peak)");
	is_near(m->peak_bps, 1e9, 0, "one worker: its peak kept");
}

static void test_threads_total(void)
{
	struct rb_worker w[3] = { { .m = measure(1000, 30, 90, false) },
				  { .m = measure(2000, 10, 80, true) },
				  { .m = measure(500, 20, 100, false) } };
	struct rb_measure sum, *m = workers_sum(w, 3, &sum);

	ok(m == &sum, "-j 3: the measure is the total, apart from the threads'");
	is_int(m->msgs, 3500, "-j 3: messages summed exactly");
	is_int(m->bytes, 3500 * 4096, "-j 3: bytes summed exactly");
	is_int(m->start_ns, 10, "-j 3: the window opens at the earliest thread's start");
	is_int(m->end_ns, 100, "-j 3: and closes at the latest thread's end");
	ok(isnan(m->peak_bps), "-j 3: no peak (the threads' peaks need not coincide)");
	ok(m->partial && m->measured, "-j 3: partial when any thread was, measured when any was");
	is_int(m->wrs_posted, 3500, "-j 3: posted WRs summed");
	is_int(m->wrs_signaled, 250 + 500 + 125, "-j 3: signalled WRs summed");
	is_int(m->rx_start_ns, m->rx_end_ns, "-j 3: no receives: an empty receive window");
}

int main(void)
{
	test_last_size();
	test_one_worker();
	test_threads_total();
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
