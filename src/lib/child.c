#include "lib/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"

static void child_redirect(int fd, int to)
{
	if (fd >= 0 && fd != to) {
		dup2(fd, to);
		close(fd);
	}
}

int child_start(struct child *c, int (*fn)(void *), void *arg, unsigned flags)
{
	int p[2] = { -1, -1 };

	c->pid = 0;
	c->err_fd = -1;
	if ((flags & CHILD_CAPTURE) && pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		c->pid = 0;
		return err;
	}
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);   /* never outlive the parent */
		if (flags & CHILD_QUIET)
			child_redirect(open("/dev/null", O_WRONLY), STDOUT_FILENO);
		if (flags & CHILD_CAPTURE)
			child_redirect(p[1], STDERR_FILENO);
		_exit(fn(arg) & 0xff);
	}
	if (p[1] >= 0)
		close(p[1]);
	c->err_fd = p[0];
	return 0;
}

/* Append what the pipe has (waiting up to ms) to out; EOF closes it, and
 * so does nothing within ms when final (the child is gone). */
static void child_read(struct child *c, int ms, bool final, char *out, size_t len)
{
	struct pollfd pfd = { .fd = c->err_fd, .events = POLLIN };
	size_t have = out ? strlen(out) : 0;
	char sink[512];
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0) {
		if (final) {
			close(c->err_fd);
			c->err_fd = -1;
		}
		return;
	}
	if (out && have + 1 < len)
		n = read(c->err_fd, out + have, len - have - 1);
	else
		n = read(c->err_fd, sink, sizeof(sink));
	if (n > 0 && out && have + 1 < len)
		out[have + (size_t)n] = '\0';
	if (n <= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
}

static int child_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* Past the deadline: SIGTERM, a second to go, SIGKILL; always reaped. */
static void child_end(struct child *c)
{
	int st;

	kill(c->pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if (waitpid(c->pid, &st, WNOHANG) == c->pid)
			return;
		usleep(10000);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &st, 0);
}

int child_wait(struct child *c, int deadline_ms, char *out, size_t len)
{
	uint64_t end = clock_monotonic_ns() + (uint64_t)deadline_ms * 1000000ull;
	int st, r;

	if (out && len)
		out[0] = '\0';
	while ((r = waitpid(c->pid, &st, WNOHANG)) == 0 && clock_monotonic_ns() < end) {
		if (c->err_fd >= 0)
			child_read(c, 20, false, out, len);
		else
			usleep(20000);
	}
	if (r == 0) {
		child_end(c);
		r = -ETIMEDOUT;
	} else {
		r = r < 0 ? -errno : child_status(st);
	}
	while (c->err_fd >= 0)
		child_read(c, 100, true, out, len);
	c->pid = 0;
	return r;
}
