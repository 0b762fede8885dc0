/*
 * --load: latency under load in one pair.  Around each loaded latency
 * window, both sides run the load's bandwidth benchmark (load.h names it)
 * as an embedded session in a thread of their own (the driver hands
 * loadrun_open the function that runs one: this module never calls the
 * driver), on QPs of
 * its own, over a second TCP channel: the server listens on a port the
 * kernel picks and offers it in HELLO (WIRE_P_LOAD_PORT), the client
 * connects to it.  The load starts before the latency loop's first sample
 * (the loop waits for its window to open, within --timeout) and is halted
 * after the last one; its bytes in the latency window come from its 10 ms
 * intervals (load_window_bytes).  Its thread's CPU is chosen away from the
 * latency loop's.
 */
#ifndef RB_LOADRUN_H
#define RB_LOADRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session.h"

struct loadrun;

/* How the load's session runs (the driver's run_link): an RB_EXIT_* code. */
typedef int (*loadrun_session_fn)(const struct rb_bench *b, const struct rb_options *o,
				  const struct rb_link *l);

/* The interval of the load's own bookkeeping (seconds). */
#define LOADRUN_INTERVAL_S 0.01
/* Load messages from this size on are counted one by one (-Q 1). */
#define LOADRUN_EXACT_SIZE 4096u

/* s->opt asks for a load: s->load made (the server listens), its
 * session to be run by run; 0 or -errno.  (The figures: session.h.) */
int loadrun_open(struct rb_session *s, loadrun_session_fn run);
/* The server's port for HELLO; 0: none (a client, or no load). */
uint16_t loadrun_port(const struct loadrun *L);
/* The client: the server's offered port (0: the server runs no load). */
void loadrun_peer_port(struct loadrun *L, uint64_t port);
/* Before the latency loop (no-op when idle): the load connected, started
 * and its window open; 0 or -errno (logged). */
int loadrun_start(struct rb_session *s);
/* After the latency loop: the load halted and joined (within a deadline),
 * its figures over [start_ns, end_ns); 0 or -errno (logged). */
int loadrun_stop(struct rb_session *s, uint64_t start_ns, uint64_t end_ns);
/* The last repetition's figures. */
const struct load_figures *loadrun_figures(const struct loadrun *L);
/* Everything released (a running load halted first). */
void loadrun_close(struct rb_session *s);

#endif
