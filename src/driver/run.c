/*
 * One session end to end (run_session), as a client or embedded in
 * another driver (run_link: rb_mpi, and --load's session); the server's
 * loop over its clients is serve.c's.
 */
#include "driver/run.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "driver/internal.h"
#include "driver/loadrun.h"
#include "driver/loopback.h"
#include "lib/clock.h"
#include "lib/log.h"

/* The failed document (r NULL: an embedded session, none). */
void report_failed(struct report *r, const struct rb_session *s)
{
	if (r)
		report_finish(r, s, "failed", log_first_error());
}

/*
 * One client, from the first message to teardown, into r (opened by the
 * caller; NULL under a driver, rb_mpi).  The client opened the device
 * before it reached the peer.  Returns an exit code.
 */
int run_session(struct rb_session *s, struct report *r)
{
	struct report link_r;
	bool partial = false;
	int err = 0;

	session_timing(s);
	if (!r)
		report_define(&link_r, s);
	err = loadrun_open(s, run_link);
	/* the device first: HELLO carries its limits (-R: rdma_cm picks it later) */
	if (!err && !s->opt->rdma_cm && !s->conn.dev.ctx)
		err = device_open(s->opt->ib_dev, s->opt->ib_port, s->opt->gid_index, &s->conn.dev);
	if (!err)
		err = exchange_hello(s);
	if (!err)
		err = setup_device(s);
	if (!err)
		err = check_atomics(s);
	if (!err)
		err = connect_qps(s);
	if (!err && r)
		report_begin(r, s);
	if (!err)
		err = run_sizes(s, r ? r : &link_r, &partial);
	if (!err && r && r->ivl_below)
		log_err("%llu interval(s) below --min-bw %s (named above)",
			(unsigned long long)r->ivl_below, s->opt->min_bw_text);
	if (!err)
		clock_check_drift();
	if (!err && partial)
		log_warn("size %llu: stopped early (%s); the figures cover what was measured",
			 (unsigned long long)s->run.size, *s->stop ? "interrupted" : "the peer stopped first");
	if (r)
		report_finish(r, s, status_of(err, partial), err ? log_first_error() : NULL);
	session_teardown(s);
	return exit_code(err, partial || (r && r->ivl_below));
}

static int run_client(const struct rb_bench *b, const struct rb_options *o)
{
	/* --reversed: this side connects, the server takes the client's part */
	struct rb_session s = { .bench = b, .opt = o, .is_client = !o->reversed, .stop = &rb_stop };
	struct oob_chan chan;
	struct report r;
	int deadline_ms = (int)(o->timeout_s * 1000), fd, rc, err;

	snprintf(s.conn.peer, sizeof(s.conn.peer), "%s", o->server);
	if (report_open(&r, &s))
		return RB_EXIT_RUNTIME;
	err = check_local(&s, &s.conn.dev);
	fd = err ? -1 : oob_connect(o->server, o->port, deadline_ms);
	if (fd < 0) {
		report_failed(&r, &s);
		device_close(&s.conn.dev);
		return err ? exit_code(err, false) : RB_EXIT_RUNTIME;
	}
	oob_chan_tcp(&chan, fd);
	s.conn.chan = &chan;
	rc = run_session(&s, &r);
	close(fd);
	return rc;
}

void run_init(void)
{
	signals_install();
	srand48((long)getpid() ^ (long)clock_now_ns());
}

int run_bench(const struct rb_bench *b, const struct rb_options *o)
{
	if (placement_check(o->numa_node, o->cpu_list))
		return RB_EXIT_USAGE;
	run_init();
	clock_init(o->clock);
	if (o->loopback)
		return loopback_run(b, o, run_bench);
	return o->server ? run_client(b, o) : run_server(b, o);
}

int run_link(const struct rb_bench *b, const struct rb_options *o, const struct rb_link *l)
{
	struct rb_session s = { .bench = b, .opt = o, .is_client = l->is_client, .link = l,
				.stop = &rb_stop, .conn.chan = l->chan };

	snprintf(s.conn.peer, sizeof(s.conn.peer), "%s", l->peer);
	clock_init_once(o->clock);	/* both ends of a link may get here at once */
	return run_session(&s, NULL);
}
