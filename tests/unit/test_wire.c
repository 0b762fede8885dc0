/* Unit tests for the out-of-band message format (src/lib/wire.c). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "lib/wire.h"

#define QP_BUF (2 + WIRE_MAX_QPS * WIRE_QP_LEN)

static uint8_t buf[WIRE_MAX_PAYLOAD];

static struct wire_qp sample_qp(uint32_t i)
{
	struct wire_qp q = {
		.qpn = 0x00123456 + i, .psn = 0x00abcdef - i, .lid = (uint16_t)(0x0102 + i),
		.rkey = 0xdeadbeef ^ i, .addr = 0x0011223344556677ull + i, .mtu = 4096,
	};

	for (int k = 0; k < 16; k++)
		q.gid[k] = (uint8_t)(k == 0 ? 0xfe : k == 1 ? 0x80 : k + i);
	return q;
}

static struct wire_hello sample_hello(void)
{
	struct wire_hello m = { .name = "rb_send_bw", .nparams = 3 };

	m.params[0] = (struct wire_param){ 1, 65536 };
	m.params[1] = (struct wire_param){ 2, 0xffffffffffffffffull };
	m.params[2] = (struct wire_param){ 0xfffe, 7 };  /* an id we do not know */
	return m;
}

/* Field by field: memcmp would also compare struct padding. */
static int params_equal(const struct wire_param *a, const struct wire_param *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].id != b[i].id || a[i].value != b[i].value)
			return 0;
	return 1;
}

static int qps_equal(const struct wire_qp *a, const struct wire_qp *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].qpn != b[i].qpn || a[i].psn != b[i].psn || a[i].lid != b[i].lid ||
		    memcmp(a[i].gid, b[i].gid, 16) || a[i].rkey != b[i].rkey ||
		    a[i].addr != b[i].addr || a[i].mtu != b[i].mtu)
			return 0;
	return 1;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = (uint8_t)v; }

static void test_header(void)
{
	static const uint8_t want[WIRE_HDR_LEN] = {
		0x52, 0x44, 0x4d, 0x42, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x2e };
	uint8_t h[WIRE_HDR_LEN];
	struct wire_hdr d;

	wire_hdr_encode(h, WIRE_QP, 46);
	ok(memcmp(h, want, sizeof(h)) == 0, "header bytes are big-endian RDMB/1/QP/46");
	for (uint16_t t = WIRE_HELLO; t <= WIRE_TYPE_MAX; t++) {
		wire_hdr_encode(h, t, t * 100u);
		ok(wire_hdr_decode(h, &d) == 0 && d.magic == WIRE_MAGIC &&
		   d.version == WIRE_VERSION && d.type == t && d.length == t * 100u,
		   "header round trip, type %s", wire_type_name(t));
	}
	wire_hdr_encode(h, WIRE_READY, WIRE_MAX_PAYLOAD);
	is_int(wire_hdr_decode(h, &d), 0, "length at the limit is accepted");
	wire_hdr_encode(h, WIRE_READY, WIRE_MAX_PAYLOAD + 1);
	is_int(wire_hdr_decode(h, &d), -EMSGSIZE, "length over the limit");
	wire_hdr_encode(h, WIRE_READY, 0xffffffffu);
	is_int(wire_hdr_decode(h, &d), -EMSGSIZE, "length 0xFFFFFFFF");
	is_int(d.length, 0xffffffffu, "the bad length is still reported");

	wire_hdr_encode(h, WIRE_READY, 0);
	memcpy(h, "GET ", 4);
	is_int(wire_hdr_decode(h, &d), -EPROTO, "wrong magic");
	is_int(d.magic, 0x47455420, "the bad magic is still reported");
	wire_hdr_encode(h, WIRE_READY, 0);
	put16(h + 4, 2);
	is_int(wire_hdr_decode(h, &d), -EPROTONOSUPPORT, "newer version");
	is_int(d.version, 2, "the peer's version is reported");
	put16(h + 4, 0);
	is_int(wire_hdr_decode(h, &d), -EPROTONOSUPPORT, "version 0");
	wire_hdr_encode(h, 0, 0);
	is_int(wire_hdr_decode(h, &d), -EPROTO, "type 0 is unknown");
	wire_hdr_encode(h, WIRE_TYPE_MAX + 1, 0);
	is_int(wire_hdr_decode(h, &d), -EPROTO, "type past the last is unknown");
}

