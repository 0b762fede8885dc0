/*
 * The out-of-band TCP channel (see oob.h): the client connects with
 * exponential backoff until its deadline; the server listens (IPv4 and
 * IPv6), accepts one client, and refuses others while it serves.
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
#include <pthread.h>

#include "lib/log.h"

#define BACKOFF_MIN_MS 10
#define BACKOFF_MAX_MS 1000
#define REFUSE_TIMEOUT_MS 500
#define PEER_LEN 64

/* A connected socket's options: TCP_NODELAY, since every frame is small and
 * latency-bound (a HELLO/QP/READY exchange must not wait on Nagle). */
static int conn_setup(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ? -errno : 0;
}

/* ---- connecting ---- */

static int resolve(const char *host, uint16_t port, int flags, struct addrinfo **res)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = flags | AI_NUMERICSERV };
	char serv[8];
	int rc;

	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, res);
	if (!rc)
		return 0;
	log_err("OOB: cannot resolve '%s': %s", host ? host : "*",
		rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	if (rc == EAI_SYSTEM)
		return -errno;
	return rc == EAI_MEMORY ? -ENOMEM : -EHOSTUNREACH;
}

/* One non-blocking connect attempt to one address: fd or -errno. */
static int connect_once(const struct addrinfo *ai, uint64_t deadline)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			ai->ai_protocol);
	int rc = 0, err = 0;
	socklen_t elen = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)
		rc = -errno;
	else if (!(rc = wait_fd(fd, POLLOUT, deadline)) &&
		 getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
		rc = -errno;
	else if (!rc && err)
		rc = -err;
	if (!rc)
		rc = conn_setup(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Try each address once, splitting the time left between them so one
 * black-holed address cannot use it all. */
static int connect_round(const struct addrinfo *res, uint64_t deadline)
{
	int n = 0, rc = -ETIMEDOUT;

	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
		n++;
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next, n--) {
		int left = ms_left(deadline);
		uint64_t until = left < 0 ? NO_DEADLINE : now_ms() + (uint64_t)(left / n);

		rc = connect_once(ai, until);
		if (rc >= 0)
			return rc;
	}
	return rc;
}

static bool connect_fatal(int rc)
{
	return rc == -EACCES || rc == -EPERM || rc == -EINVAL || rc == -EMFILE ||
	       rc == -ENFILE || rc == -ENOMEM || rc == -EAFNOSUPPORT;
}

static void log_connect_err(const char *host, uint16_t port, int rc, uint64_t start)
{
	double secs = (double)(now_ms() - start) / 1e3;

	log_err("OOB: connecting to %s:%u: %s after %.1f s of retries%s", host, port,
		rc == -ECONNREFUSED ? "connection refused" :
		rc == -ETIMEDOUT ? "timed out" : strerror(-rc), secs,
		rc == -ECONNREFUSED || rc == -ETIMEDOUT ? " (is the server running? -p)" : "");
}

int oob_connect(const char *host, uint16_t port, int deadline_ms)
{
	uint64_t start = now_ms(), deadline = deadline_after(deadline_ms);
	struct addrinfo *res;
	int backoff = BACKOFF_MIN_MS;
	int rc = resolve(host, port, 0, &res);

	if (rc)
		return rc;
	for (;;) {
		int left;

		rc = connect_round(res, deadline);
		left = ms_left(deadline);
		if (rc >= 0 || connect_fatal(rc) || left == 0)
			break;
		log_verbose("OOB: connecting to %s:%u: %s, retrying in %d ms", host, port,
			    strerror(-rc), backoff);
		sleep_ms(left < 0 || backoff < left ? backoff : left);
		backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
	}
	freeaddrinfo(res);
	if (rc < 0)
		log_connect_err(host, port, rc, start);
	return rc;
}

/* ---- listening ---- */

static void log_bind_err(const char *bind_addr, uint16_t port, int rc)
{
	const char *where = bind_addr ? bind_addr : "all addresses";

	if (rc == -EADDRINUSE)
		log_err("OOB: port %u is already in use on %s (another server running? choose another port with -p)",
			port, where);
	else if (rc == -EACCES)
		log_err("OOB: no permission to listen on port %u (ports below 1024 need privileges; use -p)",
			port);
	else if (rc == -EADDRNOTAVAIL)
		log_err("OOB: cannot listen on %s port %u: not an address of this host", where, port);
	else
		log_err("OOB: listening on %s port %u: %s", where, port, strerror(-rc));
}

/* A listening, non-blocking socket bound to sa, or -errno. */
static int listen_on(int family, const struct sockaddr *sa, socklen_t len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1, zero = 0, rc = 0;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		rc = -errno;
	/* Dual stack: one IPv6 socket also accepts IPv4 clients. */
	if (!rc && family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)))
		rc = -errno;
	if (!rc && (bind(fd, sa, len) || listen(fd, 16)))
		rc = -errno;
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

