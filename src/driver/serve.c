/* The server: one client after another (--persistent) on its port, each
 * client's session its own document. */
#include "driver/internal.h"

#include <unistd.h>

#include "lib/log.h"

/* A server fails at once on an output file, device, port, GID index or -W
 * counter that cannot work, not when its first client comes. */
static int server_check_local(const struct rb_session *s)
{
	struct rb_device d = { 0 };
	int err = check_local(s, &d);

	device_close(&d);
	return err;
}

/* Serve one client on fd into r (opened: the first at start, the next
 * ones here, each its own document).  Returns an exit code. */
static int serve_client(struct rb_session *s, struct report *r, bool first, int fd)
{
	struct oob_chan chan;

	log_verbose("client %s connected", s->conn.peer);
	log_clear_error();
	if (!first && report_open(r, s))
		return RB_EXIT_RUNTIME;
	oob_chan_tcp(&chan, fd);
	s->conn.chan = &chan;
	return run_session(s, r);
}

int run_server(const struct rb_bench *b, const struct rb_options *o)
{
	struct rb_session s0 = { .bench = b, .opt = o, .stop = &rb_stop };
	struct oob_listener l;
	struct report r;
	bool first = true;
	int rc, err;

	if (report_open(&r, &s0))
		return RB_EXIT_RUNTIME;
	err = server_check_local(&s0);
	if (!err && oob_listen(&l, o->bind_addr, o->port))
		err = -EADDRINUSE;
	if (err) {
		report_failed(&r, &s0);
		return exit_code(err, false);
	}
	log_info("waiting for a client on port %u%s", o->port, o->persistent ? " (--persistent)" : "");
	rc = RB_EXIT_RUNTIME;	/* a signal before any client ends in failure */
	do {
		struct rb_session s = { .bench = b, .opt = o, .is_client = o->reversed, .stop = &rb_stop };
		int fd = oob_accept(&l, -1, s.conn.peer, sizeof(s.conn.peer));

		if (fd < 0) {
			/* --persistent ends on a signal between clients: the
			 * status is the last client's */
			if (rb_stop && o->persistent)
				break;
			rc = RB_EXIT_RUNTIME;
			if (rb_stop)
				break;
			continue;
		}
		oob_refuse_start(&l);
		rc = serve_client(&s, &r, first, fd);
		first = false;
		oob_refuse_stop(&l);
		close(fd);
	} while (o->persistent && !rb_stop);
	if (first)	/* stopped by a signal before any client came */
		report_finish(&r, &s0, "failed", "stopped before any client came");
	oob_close_listener(&l);
	return rc;
}
