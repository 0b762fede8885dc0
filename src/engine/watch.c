/*
 * The watch over every loop: a stalled queue, a lost peer, SIGINT and the
 * heartbeat of a side whose peer only serves its memory, without reading
 * the clock on every poll.
 */
#include "engine/internal.h"

#include <sched.h>

#include "lib/log.h"
#include "lib/oob.h"

void watch_init(struct watch *w, struct rb_session *s, const char *what)
{
	*w = (struct watch){ .s = s, .what = what, .last_ns = clock_now_ns(),
			     .pause = s->opt->poll_pause, .weight = s->run.size + BUSY_MSG_WEIGHT };
	heartbeat(s, w->last_ns);
}

/* The peer sent DONE (1), nothing yet (0), or the channel failed (-errno). */
int peer_done(struct rb_session *s)
{
	uint8_t buf[64];
	uint32_t len;
	uint16_t type;

	if (s->run.peer_done)
		return 1;
	if (oob_chan_wait(s->conn.chan, 0) <= 0)
		return 0;
	if (oob_chan_recv(s->conn.chan, &type, buf, sizeof(buf), &len, 1000))
		return -ECONNRESET;
	/* a READY during a measurement is the active peer's heartbeat */
	if (type == WIRE_READY) {
		s->run.heartbeat_ns = clock_now_ns();
		return 0;
	}
	if (type != WIRE_DONE) {
		log_err("OOB: expected DONE from the peer, got %s", wire_type_name(type));
		return -EPROTO;
	}
	s->run.peer_done = true;
	return 1;
}

/*
 * A side whose peer only serves its memory (write, read and atomic targets)
 * tells it once a second that it is alive, so a stalled client (SIGSTOP, a
 * hung host) is told apart from a long run.  The first one goes out with the
 * loop's first look (heartbeat_ns starts at 0 for each size).
 */
void heartbeat(struct rb_session *s, uint64_t now)
{
	if (!s->is_client || s->bench->server != loop_passive || s->opt->bidir ||
	    (s->run.heartbeat_ns && now - s->run.heartbeat_ns < NSEC_PER_SEC))
		return;
	s->run.heartbeat_ns = now;
	oob_chan_send(s->conn.chan, WIRE_READY, NULL, 0, 1000);
	test_heartbeat_delay(s);
}

int watch_idle(struct watch *w)
{
	uint64_t now;

	if (w->pause)
		cpu_relax();
	if (session_stopped(w->s))
		return -EINTR;
	if (w->s->run.peer_done)
		return -ECANCELED;
	if ((++w->idle & IDLE_CHECK_MASK) && !w->s->conn.q.chan) {
		/* Two busy-polling sides on one CPU take turns at the tick (4 ms)
		 * unless the idle one steps aside: 8 ms ping-pongs otherwise. */
		if (w->s->conn.place.shares_cpu && !(w->idle & IDLE_YIELD_MASK))
			sched_yield();
		return 0;
	}
	switch (peer_done(w->s)) {
	case 0: break;
	/* DONE can overtake a completion (or a write) that landed after the
	 * caller's last look: it looks once more before ending (-ECANCELED). */
	case 1: return 0;
	default:
		log_err("%s at size %llu: the peer is gone (it failed or was killed)", w->what,
			(unsigned long long)w->s->run.size);
		return -ECONNRESET;
	}
	now = clock_now_ns();
	if (!w->quiet)
		heartbeat(w->s, now);
	if (w->progressed) {
		w->progressed = false;
		w->last_ns = now;
		return 0;
	}
	if (now - w->last_ns > (uint64_t)(w->s->opt->timeout_s * 1e9)) {
		log_err("%s: nothing completed for %.1f s at size %llu (peer gone or stalled; --timeout sets the limit)",
			w->what, (double)(now - w->last_ns) / 1e9, (unsigned long long)w->s->run.size);
		return -ETIMEDOUT;
	}
	return 0;
}

/* SIGINT, or the peer stopping first, ends a loop with what it measured. */
int loop_end(int err, struct rb_measure *m)
{
	if (err != -EINTR && err != -ECANCELED)
		return err;
	m->partial = true;
	return 0;
}
