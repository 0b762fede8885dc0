/*
 * The driver: setup -> HELLO -> connect -> each size (the plug-in's
 * loops) -> report -> teardown, as a client, a server (--persistent) or a
 * session embedded in another driver (rb_mpi).  Its files, each using
 * only those above it in this list and the layers below:
 *
 *   stop.c      the SIGINT/SIGTERM flag and its handler, the exit codes
 *   exchange.c  the messages of a session: HELLO, QPs, READY, DONE, RESULT
 *   threads.c   -j: the measuring threads and the pump of their frames
 *   loadrun.c   --load: the load's session in a thread of its own
 *   setup.c     device, placement, QPs (per thread), connect, teardown
 *   size.c      the size loop: one path for 1..N measuring loops
 *   run.c       one session end to end: a client, an embedded link
 *   serve.c     the server: its clients one after another (--persistent)
 *   loopback.c  --loopback: a server child and a client in one command
 */
#ifndef RB_DRIVER_RUN_H
#define RB_DRIVER_RUN_H

#include "session/session.h"

/* Run benchmark b with options o; returns an RB_EXIT_* code. */
int run_bench(const struct rb_bench *b, const struct rb_options *o);

/* Set by the SIGINT/SIGTERM handler (run_init's); every session's stop
 * points here, and a program's own loops may look at it. */
extern volatile sig_atomic_t rb_stop;

/* What run_bench() does first: the SIGINT/SIGTERM handler, the PSN seed. */
void run_init(void);
/* One embedded session over l's channel; returns an RB_EXIT_* code. */
int run_link(const struct rb_bench *b, const struct rb_options *o, const struct rb_link *l);

#endif
