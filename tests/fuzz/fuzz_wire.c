/* Build & run: clang -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz_wire.c src/lib/wire.c -o /tmp/fuzz_wire && /tmp/fuzz_wire -max_total_time=60 -max_len=70000 */
/*
 * libFuzzer target for the wire format, both directions:
 *  - every decoder gets the raw bytes; whatever decodes must re-encode to
 *    exactly the same bytes (the decoders are strict, so each valid payload
 *    has one encoding; only the QP record's reserved field is ignored on
 *    receipt, so it is masked before comparing);
 *  - the same bytes also fill messages (counts and lengths up to their
 *    limits), which must encode, decode and compare equal field by field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[WIRE_MAX_PAYLOAD + WIRE_HDR_LEN];

static void same(const uint8_t *a, int n, const uint8_t *b, size_t size)
{
	if (n < 0 || (size_t)n != size || memcmp(a, b, size) != 0)
		abort();
}

static void fuzz_hdr(const uint8_t *data, size_t size)
{
	struct wire_hdr h;

	if (size < WIRE_HDR_LEN || wire_hdr_decode(data, &h))
		return;
	wire_hdr_encode(out, h.type, h.length);
	same(out, WIRE_HDR_LEN, data, WIRE_HDR_LEN);
}

/* Whatever a peer offers for -o, the depth is 1..255 and the same
 * whichever side computes it. */
static void fuzz_offer(const struct wire_hello *m)
{
	struct wire_rd_offer peer, mine = { 0, 128, 16 };
	unsigned d;

	wire_hello_offer(m, &peer);
	d = wire_rd_depth(&mine, &peer);
	if (d < 1 || d > 16 || d != wire_rd_depth(&peer, &mine))
		abort();
}

static void fuzz_hello(const uint8_t *data, size_t size)
{
	static struct wire_hello m;

	if (wire_hello_decode(data, size, &m))
		return;
	same(out, wire_hello_encode(&m, out, sizeof(out)), data, size);
	fuzz_offer(&m);
}

static void fuzz_params(const uint8_t *data, size_t size)
{
	struct wire_param p[WIRE_MAX_PARAMS];
	int n;

	if (wire_params_decode(data, size, p, WIRE_MAX_PARAMS, &n))
		return;
	same(out, wire_params_encode(p, n, out, sizeof(out)), data, size);
}

static void fuzz_qp(const uint8_t *data, size_t size)
{
	static struct wire_qp q[WIRE_MAX_QPS];
	static uint8_t masked[sizeof(out)];
	int n;

	if (wire_qp_decode(data, size, q, WIRE_MAX_QPS, &n))
		return;
	if (size > sizeof(masked))
		abort();
	memcpy(masked, data, size);
	for (int i = 0; i < n; i++)
		memset(masked + 2 + (size_t)i * WIRE_QP_LEN + WIRE_QP_LEN - 2, 0, 2);
	same(out, wire_qp_encode(q, n, out, sizeof(out)), masked, size);
}

static void fuzz_error(const uint8_t *data, size_t size)
{
	char msg[WIRE_MAX_ERROR + 1];

	if (wire_error_decode(data, size, msg, sizeof(msg)))
		return;
	same(out, wire_error_encode(msg, out, sizeof(out)), data, size);
}

/* The fuzz input read as a stream of values; zeros once it runs out. */
struct src {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct src *s, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v <<= 8;
		if (s->n) {
			v |= *s->p++;
			s->n--;
		}
	}
	return v;
}

static char take_char(struct src *s)
{
	char c = (char)take(s, 1);

	return c ? c : 'x';             /* names and messages hold no NUL */
}

static char take_name_char(struct src *s)
{
	return (char)(0x20 + take(s, 1) % 95);  /* names are printable ASCII */
}

static void check(int cond)
{
	if (!cond)
		abort();
}

static void make_params(struct src *s, struct wire_param *p, int n)
{
	for (int i = 0; i < n; i++) {
		p[i].id = (uint16_t)take(s, 2);
		p[i].value = take(s, 8);
	}
}

