/*
 * The out-of-band TCP channel (see oob.h).  Every socket is non-blocking and
 * every wait is a poll() against an absolute CLOCK_MONOTONIC deadline, so a
 * frame's timeout covers the whole frame, however many short reads it takes.
 * A negative timeout means no deadline.
 */
#include "lib/oob.h"

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
#include "lib/log.h"

#define NO_DEADLINE UINT64_MAX
#define BACKOFF_MIN_MS 10
#define BACKOFF_MAX_MS 1000
#define REFUSE_TIMEOUT_MS 500
#define PEER_LEN 64

static uint64_t now_ms(void)
{
	return clock_now_ns() / 1000000u;
}

static uint64_t deadline_after(int timeout_ms)
{
	return timeout_ms < 0 ? NO_DEADLINE : now_ms() + (uint64_t)timeout_ms;
}

/* Milliseconds left until deadline, as a poll() timeout (-1: none). */
static int ms_left(uint64_t deadline)
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

static int wait_fd(int fd, short events, uint64_t deadline)
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

static void sleep_ms(int ms)
{
	uint64_t deadline = deadline_after(ms);

	while (ms_left(deadline) > 0)
		poll(NULL, 0, ms_left(deadline));
}

/* "host:port" or "[v6]:port" of a socket address, IPv4-mapped shown as IPv4. */
static void addr_name(const struct sockaddr *sa, socklen_t len, char *out, size_t cap)
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

static void peer_name(int fd, char *out, size_t cap)
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

/* A connected socket's options: TCP_NODELAY, since every frame is small and
 * latency-bound (a HELLO/QP/READY exchange must not wait on Nagle). */
static int conn_setup(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ? -errno : 0;
}

/* Write all n bytes before deadline.  MSG_NOSIGNAL: a closed peer is -EPIPE,
 * not a SIGPIPE that kills the process.  MSG_DONTWAIT here and in recv_all:
 * the deadline holds whether or not the socket was opened non-blocking (a
 * -j thread's socketpair once was not, and a stopped peer hung its DONE). */
static int send_all(int fd, const void *buf, size_t n, int flags, uint64_t deadline)
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
static int recv_all(int fd, void *buf, size_t n, size_t *got, uint64_t deadline)
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

int oob_send(int fd, uint16_t type, const void *payload, uint32_t len, int timeout_ms)
{
	uint64_t deadline = deadline_after(timeout_ms);
	uint8_t hdr[WIRE_HDR_LEN];
	char peer[PEER_LEN];
	int rc;

	if (type < WIRE_HELLO || type > WIRE_TYPE_MAX || len > WIRE_MAX_PAYLOAD ||
	    (len && !payload))
		return -EINVAL;
	wire_hdr_encode(hdr, type, len);
	/* MSG_MORE keeps header and payload in one segment despite TCP_NODELAY. */
	rc = send_all(fd, hdr, sizeof(hdr), len ? MSG_MORE : 0, deadline);
	if (!rc)
		rc = send_all(fd, payload, len, 0, deadline);
	if (rc) {
		peer_name(fd, peer, sizeof(peer));
		log_err("OOB: sending %s (%u bytes) to %s: %s", wire_type_name(type),
			len, peer, rc == -ETIMEDOUT ? "timed out (peer not reading)" : strerror(-rc));
	}
	return rc;
}

static void log_recv_err(const char *peer, const char *phase, int rc, size_t got, size_t want)
{
	if (rc == -ECONNRESET && got == 0 && !strcmp(phase, "header"))
		log_err("OOB: peer %s closed the connection", peer);
	else if (rc == -ECONNRESET)
		log_err("OOB: peer %s closed the connection mid-%s (%zu of %zu bytes)",
			peer, phase, got, want);
	else if (rc == -ETIMEDOUT)
		log_err("OOB: timed out waiting for the %s of a frame from %s (%zu of %zu bytes)",
			phase, peer, got, want);
	else
		log_err("OOB: receiving from %s: %s", peer, strerror(-rc));
}

static void log_hdr_err(const char *peer, int rc, const struct wire_hdr *h)
{
	if (rc == -EPROTONOSUPPORT)
		log_err("OOB: peer %s speaks protocol version %u, we speak %u (upgrade the older side)",
			peer, h->version, WIRE_VERSION);
	else if (rc == -EMSGSIZE)
		log_err("OOB: peer %s: frame length %u exceeds the limit %u",
			peer, h->length, WIRE_MAX_PAYLOAD);
	else if (h->magic != WIRE_MAGIC)
		log_err("OOB: peer %s sent a frame with bad magic 0x%08X (not an rdmabench peer?)",
			peer, h->magic);
	else
		log_err("OOB: peer %s sent a frame of unknown type %u", peer, h->type);
}

