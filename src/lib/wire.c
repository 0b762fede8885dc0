/*
 * The out-of-band message format (see wire.h for the layout).  Pure: no I/O,
 * no logging, no allocation.  Encoders write through a bounded cursor, decoders
 * read through one, so no offset arithmetic is repeated per message.
 *
 * Decoders are strict: every count is bounded, the payload must be consumed
 * exactly (trailing bytes are -EPROTO), names are printable ASCII and
 * messages may not contain NUL bytes, so each valid payload has exactly one
 * encoding.
 */
#include "lib/wire.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* A bounded cursor over a buffer; 'bad' latches on the first overrun. */
struct cur {
	uint8_t *w;             /* NULL when reading */
	const uint8_t *r;
	size_t len, pos;
	bool bad;
};

static bool cur_take(struct cur *c, size_t n)
{
	if (c->bad || c->len - c->pos < n) {
		c->bad = true;
		return false;
	}
	return true;
}

static void put_bytes(struct cur *c, const void *p, size_t n)
{
	if (!cur_take(c, n))
		return;
	if (n)
		memcpy(c->w + c->pos, p, n);
	c->pos += n;
}

static void put_be(struct cur *c, uint64_t v, size_t n)
{
	uint8_t b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	put_bytes(c, b, n);
}

static void get_bytes(struct cur *c, void *p, size_t n)
{
	if (!cur_take(c, n)) {
		memset(p, 0, n);
		return;
	}
	if (n)
		memcpy(p, c->r + c->pos, n);
	c->pos += n;
}