static void test_qp_bytes(void)
{
	static const uint8_t want[2 + WIRE_QP_LEN] = {
		0x00, 0x01,                                     /* count */
		0x00, 0x12, 0x34, 0x56, 0x00, 0xab, 0xcd, 0xef, /* qpn, psn */
		0x01, 0x02,                                     /* lid */
		0xfe, 0x80, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		0xde, 0xad, 0xbe, 0xef,                         /* rkey */
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, /* addr */
		0x00, 0x00, 0x10, 0x00,                         /* mtu */
		0x00, 0x00 };                                   /* reserved */
	struct wire_qp q = sample_qp(0);

	is_int(wire_qp_encode(&q, 1, buf, sizeof(buf)), sizeof(want), "one QP record is 2+44 bytes");
	ok(memcmp(buf, want, sizeof(want)) == 0, "QP record bytes are big-endian, in order");
}

static void test_qp(void)
{
	static struct wire_qp in[WIRE_MAX_QPS], out[WIRE_MAX_QPS];
	int n = 0, len, bad = 0;

	for (int i = 0; i < WIRE_MAX_QPS; i++)
		in[i] = sample_qp((uint32_t)i);
	len = wire_qp_encode(in, 3, buf, sizeof(buf));
	is_int(len, 2 + 3 * WIRE_QP_LEN, "three QPs encode to 134 bytes");
	is_int(wire_qp_decode(buf, (size_t)len, out, 3, &n), 0, "three QPs decode");
	ok(n == 3 && qps_equal(in, out, 3), "three QPs round trip");
	for (int l = 0; l < len; l++)
		bad += wire_qp_decode(buf, (size_t)l, out, 3, &n) != -EPROTO;
	is_int(bad, 0, "QP decode rejects truncation at every length");
	is_int(wire_qp_decode(buf, (size_t)len + 1, out, 3, &n), -EPROTO, "QP trailing byte");
	is_int(wire_qp_decode(buf, (size_t)len, out, 2, &n), -EPROTO, "QP count over the caller's max");
	for (int c = 0; c < len; c++)
		bad += wire_qp_encode(in, 3, buf, (size_t)c) != -EMSGSIZE;
	is_int(bad, 0, "QP encode: -EMSGSIZE for every too-small buffer");

	len = wire_qp_encode(in, WIRE_MAX_QPS, buf, sizeof(buf));
	is_int(len, QP_BUF, "WIRE_MAX_QPS QPs encode");
	ok(wire_qp_decode(buf, (size_t)len, out, WIRE_MAX_QPS, &n) == 0 && n == WIRE_MAX_QPS &&
	   qps_equal(in, out, WIRE_MAX_QPS), "WIRE_MAX_QPS QPs round trip");
	put16(buf, WIRE_MAX_QPS + 1);
	is_int(wire_qp_decode(buf, sizeof(buf), out, WIRE_MAX_QPS, &n), -EPROTO, "QP count over WIRE_MAX_QPS");
	put16(buf, 0);
	is_int(wire_qp_decode(buf, 2, out, WIRE_MAX_QPS, &n), -EPROTO, "QP count 0");
	is_int(wire_qp_encode(in, 0, buf, sizeof(buf)), -EINVAL, "QP encode of 0 QPs");
	is_int(wire_qp_encode(in, WIRE_MAX_QPS + 1, buf, sizeof(buf)), -EINVAL, "QP encode of too many");
}