/* Receive and validate a header; fills *h even when it is invalid. */
static int recv_hdr(int fd, struct wire_hdr *h, uint64_t deadline)
{
	uint8_t raw[WIRE_HDR_LEN];
	char peer[PEER_LEN];
	size_t got;
	int rc = recv_all(fd, raw, sizeof(raw), &got, deadline);

	if (!rc)
		rc = wire_hdr_decode(raw, h);
	if (rc) {
		peer_name(fd, peer, sizeof(peer));
		if (got < sizeof(raw))
			log_recv_err(peer, "header", rc, got, sizeof(raw));
		else
			log_hdr_err(peer, rc, h);
	}
	return rc;
}

/* Copy a peer's text for display, replacing control bytes (no terminal
 * escapes from the network). */
static void copy_printable(char *dst, size_t cap, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < cap; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' : src[i];
	dst[i] = '\0';
}

/* A BUSY or ERROR frame: the peer's way of saying no. */
static int recv_refusal(int fd, uint16_t type, char *buf, uint32_t cap, uint32_t len)
{
	char peer[PEER_LEN], msg[WIRE_MAX_ERROR + 1];

	peer_name(fd, peer, sizeof(peer));
	if (type == WIRE_BUSY) {
		log_err("OOB: server %s is busy with another client (try again later)", peer);
		return -EBUSY;
	}
	if (wire_error_decode((uint8_t *)buf, len, msg, sizeof(msg)))
		snprintf(msg, sizeof(msg), "(malformed ERROR message)");
	if (cap)
		copy_printable(buf, cap, msg);
	log_err("OOB: peer %s reported an error: %s", peer, cap ? buf : msg);
	return -EREMOTEIO;
}

int oob_recv(int fd, uint16_t *type, void *buf, uint32_t cap, uint32_t *len, int timeout_ms)
{
	uint64_t deadline = deadline_after(timeout_ms);
	struct wire_hdr h;
	char peer[PEER_LEN];
	size_t got;
	int rc = recv_hdr(fd, &h, deadline);

	if (rc)
		return rc;
	*type = h.type;
	*len = h.length;
	if (h.length > cap) {
		peer_name(fd, peer, sizeof(peer));
		log_err("OOB: peer %s sent a %s frame of %u bytes, more than the %u expected",
			peer, wire_type_name(h.type), h.length, cap);
		return -EMSGSIZE;
	}
	rc = recv_all(fd, buf, h.length, &got, deadline);
	if (rc) {
		peer_name(fd, peer, sizeof(peer));
		log_recv_err(peer, "payload", rc, got, h.length);
		return rc;
	}
	if (h.type == WIRE_BUSY || h.type == WIRE_ERROR)
		return recv_refusal(fd, h.type, buf, cap, h.length);
	return 0;
}

int oob_expect(int fd, uint16_t type, void *buf, uint32_t cap, uint32_t *len, int timeout_ms)
{
	char peer[PEER_LEN];
	uint16_t got;
	int rc = oob_recv(fd, &got, buf, cap, len, timeout_ms);

	if (rc || got == type)
		return rc;
	peer_name(fd, peer, sizeof(peer));
	log_err("OOB: expected a %s message from %s, got %s",
		wire_type_name(type), peer, wire_type_name(got));
	return -EPROTO;
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

/* ---- channels ---- */

static int tcp_send(struct oob_chan *c, uint16_t type, const void *payload, uint32_t len,
		    int timeout_ms)
{
	return oob_send(c->fd, type, payload, len, timeout_ms);
}

static int tcp_recv(struct oob_chan *c, uint16_t *type, void *buf, uint32_t cap, uint32_t *len,
		    int timeout_ms)
{
	return oob_recv(c->fd, type, buf, cap, len, timeout_ms);
}

static int tcp_wait(struct oob_chan *c, int timeout_ms)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n > 0;
}

static const struct oob_chan_ops tcp_ops = { tcp_send, tcp_recv, tcp_wait };

void oob_chan_tcp(struct oob_chan *c, int fd)
{
	*c = (struct oob_chan){ .ops = &tcp_ops, .fd = fd };
}

int oob_chan_send(struct oob_chan *c, uint16_t type, const void *payload, uint32_t len,
		  int timeout_ms)
{
	return c->ops->send(c, type, payload, len, timeout_ms);
}

int oob_chan_recv(struct oob_chan *c, uint16_t *type, void *buf, uint32_t cap, uint32_t *len,
		  int timeout_ms)
{
	return c->ops->recv(c, type, buf, cap, len, timeout_ms);
}

int oob_chan_expect(struct oob_chan *c, uint16_t type, void *buf, uint32_t cap, uint32_t *len,
		    int timeout_ms)
{
	uint16_t got;
	int rc;

	if (c->ops == &tcp_ops)     /* its message names the peer's address */
		return oob_expect(c->fd, type, buf, cap, len, timeout_ms);
	rc = oob_chan_recv(c, &got, buf, cap, len, timeout_ms);
	if (rc || got == type)
		return rc;
	log_err("OOB: expected a %s message from the peer, got %s", wire_type_name(type),
		wire_type_name(got));
	return -EPROTO;
}

int oob_chan_wait(struct oob_chan *c, int timeout_ms)
{
	return c->ops->wait(c, timeout_ms);
}
