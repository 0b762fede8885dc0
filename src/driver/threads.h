/*
 * -j/--threads: N measuring threads in one process.  Each owns a copy of
 * the session (struct rb_session) with its own QPs, CQ, buffers, completion
 * channel and CPU, and runs the benchmark's loop on it unchanged.  The
 * main thread keeps the session's channel to the peer: it sets the threads
 * up, starts them together after one barrier with the peer and, while they
 * run, carries each thread's frames (heartbeats, DONE) to the peer's thread
 * of the same index inside THREAD frames (wire.h): each thread talks
 * through its own socketpair as if it had a channel of its own.
 *
 * One thread failing stops them all: its siblings see *halt where their
 * loops check the idle watch; the peer, whose channel closes, stops too.
 */
#ifndef RB_THREADS_H
#define RB_THREADS_H

#include <pthread.h>
#include <sched.h>

#include "session/session.h"

struct rb_thread {
	struct rb_session s;        /* the thread's session: its own q, place, chan */
	struct rb_worker *w;        /* its slot in the team: its measure, CPU seen, label */
	struct oob_chan chan;       /* over sp[0]: the thread's channel to its peer */
	int sp[2];                  /* socketpair: [0] the thread's end, [1] the pump's */
	pthread_t tid;
	bool started;
	int err;                    /* the thread's loop: 0 or -errno */
	char label[12];             /* the report's thread cell: "0", "1", ... */
	char name[20];              /* its messages' "thread 1" */
	struct rb_threads *all;
};

/* The thread's work for one size: its loop and the DONE exchange. */
typedef int (*threads_body_fn)(struct rb_session *s, struct rb_measure *m);

struct rb_threads {
	struct rb_team team;        /* what the size loop and the report see (session.h) */
	int n;
	struct rb_thread *t;
	volatile int halt;          /* a thread failed or the peer is gone */
	int running;                /* threads still in their body (atomic) */
	int wake[2];                /* a finishing thread wakes the pump */
	bool peer_lost;             /* the pump lost the channel to the peer */
	/* the start gate: the threads wait there, pinned, until go */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready, go;              /* go: 1 run, -1 do not (setup failed) */
	threads_body_fn body;
	uint8_t *buf;               /* the pump's frames: 2 x (WIRE_MAX_PAYLOAD + header) */
};

/* N thread sessions copied from s (its device already open), and the
 * team of their workers (T->team.run is T); their own placement and QPs
 * are the caller's to set up.  0 or -errno. */
int threads_open(struct rb_threads *T, struct rb_session *s, int n);
/* placement_apply() for a thread's session s (avoid: its siblings' CPUs),
 * leaving the calling thread's own affinity as it was.  0 or -errno. */
int threads_place(struct rb_session *s, const cpu_set_t *avoid);
/* After placement: the team's "cpus" list for the report. */
void threads_describe(struct rb_threads *T);
/*
 * Run body on every thread, started together; meanwhile carry their frames
 * over chan (a TCP channel).  0, or -errno after naming the failed thread
 * (the first to fail) or the lost peer.
 */
int threads_run(struct rb_threads *T, struct oob_chan *chan, threads_body_fn body);
/* Close the channels and free; the verbs objects are the caller's. */
void threads_close(struct rb_threads *T);

#endif
