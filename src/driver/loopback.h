/*
 * --loopback: the server and the client of one benchmark in one command on
 * this host.  The server side is a child process of the same binary with
 * the same options (no host, its results to /dev/null, its messages on
 * stderr as "PROG (server): ..."); this process runs the client against it
 * and prints the client's results.  The child never outlives the command.
 */
#ifndef RB_LOOPBACK_H
#define RB_LOOPBACK_H

#include "cli/bench.h"
#include "cli/options.h"

/* An RB_EXIT_* code: the client's, or RUNTIME when the server side failed. */
int loopback_run(const struct rb_bench *b, const struct rb_options *o,
		 int (*run)(const struct rb_bench *, const struct rb_options *));

#endif
