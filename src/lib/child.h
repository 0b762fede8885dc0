/*
 * A child process with a deadline: rb_doctor's probe steps and --loopback's
 * server side run in one.  The parent never waits without a deadline and
 * never leaves a child behind: past the deadline it sends SIGTERM, then
 * SIGKILL, and reaps.
 */
#ifndef RB_CHILD_H
#define RB_CHILD_H

#include <stddef.h>
#include <sys/types.h>

enum {
	CHILD_QUIET = 1,            /* the child's stdout to /dev/null */
	CHILD_CAPTURE = 2,          /* the child's stderr into a pipe child_wait reads */
};

struct child {
	pid_t pid;                  /* 0: none */
	int err_fd;                 /* the captured stderr; -1 when not captured */
};

/* Fork; the child runs fn(arg) and exits with what it returns.  0 or -errno. */
int child_start(struct child *c, int (*fn)(void *), void *arg, unsigned flags);
/*
 * Wait for the child up to deadline_ms (also reading its captured stderr
 * into out, NUL-terminated, what fits).  Returns its exit status (0..255),
 * 128+N when a signal N ended it, or -ETIMEDOUT when the deadline passed
 * (it was then ended: SIGTERM, SIGKILL 1 s later, reaped).
 */
int child_wait(struct child *c, int deadline_ms, char *out, size_t len);

#endif