static void test_hello(void)
{
	struct wire_hello in = sample_hello(), out;
	int len = wire_hello_encode(&in, buf, sizeof(buf)), bad = 0;

	is_int(len, 2 + 3 * 10 + 1 + 10, "HELLO encodes to 43 bytes");
	is_int(wire_hello_decode(buf, (size_t)len, &out), 0, "HELLO decodes");
	is_str(out.name, "rb_send_bw", "HELLO name round trips");
	ok(out.nparams == 3 && params_equal(in.params, out.params, 3),
	   "HELLO params round trip, unknown id kept");
	for (int l = 0; l < len; l++)
		bad += wire_hello_decode(buf, (size_t)l, &out) != -EPROTO;
	is_int(bad, 0, "HELLO decode rejects truncation at every length");
	for (int c = 0; c < len; c++)
		bad += wire_hello_encode(&in, buf, (size_t)c) != -EMSGSIZE;
	is_int(bad, 0, "HELLO encode: -EMSGSIZE for every too-small buffer");

	len = wire_hello_encode(&in, buf, sizeof(buf));
	is_int(wire_hello_decode(buf, (size_t)len + 1, &out), -EPROTO, "HELLO trailing byte");
	buf[32] = 11;                   /* name_len one past the end */
	is_int(wire_hello_decode(buf, (size_t)len, &out), -EPROTO, "HELLO name_len past the end");
	buf[32] = 10;
	buf[35] = '\0';
	is_int(wire_hello_decode(buf, (size_t)len, &out), -EPROTO, "HELLO name with a NUL");
	buf[35] = 0x1b;
	is_int(wire_hello_decode(buf, (size_t)len, &out), -EPROTO, "HELLO name with an escape byte");
	put16(buf, WIRE_MAX_PARAMS + 1);
	is_int(wire_hello_decode(buf, sizeof(buf), &out), -EPROTO, "HELLO count over WIRE_MAX_PARAMS");

	memset(&in, 0, sizeof(in));
	len = wire_hello_encode(&in, buf, sizeof(buf));
	ok(len == 3 && wire_hello_decode(buf, 3, &out) == 0 && out.nparams == 0 && !out.name[0],
	   "empty HELLO round trips");
	in.nparams = WIRE_MAX_PARAMS;
	memset(in.name, 'x', WIRE_MAX_NAME);
	for (int i = 0; i < WIRE_MAX_PARAMS; i++)
		in.params[i] = (struct wire_param){ (uint16_t)i, (uint64_t)i << 40 };
	len = wire_hello_encode(&in, buf, sizeof(buf));
	ok(len > 0 && wire_hello_decode(buf, (size_t)len, &out) == 0 &&
	   out.nparams == WIRE_MAX_PARAMS && !strcmp(in.name, out.name) &&
	   params_equal(in.params, out.params, WIRE_MAX_PARAMS), "full HELLO (64 params, 64-byte name) round trips");
	buf[len - WIRE_MAX_NAME - 1] = WIRE_MAX_NAME + 1;
	buf[len] = 'x';                 /* a 65th name byte is there */
	is_int(wire_hello_decode(buf, (size_t)len + 1, &out), -EPROTO, "HELLO name_len over WIRE_MAX_NAME");
	in.nparams = WIRE_MAX_PARAMS + 1;
	is_int(wire_hello_encode(&in, buf, sizeof(buf)), -EINVAL, "HELLO encode of too many params");
}

/* -o: the offer travels in HELLO under its own ids, and a HELLO without
 * them (or with a 0) reads as "no limit". */
static void test_hello_offer(void)
{
	struct wire_hello in = sample_hello(), out;
	struct wire_rd_offer o;
	int len;

	in.params[in.nparams++] = (struct wire_param){ WIRE_P_OUTS_ASKED, 4 };
	in.params[in.nparams++] = (struct wire_param){ WIRE_P_RD_ATOM, 16 };
	in.params[in.nparams++] = (struct wire_param){ WIRE_P_INIT_RD_ATOM, 128 };
	len = wire_hello_encode(&in, buf, sizeof(buf));
	is_int(len, 2 + 6 * 10 + 1 + 10, "HELLO with the -o offer encodes to 73 bytes");
	ok(buf[32] == 1 && buf[33] == 0 && buf[41] == 4 && buf[42] == 1 && buf[43] == 1 &&
	   buf[52] == 1 && buf[53] == 2 && buf[61] == 128,
	   "offer ids 0x100/0x101/0x102 and values are big-endian, after the compared ids");
	is_int(wire_hello_decode(buf, (size_t)len, &out), 0, "HELLO with the offer decodes");
	wire_hello_offer(&out, &o);
	ok(o.asked == 4 && o.rd_atom == 16 && o.init_rd_atom == 128, "the offer round trips (4, 16, 128)");
	in = sample_hello();
	wire_hello_offer(&in, &o);
	ok(o.asked == 0 && o.rd_atom == 0 && o.init_rd_atom == 0, "a HELLO without the offer reads as no limit");
}

static unsigned depth(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t b0, uint64_t b1, uint64_t b2)
{
	struct wire_rd_offer a = { a0, a1, a2 }, b = { b0, b1, b2 };
	unsigned ab = wire_rd_depth(&a, &b), ba = wire_rd_depth(&b, &a);

	return ab == ba ? ab : 9999;    /* both sides must pick the same */
}