static int listen_any(uint16_t port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int fd = listen_on(AF_INET6, (struct sockaddr *)&s6, sizeof(s6));

	/* No IPv6 on this host (disabled or not compiled in): IPv4 only. */
	if (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL || fd == -EPROTONOSUPPORT)
		fd = listen_on(AF_INET, (struct sockaddr *)&s4, sizeof(s4));
	return fd;
}

static int listen_list(const struct addrinfo *res)
{
	int fd = -EADDRNOTAVAIL;

	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = listen_on(ai->ai_family, ai->ai_addr, ai->ai_addrlen);
		if (fd >= 0 || fd == -EADDRINUSE || fd == -EACCES)
			break;
	}
	return fd;
}

int oob_listen(struct oob_listener *l, const char *bind_addr, uint16_t port)
{
	struct addrinfo *res = NULL;
	int fd;

	*l = (struct oob_listener){ .fd = -1, .stop_pipe = { -1, -1 } };
	if (bind_addr) {
		fd = resolve(bind_addr, port, AI_PASSIVE, &res);
		if (fd)
			return fd;
	}
	fd = res ? listen_list(res) : listen_any(port);
	if (res)
		freeaddrinfo(res);
	if (fd < 0) {
		log_bind_err(bind_addr, port, fd);
		return fd;
	}
	l->fd = fd;
	log_verbose("OOB: listening on %s port %u", bind_addr ? bind_addr : "all addresses", port);
	return 0;
}

uint16_t oob_listener_port(const struct oob_listener *l)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (l->fd < 0 || getsockname(l->fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Accept one pending client; -EAGAIN when none is (still) there. */
static int accept_one(int lfd, char *peer, size_t peer_len)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	int rc;

	if (fd < 0) {
		/* A client that gave up between poll() and accept(): not our error. */
		if (errno == ECONNABORTED || errno == EINTR || errno == EWOULDBLOCK ||
		    errno == EPROTO)
			return -EAGAIN;
		return -errno;
	}
	rc = conn_setup(fd);
	if (rc) {
		close(fd);
		return rc;
	}
	if (peer && peer_len)
		addr_name((struct sockaddr *)&ss, len, peer, peer_len);
	return fd;
}

int oob_accept(struct oob_listener *l, int timeout_ms, char *peer, size_t peer_len)
{
	uint64_t deadline = deadline_after(timeout_ms);
	int fd;

	do {
		fd = wait_fd(l->fd, POLLIN, deadline);
		if (!fd)
			fd = accept_one(l->fd, peer, peer_len);
	} while (fd == -EAGAIN);
	if (fd == -ETIMEDOUT)
		log_err("OOB: no client connected within %g s", timeout_ms / 1e3);
	else if (fd == -EINTR)
		log_err("OOB: interrupted while waiting for a client");
	else if (fd < 0)
		log_err("OOB: accepting a client: %s", strerror(-fd));
	return fd;
}

/* Tell a surplus client BUSY, then wait briefly for it to hang up: closing
 * with its HELLO unread would send a RST that can destroy the BUSY frame. */
static void refuse_client(int fd, const char *peer)
{
	uint64_t deadline = deadline_after(REFUSE_TIMEOUT_MS);
	uint8_t junk[512];
	size_t got;

	log_warn("OOB: refusing client %s: busy serving another", peer);
	if (!oob_send(fd, WIRE_BUSY, NULL, 0, REFUSE_TIMEOUT_MS)) {
		shutdown(fd, SHUT_WR);
		while (recv_all(fd, junk, sizeof(junk), &got, deadline) == 0)
			;
	}
	close(fd);
}

static void *refuser_main(void *arg)
{
	struct oob_listener *l = arg;
	struct pollfd p[2] = { { .fd = l->fd, .events = POLLIN },
			       { .fd = l->stop_pipe[0], .events = POLLIN } };
	char peer[PEER_LEN];

	for (;;) {
		int n = poll(p, 2, -1), fd;

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && p[1].revents)
			break;
		if (n <= 0 || !p[0].revents)
			continue;
		fd = accept_one(l->fd, peer, sizeof(peer));
		if (fd >= 0)
			refuse_client(fd, peer);
	}
	return NULL;
}

int oob_refuse_start(struct oob_listener *l)
{
	int rc;

	if (l->refusing)
		return 0;
	if (pipe2(l->stop_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	rc = pthread_create(&l->refuser, NULL, refuser_main, l);
	if (rc) {
		log_err("OOB: starting the thread that refuses extra clients: %s", strerror(rc));
		close(l->stop_pipe[0]);
		close(l->stop_pipe[1]);
		l->stop_pipe[0] = l->stop_pipe[1] = -1;
		return -rc;
	}
	l->refusing = 1;
	return 0;
}

void oob_refuse_stop(struct oob_listener *l)
{
	if (!l->refusing)
		return;
	while (write(l->stop_pipe[1], "x", 1) < 0 && errno == EINTR)
		;
	pthread_join(l->refuser, NULL);
	close(l->stop_pipe[0]);
	close(l->stop_pipe[1]);
	l->stop_pipe[0] = l->stop_pipe[1] = -1;
	l->refusing = 0;
}

void oob_close_listener(struct oob_listener *l)
{
	oob_refuse_stop(l);
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

