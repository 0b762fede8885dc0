/*
 * Unit tests for the out-of-band TCP channel (src/lib/oob.c), over real loopback
 * TCP on 127.0.0.1 with ephemeral ports.  Rogue peers are plain sockets that
 * write raw bytes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/oob.h"
#include "tap.h"
#include "driver/threads.h"

#define LOCAL "127.0.0.1"

static double now_s(void)
{
	return (double)clock_now_ns() / 1e9;
}

static uint16_t sock_port(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &len))
		return 0;
	return ntohs(sa.sin_port);
}

/* A port nobody listens on (bound once by the kernel's choice, then freed). */
static uint16_t free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	uint16_t port = 0;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		port = sock_port(fd);
	if (fd >= 0)
		close(fd);
	return port;
}

static uint16_t listen_local(struct oob_listener *l)
{
	if (oob_listen(l, LOCAL, 0))
		return 0;
	return sock_port(l->fd);
}

/* A connected client/server pair through l; 0 or -1. */
static int make_pair(struct oob_listener *l, uint16_t port, int *cfd, int *sfd)
{
	*cfd = oob_connect(LOCAL, port, 2000);
	*sfd = *cfd < 0 ? -1 : oob_accept(l, 2000, NULL, 0);
	return *cfd >= 0 && *sfd >= 0 ? 0 : -1;
}

static void close_pair(int cfd, int sfd)
{
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
}

static void hdr_bytes(uint8_t *b, uint32_t magic, uint16_t ver, uint16_t type, uint32_t len)
{
	uint32_t m = htonl(magic), n = htonl(len);
	uint16_t v = htons(ver), t = htons(type);

	memcpy(b, &m, 4);
	memcpy(b + 4, &v, 2);
	memcpy(b + 6, &t, 2);
	memcpy(b + 8, &n, 4);
}

static void test_round_trip(struct oob_listener *l, uint16_t port)
{
	uint8_t payload[100], got[128];
	char peer[64] = "";
	uint16_t type = 0;
	uint32_t len = 0;
	int cfd = oob_connect(LOCAL, port, 2000), sfd;

	ok(cfd >= 0, "client connects to a listening server");
	sfd = oob_accept(l, 2000, peer, sizeof(peer));
	ok(sfd >= 0, "server accepts it");
	ok(strncmp(peer, LOCAL ":", strlen(LOCAL) + 1) == 0, "peer is named %s", peer);
	for (int i = 0; i < 100; i++)
		payload[i] = (uint8_t)(i * 7);
	is_int(oob_send(cfd, WIRE_HELLO, payload, sizeof(payload), 1000), 0, "send a HELLO frame");
	is_int(oob_recv(sfd, &type, got, sizeof(got), &len, 1000), 0, "receive it");
	ok(type == WIRE_HELLO && len == 100 && memcmp(got, payload, 100) == 0, "frame arrives intact");
	is_int(oob_send(sfd, WIRE_READY, NULL, 0, 1000), 0, "send an empty READY back");
	is_int(oob_expect(cfd, WIRE_READY, got, sizeof(got), &len, 1000), 0, "expect READY");
	is_int(len, 0, "READY is empty");
	is_int(oob_send(sfd, WIRE_DONE, NULL, 0, 1000), 0, "send DONE");
	is_int(oob_expect(cfd, WIRE_READY, got, sizeof(got), &len, 1000), -EPROTO, "expecting READY, got DONE");
	is_int(oob_send(sfd, 0, NULL, 0, 1000), -EINVAL, "send of type 0 is refused");
	is_int(oob_send(sfd, WIRE_QP, got, WIRE_MAX_PAYLOAD + 1, 1000), -EINVAL, "send over the limit is refused");
	close_pair(cfd, sfd);
}

struct big_rx {
	int fd, rc;
	uint32_t len;
	uint8_t buf[WIRE_MAX_PAYLOAD];
};