static uint64_t get_be(struct cur *c, size_t n)
{
	uint8_t b[8];
	uint64_t v = 0;

	get_bytes(c, b, n);
	for (size_t i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

static struct cur cur_writer(uint8_t *buf, size_t cap)
{
	return (struct cur){ .w = buf, .len = buf ? cap : 0 };
}

static struct cur cur_reader(const uint8_t *buf, size_t len)
{
	return (struct cur){ .r = buf, .len = buf ? len : 0 };
}

/* Encoder result: bytes written, or -EMSGSIZE when the buffer was too small. */
static int cur_written(const struct cur *c)
{
	return c->bad ? -EMSGSIZE : (int)c->pos;
}

/* Decoder result: the payload must have been consumed exactly. */
static int cur_consumed(const struct cur *c)
{
	return c->bad || c->pos != c->len ? -EPROTO : 0;
}

void wire_hdr_encode(uint8_t *buf, uint16_t type, uint32_t length)
{
	struct cur c = cur_writer(buf, WIRE_HDR_LEN);

	put_be(&c, WIRE_MAGIC, 4);
	put_be(&c, WIRE_VERSION, 2);
	put_be(&c, type, 2);
	put_be(&c, length, 4);
}

int wire_hdr_decode(const uint8_t *buf, struct wire_hdr *h)
{
	struct cur c = cur_reader(buf, WIRE_HDR_LEN);

	h->magic = (uint32_t)get_be(&c, 4);
	h->version = (uint16_t)get_be(&c, 2);
	h->type = (uint16_t)get_be(&c, 2);
	h->length = (uint32_t)get_be(&c, 4);
	if (h->magic != WIRE_MAGIC)
		return -EPROTO;
	if (h->version != WIRE_VERSION)
		return -EPROTONOSUPPORT;
	if (h->type < WIRE_HELLO || h->type > WIRE_TYPE_MAX)
		return -EPROTO;
	if (h->length > WIRE_MAX_PAYLOAD)
		return -EMSGSIZE;
	return 0;
}

static void put_params(struct cur *c, const struct wire_param *p, int n)
{
	put_be(c, (uint64_t)n, 2);
	for (int i = 0; i < n; i++) {
		put_be(c, p[i].id, 2);
		put_be(c, p[i].value, 8);
	}
}

/* Reads count + params; false when the count exceeds max or WIRE_MAX_PARAMS. */
static bool get_params(struct cur *c, struct wire_param *p, int max, int *n)
{
	int count = (int)get_be(c, 2);

	if (c->bad || count > WIRE_MAX_PARAMS || count > max)
		return false;
	for (int i = 0; i < count; i++) {
		p[i].id = (uint16_t)get_be(c, 2);
		p[i].value = get_be(c, 8);
	}
	*n = count;
	return !c->bad;
}

int wire_params_encode(const struct wire_param *p, int n, uint8_t *buf, size_t cap)
{
	struct cur c = cur_writer(buf, cap);

	if (n < 0 || n > WIRE_MAX_PARAMS)
		return -EINVAL;
	put_params(&c, p, n);
	return cur_written(&c);
}

int wire_params_decode(const uint8_t *buf, size_t len, struct wire_param *p, int max, int *n)
{
	struct cur c = cur_reader(buf, len);

	if (!get_params(&c, p, max, n))
		return -EPROTO;
	return cur_consumed(&c);
}

int wire_hello_encode(const struct wire_hello *m, uint8_t *buf, size_t cap)
{
	struct cur c = cur_writer(buf, cap);
	size_t name_len = strnlen(m->name, sizeof(m->name));

	if (m->nparams < 0 || m->nparams > WIRE_MAX_PARAMS || name_len > WIRE_MAX_NAME)
		return -EINVAL;
	put_params(&c, m->params, m->nparams);
	put_be(&c, name_len, 1);
	put_bytes(&c, m->name, name_len);
	return cur_written(&c);
}

/* A benchmark name is printable ASCII: a peer must not reach the terminal
 * with control bytes (escape sequences) through our messages. */
static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

int wire_hello_decode(const uint8_t *buf, size_t len, struct wire_hello *m)
{
	struct cur c = cur_reader(buf, len);
	size_t name_len;

	memset(m, 0, sizeof(*m));
	if (!get_params(&c, m->params, WIRE_MAX_PARAMS, &m->nparams))
		return -EPROTO;
	name_len = (size_t)get_be(&c, 1);
	if (name_len > WIRE_MAX_NAME)
		return -EPROTO;
	get_bytes(&c, m->name, name_len);
	if (c.bad || !printable(m->name, name_len))
		return -EPROTO;
	return cur_consumed(&c);
}

static void put_qp(struct cur *c, const struct wire_qp *q)
{
	put_be(c, q->qpn, 4);
	put_be(c, q->psn, 4);
	put_be(c, q->lid, 2);
	put_bytes(c, q->gid, sizeof(q->gid));
	put_be(c, q->rkey, 4);
	put_be(c, q->addr, 8);
	put_be(c, q->mtu, 4);
	put_be(c, 0, 2);                /* reserved */
}

static void get_qp(struct cur *c, struct wire_qp *q)
{
	q->qpn = (uint32_t)get_be(c, 4);
	q->psn = (uint32_t)get_be(c, 4);
	q->lid = (uint16_t)get_be(c, 2);
	get_bytes(c, q->gid, sizeof(q->gid));
	q->rkey = (uint32_t)get_be(c, 4);
	q->addr = get_be(c, 8);
	q->mtu = (uint32_t)get_be(c, 4);
	(void)get_be(c, 2);             /* reserved: ignored on receipt */
}

int wire_qp_encode(const struct wire_qp *qps, int n, uint8_t *buf, size_t cap)
{
	struct cur c = cur_writer(buf, cap);

	if (n < 1 || n > WIRE_MAX_QPS)
		return -EINVAL;
	put_be(&c, (uint64_t)n, 2);
	for (int i = 0; i < n; i++)
		put_qp(&c, &qps[i]);
	return cur_written(&c);
}

int wire_qp_decode(const uint8_t *buf, size_t len, struct wire_qp *qps, int max, int *n)
{
	struct cur c = cur_reader(buf, len);
	int count = (int)get_be(&c, 2);

	if (c.bad || count < 1 || count > WIRE_MAX_QPS || count > max)
		return -EPROTO;
	/* Check the length before touching qps, so a short frame writes nothing. */
	if (len != 2 + (size_t)count * WIRE_QP_LEN)
		return -EPROTO;
	for (int i = 0; i < count; i++)
		get_qp(&c, &qps[i]);
	*n = count;
	return cur_consumed(&c);
}

/* Messages longer than WIRE_MAX_ERROR are truncated: a failing peer should
 * still get to say why. */
int wire_error_encode(const char *msg, uint8_t *buf, size_t cap)
{
	struct cur c = cur_writer(buf, cap);
	size_t len = strnlen(msg, WIRE_MAX_ERROR);

	put_be(&c, len, 2);
	put_bytes(&c, msg, len);
	return cur_written(&c);
}

/* msg receives a NUL-terminated copy; cap must hold it (else -EMSGSIZE). */
int wire_error_decode(const uint8_t *buf, size_t len, char *msg, size_t cap)
{
	struct cur c = cur_reader(buf, len);
	size_t n = (size_t)get_be(&c, 2);

	if (c.bad || n > WIRE_MAX_ERROR || len != 2 + n)
		return -EPROTO;
	if (memchr(buf + 2, '\0', n))
		return -EPROTO;
	if (n >= cap)
		return -EMSGSIZE;
	get_bytes(&c, msg, n);
	msg[n] = '\0';
	return cur_consumed(&c);
}

int wire_thread_encode(uint16_t t, uint16_t type, const void *payload, uint32_t len,
		       uint8_t *buf, size_t cap)
{
	struct cur c = cur_writer(buf, cap);

	put_be(&c, t, 2);
	put_be(&c, type, 2);
	put_bytes(&c, payload, len);
	return cur_written(&c);
}

int wire_thread_decode(const uint8_t *buf, size_t len, uint16_t *t, uint16_t *type,
		       const uint8_t **payload, uint32_t *plen)
{
	struct cur c = cur_reader(buf, len);

	*t = (uint16_t)get_be(&c, 2);
	*type = (uint16_t)get_be(&c, 2);
	if (c.bad || *type < WIRE_HELLO || *type > WIRE_TYPE_MAX || *type == WIRE_THREAD)
		return -EPROTO;
	*payload = buf + WIRE_THREAD_HDR;
	*plen = (uint32_t)(len - WIRE_THREAD_HDR);
	return 0;
}

static uint64_t min_nonzero(uint64_t m, uint64_t v)
{
	return v && (!m || v < m) ? v : m;
}

static uint64_t hello_value(const struct wire_hello *h, uint16_t id)
{
	for (int i = 0; i < h->nparams; i++)
		if (h->params[i].id == id)
			return h->params[i].value;
	return 0;
}

void wire_hello_offer(const struct wire_hello *h, struct wire_rd_offer *o)
{
	o->asked = hello_value(h, WIRE_P_OUTS_ASKED);
	o->rd_atom = hello_value(h, WIRE_P_RD_ATOM);
	o->init_rd_atom = hello_value(h, WIRE_P_INIT_RD_ATOM);
}

unsigned wire_rd_depth(const struct wire_rd_offer *a, const struct wire_rd_offer *b)
{
	const uint64_t v[] = { a->asked, a->rd_atom, a->init_rd_atom,
			       b->asked, b->rd_atom, b->init_rd_atom, 255 };
	uint64_t m = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		m = min_nonzero(m, v[i]);
	return (unsigned)m;
}

const char *wire_type_name(uint16_t type)
{
	static const char *const names[] = {
		[WIRE_HELLO] = "HELLO", [WIRE_QP] = "QP", [WIRE_READY] = "READY",
		[WIRE_DONE] = "DONE", [WIRE_ERROR] = "ERROR", [WIRE_BUSY] = "BUSY",
		[WIRE_RESULT] = "RESULT", [WIRE_DOCTOR] = "DOCTOR", [WIRE_THREAD] = "THREAD",
	};

	if (type >= sizeof(names) / sizeof(names[0]) || !names[type])
		return "unknown";
	return names[type];
}