static void test_rd_depth(void)
{
	unsigned bad = 0;

	is_int(depth(0, 128, 128, 0, 128, 128), 128, "no -o, equal devices: the device maximum");
	is_int(depth(0, 16, 16, 0, 128, 128), 16, "the responder's max_qp_rd_atom 16 bounds the requester");
	is_int(depth(0, 128, 8, 0, 128, 128), 8, "this side's max_qp_init_rd_atom 8 bounds it");
	is_int(depth(0, 16, 4, 0, 2, 128), 2, "asymmetric: the smallest of all four limits");
	is_int(depth(1, 128, 128, 0, 128, 128), 1, "-o 1 on one side: 1 on both");
	is_int(depth(8, 128, 128, 4, 128, 128), 4, "-o 8 and -o 4: 4");
	is_int(depth(200, 128, 128, 0, 16, 16), 16, "-o 200 above the peer's limit 16: 16");
	is_int(depth(0, 16, 16, 0, 0, 0), 16, "peer's device not known yet (-R): this side's limit");
	is_int(depth(0, 0, 0, 0, 0, 0), 255, "nothing known: at most 255 (8-bit QP attribute)");
	is_int(depth(1000, 0, 0, 0, 0, 0), 255, "-o past 255 from a peer: 255");
	for (uint64_t a = 0; a < 6; a++)
		for (uint64_t b = 0; b < 6; b++) {
			unsigned d = depth(a, 5, 4, b, 3 + a, 6);

			bad += d == 9999 || d > 4 || (a && d > a) || (b && d > b) || d > 3 + a || !d;
		}
	is_int(bad, 0, "36 combinations: same on both sides, never above any nonzero limit, never 0");
}

static void test_params(void)
{
	struct wire_param in[WIRE_MAX_PARAMS], out[WIRE_MAX_PARAMS];
	int n = 0, len, bad = 0;

	for (int i = 0; i < WIRE_MAX_PARAMS; i++)
		in[i] = (struct wire_param){ (uint16_t)(i * 3), 0x0102030405060708ull * (uint64_t)i };
	len = wire_params_encode(in, 5, buf, sizeof(buf));
	is_int(len, 52, "five RESULT counters encode to 52 bytes");
	ok(buf[2] == 0 && buf[3] == 0 && buf[14] == 0x01 && buf[15] == 0x02 && buf[21] == 0x08,
	   "RESULT counter bytes are big-endian");
	ok(wire_params_decode(buf, (size_t)len, out, 5, &n) == 0 && n == 5 &&
	   params_equal(in, out, 5), "RESULT round trips");
	for (int l = 0; l < len; l++)
		bad += wire_params_decode(buf, (size_t)l, out, 5, &n) != -EPROTO;
	is_int(bad, 0, "RESULT decode rejects truncation at every length");
	is_int(wire_params_decode(buf, (size_t)len, out, 4, &n), -EPROTO, "RESULT count over the caller's max");
	is_int(wire_params_decode(buf, (size_t)len + 1, out, 5, &n), -EPROTO, "RESULT trailing byte");
	len = wire_params_encode(in, 0, buf, sizeof(buf));
	ok(len == 2 && wire_params_decode(buf, 2, out, 5, &n) == 0 && n == 0, "empty RESULT round trips");
	len = wire_params_encode(in, WIRE_MAX_PARAMS, buf, sizeof(buf));
	ok(wire_params_decode(buf, (size_t)len, out, WIRE_MAX_PARAMS, &n) == 0 &&
	   n == WIRE_MAX_PARAMS && params_equal(in, out, WIRE_MAX_PARAMS), "64 RESULT counters round trip");
	put16(buf, WIRE_MAX_PARAMS + 1);
	is_int(wire_params_decode(buf, sizeof(buf), out, 1000, &n), -EPROTO, "RESULT count over WIRE_MAX_PARAMS");
	is_int(wire_params_encode(in, -1, buf, sizeof(buf)), -EINVAL, "RESULT encode of a negative count");
	is_int(wire_params_encode(in, 5, buf, 51), -EMSGSIZE, "RESULT encode into a short buffer");
}