static void *big_rx_main(void *arg)
{
	struct big_rx *r = arg;
	uint16_t type;

	r->rc = oob_recv(r->fd, &type, r->buf, sizeof(r->buf), &r->len, 5000);
	return NULL;
}

/* 64 KiB is more than a fresh socket buffer: exercises short writes/reads. */
static void test_max_frame(struct oob_listener *l, uint16_t port)
{
	static uint8_t out[WIRE_MAX_PAYLOAD];
	static struct big_rx r;
	pthread_t t;
	int cfd, sfd;

	if (make_pair(l, port, &cfd, &sfd)) {
		ok(0, "pair for the max-size frame");
		return;
	}
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 131 + (i >> 8));
	r.fd = sfd;
	pthread_create(&t, NULL, big_rx_main, &r);
	is_int(oob_send(cfd, WIRE_QP, out, sizeof(out), 5000), 0, "send a 64 KiB frame");
	pthread_join(t, NULL);
	is_int(r.rc, 0, "receive the 64 KiB frame");
	ok(r.len == sizeof(out) && memcmp(r.buf, out, sizeof(out)) == 0, "64 KiB frame intact");
	close_pair(cfd, sfd);
}

struct late {
	uint16_t port;
	int rc;
};

static void *late_server(void *arg)
{
	struct late *s = arg;
	struct oob_listener l;
	int fd;

	usleep(300 * 1000);
	s->rc = oob_listen(&l, LOCAL, s->port);
	if (s->rc)
		return NULL;
	fd = oob_accept(&l, 3000, NULL, 0);
	s->rc = fd < 0 ? fd : oob_send(fd, WIRE_READY, NULL, 0, 1000);
	if (fd >= 0)
		close(fd);
	oob_close_listener(&l);
	return NULL;
}

static void test_connect_retry(void)
{
	struct late s = { .port = free_port() };
	uint32_t len;
	pthread_t t;
	double t0 = now_s(), dt;
	int fd;

	pthread_create(&t, NULL, late_server, &s);
	fd = oob_connect(LOCAL, s.port, 3000);
	dt = now_s() - t0;
	ok(fd >= 0, "connecting before the server listens succeeds by retry");
	ok(dt >= 0.25 && dt < 2.0, "it took %.3f s (server started after 0.3 s)", dt);
	is_int(fd >= 0 ? oob_expect(fd, WIRE_READY, NULL, 0, &len, 2000) : fd, 0,
	       "and the late server's READY arrives");
	pthread_join(t, NULL);
	is_int(s.rc, 0, "late server side succeeded");
	if (fd >= 0)
		close(fd);
}

static void test_connect_refused(void)
{
	double t0 = now_s(), dt;
	int fd = oob_connect(LOCAL, free_port(), 500);

	dt = now_s() - t0;
	ok(fd == -ECONNREFUSED || fd == -ETIMEDOUT, "nobody listening: %d (refused or timed out)", fd);
	ok(dt >= 0.4 && dt < 1.0, "it retried until the 0.5 s deadline (%.3f s)", dt);
	/* a name that fails in getaddrinfo itself (an unknown scope), with no
	 * DNS query: a host-side test sends nothing beyond loopback */
	is_int(oob_connect("fe80::1%rb-no-such-if", 1, 100) < 0, 1, "unresolvable host fails");
}

/* A receive from a peer that sends nothing: -ETIMEDOUT, at its 0.2 s
 * deadline (what: the first check's name). */
static void times_out(struct oob_chan *c, const char *what)
{
	uint8_t buf[16];
	uint16_t type;
	uint32_t len;
	double t0 = now_s();

	is_int(oob_chan_recv(c, &type, buf, sizeof(buf), &len, 200), -ETIMEDOUT, what);
	is_near(now_s() - t0, 0.2, 0.25, "after about 0.2 s");
}

