/*
 * The out-of-band channel's waits (oob_internal.h): every socket is
 * non-blocking and every wait is a poll() against an absolute
 * CLOCK_MONOTONIC deadline, so a frame's timeout covers the whole frame,
 * however many short reads it takes.  A negative timeout means no deadline.
 */
#include "lib/oob.h"
#include "lib/oob_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"

uint64_t now_ms(void)
{
	return clock_now_ns() / 1000000u;
}

uint64_t deadline_after(int timeout_ms)
{
	return timeout_ms < 0 ? NO_DEADLINE : now_ms() + (uint64_t)timeout_ms;
}

/* Milliseconds left until deadline, as a poll() timeout (-1: none). */
int ms_left(uint64_t deadline)
{
	uint64_t now = now_ms();

	if (deadline == NO_DEADLINE)
		return -1;
	if (now >= deadline)
		return 0;
	return deadline - now > INT32_MAX ? INT32_MAX : (int)(deadline - now);
}

/* Set by oob_set_stop_flag(): a wait without deadline ends when it is set. */
static volatile sig_atomic_t *stop_flag;

void oob_set_stop_flag(volatile sig_atomic_t *flag)
{
	stop_flag = flag;
}

/* Wait until fd is ready for events: 0, -ETIMEDOUT, -EINTR (a wait without
 * deadline interrupted by a stop signal) or -errno.  A wait without deadline
 * polls in slices of STOP_CHECK_MS: a signal that lands between the flag
 * check and poll() does not interrupt poll(), and must not leave it waiting
 * forever. */
#define STOP_CHECK_MS 200

int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	bool stoppable = deadline == NO_DEADLINE && stop_flag;
	int n;

	do {
		if (stoppable && *stop_flag)
			return -EINTR;
		n = poll(&p, 1, stoppable ? STOP_CHECK_MS : ms_left(deadline));
	} while ((n < 0 && errno == EINTR) || (n == 0 && stoppable));
	if (n < 0)
		return -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

void sleep_ms(int ms)
{
	uint64_t deadline = deadline_after(ms);

	while (ms_left(deadline) > 0)
		poll(NULL, 0, ms_left(deadline));
}

/* "host:port" or "[v6]:port" of a socket address, IPv4-mapped shown as IPv4. */
void addr_name(const struct sockaddr *sa, socklen_t len, char *out, size_t cap)
{
	char host[NI_MAXHOST], port[NI_MAXSERV];
	const char *h = host;

	if (getnameinfo(sa, len, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(out, cap, "(unknown)");
		return;
	}
	if (strncmp(h, "::ffff:", 7) == 0 && strchr(h + 7, '.'))
		h += 7;
	snprintf(out, cap, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, port);
}

void peer_name(int fd, char *out, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &len)) {
		snprintf(out, cap, "(disconnected)");
		return;
	}
	if (ss.ss_family == AF_UNIX) {	/* a -j thread's socketpair (threads.c) */
		snprintf(out, cap, "the peer (through the main thread)");
		return;
	}
	addr_name((struct sockaddr *)&ss, len, out, cap);
}

/* Write all n bytes before deadline.  MSG_NOSIGNAL: a closed peer is -EPIPE,
 * not a SIGPIPE that kills the process.  MSG_DONTWAIT here and in recv_all:
 * the deadline holds whether or not the socket was opened non-blocking (a
 * -j thread's socketpair once was not, and a stopped peer hung its DONE). */
int send_all(int fd, const void *buf, size_t n, int flags, uint64_t deadline)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t k = send(fd, p, n, flags | MSG_NOSIGNAL | MSG_DONTWAIT);
		int rc;

		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

/* Read exactly n bytes before deadline; *got counts what arrived.  End of
 * stream is -ECONNRESET. */
int recv_all(int fd, void *buf, size_t n, size_t *got, uint64_t deadline)
{
	uint8_t *p = buf;

	*got = 0;
	while (*got < n) {
		ssize_t k = recv(fd, p + *got, n - *got, MSG_DONTWAIT);
		int rc;

		if (k > 0) {
			*got += (size_t)k;
			continue;
		}
		if (k == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
	return 0;
}
