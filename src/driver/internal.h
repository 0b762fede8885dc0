/*
 * What the driver's files share (driver/run.h lists them); not for
 * callers outside src/driver/.
 */
#ifndef RB_DRIVER_INTERNAL_H
#define RB_DRIVER_INTERNAL_H

#include "driver/run.h"
#include "report/report.h"

/* ---- stop.c ---- */

/* The handler installed, the OOB waits told of the flag. */
void signals_install(void);
/* "complete", "partial" or "failed" (the report's status). */
const char *status_of(int err, bool partial);
/* An RB_EXIT_* code: usage (-EINVAL), runtime (any other error, a
 * partial run) or OK. */
int exit_code(int err, bool partial);

/* ---- exchange.c: the session's messages, each within --timeout ---- */

int exchange_hello(struct rb_session *s);
int exchange_qps(struct rb_session *s);
/* READY both ways: both sides reached phase. */
int barrier(struct rb_session *s, const char *phase);
/* This side's DONE (unless its loop sent it) and the peer's. */
int exchange_done(struct rb_session *s);
/* Trade rows (the peer's into peer); a side that only served the peer
 * (!measured) takes the peer's row as its own. */
int exchange_rows(struct rb_session *s, const struct report *r, union out_val *row,
		  union out_val *peer, bool measured);

/* ---- setup.c: from the options to connected QPs, and back ---- */

/* -n/-D/--run_infinitely into s->run; the test hooks. */
void session_timing(struct rb_session *s);
/* -R's device, then placement and QPs (-j: each thread's), -R's connect. */
int setup_device(struct rb_session *s);
int check_atomics(const struct rb_session *s);
/* The QPs' attributes traded and (without -R) connected; -j: each thread's. */
int connect_qps(struct rb_session *s);
/* Everything set up, released in reverse order. */
void session_teardown(struct rb_session *s);
/* What can fail before the peer is reached (the device stays open in d). */
int check_local(const struct rb_session *s, struct rb_device *d);
/* -W: the local port's counters, now. */
int counters_now(const struct rb_session *s, uint64_t *val);

/* ---- run.c, serve.c ---- */

/* One session (its channel open) from HELLO to teardown, into r (NULL:
 * an embedded session's rows go to its link); an RB_EXIT_* code. */
int run_session(struct rb_session *s, struct report *r);
/* The failed document (r NULL: an embedded session, none). */
void report_failed(struct report *r, const struct rb_session *s);
/* Serve clients on o->port until the first ends (--persistent: until a
 * signal); an RB_EXIT_* code. */
int run_server(const struct rb_bench *b, const struct rb_options *o);

/* ---- size.c ---- */

/* A size's measure from its n workers' (size.c tells how): the one
 * worker's own, or their total in sum (-j). */
struct rb_measure *workers_sum(struct rb_worker *w, int n, struct rb_measure *sum);

/* Every size of the run (-a: the sweep), each once or (--load-compare)
 * idle and loaded in turn; *partial: stopped early. */
int run_sizes(struct rb_session *s, struct report *r, bool *partial);

#endif