static void test_recv_timeout(struct oob_listener *l, uint16_t port)
{
	struct oob_chan c;
	int cfd, sfd;

	if (make_pair(l, port, &cfd, &sfd)) {
		ok(0, "pair for the timeout test");
		return;
	}
	oob_chan_tcp(&c, sfd);
	times_out(&c, "silent peer: -ETIMEDOUT");
	close_pair(cfd, sfd);
}

/* A blocking socket's own limit, 2 s each way: should oob.c block again,
 * these tests fail on their timings (2 s, not 0.2) rather than hang. */
static void fail_not_hang(int fd)
{
	struct timeval tv = { .tv_sec = 2 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* The deadlines hold on a blocking socket too (oob.c sends and receives
 * with MSG_DONTWAIT): a silent peer, and a peer that stops reading. */
static void test_blocking_fd(void)
{
	static uint8_t big[WIRE_MAX_PAYLOAD];
	struct oob_chan c;
	int sp[2], rc = 0, n;
	double t0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) {
		ok(0, "a blocking socketpair");
		return;
	}
	fail_not_hang(sp[0]);
	oob_chan_tcp(&c, sp[0]);
	times_out(&c, "blocking socket, silent peer: oob_recv -ETIMEDOUT");
	t0 = now_s();
	for (n = 0; n < 1000 && !rc; n++)	/* the buffer fills: the send must not block */
		rc = oob_send(sp[0], WIRE_RESULT, big, sizeof(big), 200);
	ok(rc == -ETIMEDOUT, "blocking socket, a peer that stops reading: oob_send -ETIMEDOUT (%d, after %d whole frames)",
	   rc, n - 1);
	ok(now_s() - t0 < 2.0, "within its deadline (%.2f s for all the sends)", now_s() - t0);
	close(sp[0]);
	close(sp[1]);
}

/* -j: each thread's channel to the pump is a socketpair; non-blocking, like
 * every other fd the channel reads, and a DONE that never comes times out. */
static void test_thread_channels(void)
{
	struct rb_session s = { 0 };
	struct rb_threads T;
	int nb = 0;

	if (threads_open(&T, &s, 2)) {
		ok(0, "threads_open with 2 threads");
		threads_close(&T);
		return;
	}
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++)
			nb += (fcntl(T.t[i].sp[k], F_GETFL) & O_NONBLOCK) != 0;
	is_int(nb, 4, "threads_open: both ends of both threads' socketpairs are non-blocking");
	fail_not_hang(T.t[1].sp[0]);
	times_out(&T.t[1].chan, "a thread waiting for its peer's frame that never comes: -ETIMEDOUT");
	threads_close(&T);
}

/* Rogue client writes raw bytes (then hangs up if asked); the server's
 * oob_recv must fail cleanly with want. */
static void rogue(struct oob_listener *l, uint16_t port, const void *bytes, size_t n,
		  int hang_up, int want, const char *what)
{
	uint8_t buf[64];
	uint16_t type;
	uint32_t len;
	int cfd, sfd;

	if (make_pair(l, port, &cfd, &sfd)) {
		ok(0, "pair for rogue peer: %s", what);
		return;
	}
	ok(send(cfd, bytes, n, MSG_NOSIGNAL) == (ssize_t)n, "rogue sends %s", what);
	if (hang_up) {
		close(cfd);
		cfd = -1;
	}
	is_int(oob_recv(sfd, &type, buf, sizeof(buf), &len, 1000), want, what);
	close_pair(cfd, sfd);
}