static void test_error(void)
{
	static char big[WIRE_MAX_ERROR + 100], out[WIRE_MAX_ERROR + 1];
	const char *msg = "server: no such device mlx5_9";
	int len = wire_error_encode(msg, buf, sizeof(buf)), bad = 0;

	is_int(len, 2 + (int)strlen(msg), "ERROR encodes to 2 + strlen bytes");
	ok(buf[0] == 0 && buf[1] == strlen(msg), "ERROR length is big-endian");
	is_int(wire_error_decode(buf, (size_t)len, out, sizeof(out)), 0, "ERROR decodes");
	is_str(out, msg, "ERROR round trips");
	for (int l = 0; l < len; l++)
		bad += wire_error_decode(buf, (size_t)l, out, sizeof(out)) != -EPROTO;
	is_int(bad, 0, "ERROR decode rejects truncation at every length");
	is_int(wire_error_decode(buf, (size_t)len, out, strlen(msg)), -EMSGSIZE, "ERROR decode: no room for the NUL");
	buf[5] = '\0';
	is_int(wire_error_decode(buf, (size_t)len, out, sizeof(out)), -EPROTO, "ERROR with an embedded NUL");

	memset(big, 'e', sizeof(big) - 1);
	len = wire_error_encode(big, buf, sizeof(buf));
	is_int(len, 2 + WIRE_MAX_ERROR, "a long ERROR is truncated to WIRE_MAX_ERROR");
	ok(wire_error_decode(buf, (size_t)len, out, sizeof(out)) == 0 && strlen(out) == WIRE_MAX_ERROR,
	   "the longest ERROR decodes");
	memset(buf + 2, 'e', WIRE_MAX_ERROR + 1);
	put16(buf, WIRE_MAX_ERROR + 1);
	is_int(wire_error_decode(buf, 3 + WIRE_MAX_ERROR, out, sizeof(out)), -EPROTO, "ERROR message too long");
	is_int(wire_error_encode("abc", buf, 4), -EMSGSIZE, "ERROR encode into a short buffer");
}

/* THREAD: a thread's frame inside; its type checked, its payload kept. */
static void test_thread(void)
{
	static const uint8_t inner[] = { 1, 2, 3 };
	const uint8_t *payload;
	uint16_t t, type;
	uint32_t plen;
	int len = wire_thread_encode(5, WIRE_DONE, inner, sizeof(inner), buf, sizeof(buf));

	is_int(len, WIRE_THREAD_HDR + 3, "THREAD encodes to 4 + payload bytes");
	ok(buf[0] == 0 && buf[1] == 5 && buf[2] == 0 && buf[3] == WIRE_DONE, "THREAD header is big-endian");
	is_int(wire_thread_decode(buf, (size_t)len, &t, &type, &payload, &plen), 0, "THREAD decodes");
	ok(t == 5 && type == WIRE_DONE && plen == 3 && !memcmp(payload, inner, 3), "THREAD round trips");
	is_int(wire_thread_decode(buf, 3, &t, &type, &payload, &plen), -EPROTO, "THREAD shorter than its header");
	buf[3] = WIRE_THREAD;
	is_int(wire_thread_decode(buf, (size_t)len, &t, &type, &payload, &plen), -EPROTO, "THREAD inside THREAD");
	buf[3] = WIRE_TYPE_MAX + 1;
	is_int(wire_thread_decode(buf, (size_t)len, &t, &type, &payload, &plen), -EPROTO, "THREAD of an unknown type");
	is_int(wire_thread_encode(0, WIRE_DONE, inner, 3, buf, 6), -EMSGSIZE, "THREAD encode into a short buffer");
	is_int(wire_thread_encode(0, WIRE_READY, NULL, 0, buf, 4), 4, "THREAD of an empty frame");
}

static void test_names(void)
{
	is_str(wire_type_name(WIRE_THREAD), "THREAD", "name of THREAD");
	is_str(wire_type_name(WIRE_HELLO), "HELLO", "name of HELLO");
	is_str(wire_type_name(WIRE_BUSY), "BUSY", "name of BUSY");
	is_str(wire_type_name(WIRE_RESULT), "RESULT", "name of RESULT");
	is_str(wire_type_name(0), "unknown", "name of type 0");
	is_str(wire_type_name(WIRE_TYPE_MAX + 1), "unknown", "name past the last type");
	is_str(wire_type_name(0xffff), "unknown", "name of type 0xffff");
}

int main(void)
{
	test_header();
	test_qp_bytes();
	test_qp();
	test_hello();
	test_hello_offer();
	test_rd_depth();
	test_params();
	test_error();
	test_thread();
	test_names();
	return tap_done();
}