static int params_equal(const struct wire_param *a, const struct wire_param *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].id != b[i].id || a[i].value != b[i].value)
			return 0;
	return 1;
}

static void build_hello(struct src *s)
{
	static struct wire_hello m, d;
	int name_len, len;

	memset(&m, 0, sizeof(m));
	m.nparams = (int)(take(s, 1) % (WIRE_MAX_PARAMS + 1));
	make_params(s, m.params, m.nparams);
	name_len = (int)(take(s, 1) % (WIRE_MAX_NAME + 1));
	for (int i = 0; i < name_len; i++)
		m.name[i] = take_name_char(s);
	len = wire_hello_encode(&m, out, sizeof(out));
	check(len > 0 && wire_hello_decode(out, (size_t)len, &d) == 0);
	check(d.nparams == m.nparams && !strcmp(d.name, m.name) &&
	      params_equal(d.params, m.params, m.nparams));
}

static void build_qps(struct src *s)
{
	static struct wire_qp q[WIRE_MAX_QPS], d[WIRE_MAX_QPS];
	int n = 1 + (int)(take(s, 2) % WIRE_MAX_QPS), got = 0, len;

	/* No more QPs than the input has bytes for: 1024 zero records per run
	 * would cost 60x the speed and find nothing new. */
	if ((size_t)n > 1 + s->n / WIRE_QP_LEN)
		n = 1 + (int)(s->n / WIRE_QP_LEN);
	for (int i = 0; i < n; i++) {
		q[i].qpn = (uint32_t)take(s, 4);
		q[i].psn = (uint32_t)take(s, 4);
		q[i].lid = (uint16_t)take(s, 2);
		for (int k = 0; k < 16; k++)
			q[i].gid[k] = (uint8_t)take(s, 1);
		q[i].rkey = (uint32_t)take(s, 4);
		q[i].addr = take(s, 8);
		q[i].mtu = (uint32_t)take(s, 4);
	}
	len = wire_qp_encode(q, n, out, sizeof(out));
	check(len == 2 + n * WIRE_QP_LEN && wire_qp_decode(out, (size_t)len, d, n, &got) == 0);
	check(got == n);
	for (int i = 0; i < n; i++)
		check(d[i].qpn == q[i].qpn && d[i].psn == q[i].psn && d[i].lid == q[i].lid &&
		      !memcmp(d[i].gid, q[i].gid, 16) && d[i].rkey == q[i].rkey &&
		      d[i].addr == q[i].addr && d[i].mtu == q[i].mtu);
}

static void build_params(struct src *s)
{
	struct wire_param p[WIRE_MAX_PARAMS], d[WIRE_MAX_PARAMS];
	int n = (int)(take(s, 1) % (WIRE_MAX_PARAMS + 1)), got = -1, len;

	make_params(s, p, n);
	len = wire_params_encode(p, n, out, sizeof(out));
	check(len == 2 + 10 * n && wire_params_decode(out, (size_t)len, d, n, &got) == 0);
	check(got == n && params_equal(d, p, n));
}

/* Messages past WIRE_MAX_ERROR are truncated on encode. */
static void build_error(struct src *s)
{
	static char msg[WIRE_MAX_ERROR + 100], d[WIRE_MAX_ERROR + 1];
	size_t n = (size_t)(take(s, 2) % (sizeof(msg) - 1)), len;

	for (size_t i = 0; i < n; i++)
		msg[i] = take_char(s);
	msg[n] = '\0';
	len = n > WIRE_MAX_ERROR ? WIRE_MAX_ERROR : n;
	check(wire_error_encode(msg, out, sizeof(out)) == (int)(2 + len));
	check(wire_error_decode(out, 2 + len, d, sizeof(d)) == 0);
	check(strlen(d) == len && !strncmp(d, msg, len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = { data, size };

	fuzz_hdr(data, size);
	fuzz_hello(data, size);
	fuzz_params(data, size);
	fuzz_qp(data, size);
	fuzz_error(data, size);
	if (size >= 2)
		wire_type_name((uint16_t)(data[0] << 8 | data[1]));
	build_hello(&s);
	build_qps(&s);
	build_params(&s);
	build_error(&s);
	return 0;
}