static void test_rogues(struct oob_listener *l, uint16_t port)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	uint8_t b[WIRE_HDR_LEN + 5] = { 0 };

	rogue(l, port, http, sizeof(http) - 1, 0, -EPROTO, "garbage (HTTP) bytes: -EPROTO");
	hdr_bytes(b, 0x12345678, 1, WIRE_READY, 0);
	rogue(l, port, b, WIRE_HDR_LEN, 0, -EPROTO, "wrong magic: -EPROTO");
	hdr_bytes(b, WIRE_MAGIC, 2, WIRE_READY, 0);
	rogue(l, port, b, WIRE_HDR_LEN, 0, -EPROTONOSUPPORT, "version 2: -EPROTONOSUPPORT");
	hdr_bytes(b, WIRE_MAGIC, 1, 99, 0);
	rogue(l, port, b, WIRE_HDR_LEN, 0, -EPROTO, "unknown type 99: -EPROTO");
	hdr_bytes(b, WIRE_MAGIC, 1, WIRE_QP, 0xffffffffu);
	rogue(l, port, b, WIRE_HDR_LEN, 0, -EMSGSIZE, "length 0xFFFFFFFF: -EMSGSIZE");
	hdr_bytes(b, WIRE_MAGIC, 1, WIRE_QP, 65);
	rogue(l, port, b, WIRE_HDR_LEN, 0, -EMSGSIZE, "length 65 > cap 64: -EMSGSIZE");
	hdr_bytes(b, WIRE_MAGIC, 1, WIRE_QP, 20);
	rogue(l, port, b, sizeof(b), 1, -ECONNRESET, "truncated payload then close: -ECONNRESET");
	rogue(l, port, b, sizeof(b), 0, -ETIMEDOUT, "truncated payload, then silence: -ETIMEDOUT");
	rogue(l, port, b, 5, 1, -ECONNRESET, "disconnect mid-header: -ECONNRESET");
	rogue(l, port, b, 0, 1, -ECONNRESET, "connect and hang up: -ECONNRESET");
}

struct dribble {
	int fd;
	uint8_t bytes[WIRE_HDR_LEN + 4];
};

static void *dribble_main(void *arg)
{
	struct dribble *d = arg;

	for (size_t i = 0; i < sizeof(d->bytes); i++) {
		send(d->fd, &d->bytes[i], 1, MSG_NOSIGNAL);
		usleep(5000);
	}
	return NULL;
}

static void test_short_reads(struct oob_listener *l, uint16_t port)
{
	struct dribble d;
	uint8_t buf[8];
	uint16_t type;
	uint32_t len;
	pthread_t t;
	int sfd;

	if (make_pair(l, port, &d.fd, &sfd)) {
		ok(0, "pair for the short-read test");
		return;
	}
	hdr_bytes(d.bytes, WIRE_MAGIC, 1, WIRE_RESULT, 4);
	memcpy(d.bytes + WIRE_HDR_LEN, "\x00\x00\x00\x00", 4);
	pthread_create(&t, NULL, dribble_main, &d);
	is_int(oob_recv(sfd, &type, buf, sizeof(buf), &len, 2000), 0, "a frame sent one byte at a time");
	ok(type == WIRE_RESULT && len == 4, "arrives whole");
	pthread_join(t, NULL);
	close_pair(d.fd, sfd);
}

static void test_peer_error(struct oob_listener *l, uint16_t port)
{
	uint8_t payload[64];
	char buf[128];
	uint16_t type;
	uint32_t len;
	int cfd, sfd, n;

	if (make_pair(l, port, &cfd, &sfd)) {
		ok(0, "pair for the ERROR test");
		return;
	}
	n = wire_error_encode("no device \x1b[31mmlx5_9", payload, sizeof(payload));
	is_int(oob_send(sfd, WIRE_ERROR, payload, (uint32_t)n, 1000), 0, "server sends ERROR");
	is_int(oob_recv(cfd, &type, buf, sizeof(buf), &len, 1000), -EREMOTEIO, "client gets -EREMOTEIO");
	is_str(buf, "no device ?[31mmlx5_9", "with the peer's message, control bytes masked");
	close(cfd);
	for (n = 0; n < 100 && oob_send(sfd, WIRE_DONE, NULL, 0, 1000) == 0; n++)
		usleep(1000);
	ok(n < 100, "sending to a closed peer fails (no SIGPIPE) after %d sends", n);
	close(sfd);
}

