/*
 * The out-of-band TCP channel (see oob.h): frames over a connected socket,
 * and the channel operations over them.  Waits: oob_internal.h.
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

#include "lib/log.h"

#define PEER_LEN 64

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