static void test_refuser(struct oob_listener *l, uint16_t port)
{
	uint8_t buf[16];
	uint16_t type;
	uint32_t len;
	int a, sa, b, c, sc;

	if (make_pair(l, port, &a, &sa)) {
		ok(0, "pair for the refuser test");
		return;
	}
	is_int(oob_refuse_start(l), 0, "refuser starts while client A is served");
	b = oob_connect(LOCAL, port, 2000);
	ok(b >= 0, "client B connects");
	is_int(oob_send(b, WIRE_HELLO, "hi", 2, 1000), 0, "client B sends its HELLO");
	is_int(oob_recv(b, &type, buf, sizeof(buf), &len, 2000), -EBUSY, "client B gets -EBUSY");
	is_int(oob_send(a, WIRE_READY, NULL, 0, 1000), 0, "client A still talks to the server");
	is_int(oob_expect(sa, WIRE_READY, buf, sizeof(buf), &len, 1000), 0, "server still hears A");
	oob_refuse_stop(l);
	is_int(l->refusing, 0, "refuser stopped");
	if (make_pair(l, port, &c, &sc) == 0) {
		is_int(oob_send(c, WIRE_READY, NULL, 0, 1000), 0, "after the refuser, client C is served");
		is_int(oob_expect(sc, WIRE_READY, buf, sizeof(buf), &len, 1000), 0, "and heard");
	} else {
		ok(0, "client C accepted after the refuser stopped");
	}
	close_pair(c, sc);
	close_pair(a, sa);
	if (b >= 0)
		close(b);
}

static void test_listen(uint16_t port)
{
	struct oob_listener l2, any;
	char peer[64] = "";
	int cfd, sfd;

	is_int(oob_listen(&l2, LOCAL, port), -EADDRINUSE, "port already bound: -EADDRINUSE");
	is_int(oob_listen(&l2, NULL, port), -EADDRINUSE, "same, listening on all addresses");
	is_int(oob_listen(&l2, "192.0.2.1", 0), -EADDRNOTAVAIL, "address not on this host");
	ok(oob_listen(&l2, "no-such-host.invalid", 0) < 0, "unresolvable bind address");

	if (oob_listen(&any, NULL, 0)) {
		ok(0, "listen on all addresses");
		return;
	}
	cfd = oob_connect(LOCAL, sock_port(any.fd), 2000);
	sfd = oob_accept(&any, 2000, peer, sizeof(peer));
	ok(cfd >= 0 && sfd >= 0, "all-address listener accepts an IPv4 client");
	ok(strncmp(peer, LOCAL ":", strlen(LOCAL) + 1) == 0, "named %s, not as IPv4-mapped IPv6", peer);
	close_pair(cfd, sfd);
	cfd = oob_connect("localhost", sock_port(any.fd), 2000);
	ok(cfd >= 0, "connect by host name (localhost)");
	close_pair(cfd, -1);
	oob_close_listener(&any);
	ok(oob_accept(&any, 10, NULL, 0) < 0, "accept on a closed listener fails");
}

static void test_accept_timeout(struct oob_listener *l)
{
	double t0 = now_s();

	is_int(oob_accept(l, 150, NULL, 0), -ETIMEDOUT, "accept with nobody coming: -ETIMEDOUT");
	is_near(now_s() - t0, 0.15, 0.3, "after about 0.15 s");
}

int main(void)
{
	struct oob_listener l;
	uint16_t port;

	log_set_prog("test_oob");
	port = listen_local(&l);
	ok(port != 0, "listen on %s, ephemeral port %u", LOCAL, port);
	if (!port)
		return tap_done();
	test_round_trip(&l, port);
	test_max_frame(&l, port);
	test_connect_retry();
	test_connect_refused();
	test_recv_timeout(&l, port);
	test_blocking_fd();
	test_thread_channels();
	test_rogues(&l, port);
	test_short_reads(&l, port);
	test_peer_error(&l, port);
	test_refuser(&l, port);
	test_accept_timeout(&l);
	test_listen(port);
	oob_close_listener(&l);
	return tap_done();
}
