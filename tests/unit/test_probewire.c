/* Unit tests for rb_mesh's probe frame (src/lib/probewire.c): the layout
 * byte by byte against the header's table, round trips, and every
 * malformed frame refused. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "lib/probewire.h"

static const struct pw_frame sample = {
	.type = PW_PROBE, .seq = 0x0102030405060708ull, .src_epoch = 0x1112131415161718ull,
	.dst_epoch = 0, .t_send = 0x2122232425262728ull, .cookie = 0x31323334,
	.t_rx = 0x4142434445464748ull, .t_tx = 0x5152535455565758ull,
};

/* The header's table, written out independently of the encoder. */
static void test_layout(void)
{
	static const uint8_t want[PW_LEN] = {
		'R', 'B', 'M', 'P', 1, 1, 0, 0,
		1, 2, 3, 4, 5, 6, 7, 8,
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
		0x31, 0x32, 0x33, 0x34, 0, 0, 0, 0,
		0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
		0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
	};
	uint8_t b[PW_LEN];
	int first = -1;

	pw_encode(&sample, b);
	for (int i = PW_LEN - 1; i >= 0; i--)
		if (b[i] != want[i])
			first = i;
	ok(first < 0, "a probe encodes to the header's table, byte for byte (first difference: %d)", first);
}

static int same(const struct pw_frame *a, const struct pw_frame *b)
{
	return a->type == b->type && a->seq == b->seq && a->src_epoch == b->src_epoch &&
	       a->dst_epoch == b->dst_epoch && a->t_send == b->t_send && a->cookie == b->cookie &&
	       a->t_rx == b->t_rx && a->t_tx == b->t_tx;
}

static uint64_t rnd64(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

static void test_roundtrip(void)
{
	uint8_t b[PW_LEN];
	struct pw_frame f, g, r;
	int bad = 0;

	srandom(7);
	for (int i = 0; i < 100000; i++) {
		f = (struct pw_frame){ .type = PW_PROBE, .seq = rnd64() | 1, .src_epoch = rnd64() | 1,
				       .t_send = rnd64(), .cookie = (uint32_t)random() };
		pw_reply(&f, rnd64() | 1, rnd64(), rnd64(), &r);
		pw_encode(i % 2 ? &r : &f, b);
		if (pw_decode(b, sizeof(b), &g) || !same(&g, i % 2 ? &r : &f))
			bad++;
	}
	ok(!bad, "100000 random probes and replies decode to what was encoded (%d did not)", bad);
	pw_reply(&sample, 99, 5, 6, &r);
	ok(r.type == PW_REPLY && r.seq == sample.seq && r.src_epoch == sample.src_epoch &&
	   r.t_send == sample.t_send && r.cookie == sample.cookie && r.dst_epoch == 99 && r.t_rx == 5 &&
	   r.t_tx == 6, "a reply echoes seq, src_epoch, t_send and cookie and fills the responder's");
}

/* Every single-byte change of a header byte, and each zero field, refused. */
static void test_refused(void)
{
	uint8_t b[PW_LEN], c[PW_LEN];
	struct pw_frame f = sample, g;
	int accepted = 0;

	pw_encode(&f, b);
	ok(pw_decode(b, PW_LEN - 1, &g) == -EBADMSG, "a frame one byte short is refused");
	for (int i = 0; i < 8; i++)
		for (int v = 0; v < 256; v++) {
			memcpy(c, b, PW_LEN);
			if (c[i] == v || (i == 5 && v == PW_REPLY))
				continue;
			c[i] = (uint8_t)v;
			accepted += pw_decode(c, PW_LEN, &g) == 0;
		}
	ok(!accepted, "each other value of magic, version, type and reserved bytes is refused (%d taken)",
	   accepted);
	memcpy(c, b, PW_LEN);
	c[47] = 1;
	ok(pw_decode(c, PW_LEN, &g) == -EBADMSG, "a nonzero reserved word at 44 is refused");
	f.seq = 0;
	pw_encode(&f, c);
	ok(pw_decode(c, PW_LEN, &g) == -EBADMSG, "sequence number 0 is refused");
	f = sample;
	f.src_epoch = 0;
	pw_encode(&f, c);
	ok(pw_decode(c, PW_LEN, &g) == -EBADMSG, "a probe without the prober's epoch is refused");
	pw_reply(&sample, 0, 1, 2, &f);
	pw_encode(&f, c);
	ok(pw_decode(c, PW_LEN, &g) == -EBADMSG, "a reply without the responder's epoch is refused");
	memcpy(c, b, PW_LEN);
	c[5] = PW_REPLY;
	ok(pw_decode(c, PW_LEN, &g) == -EBADMSG, "a probe relabelled a reply (dst_epoch 0) is refused");
}

/* An IPv4 RoCE v2 datagram's 40 bytes as rxe delivers them: 20 zero, then
 * the IPv4 header (version 4, IHL 5; source at 12, destination at 16). */
static void ipv4_grh(uint8_t *g, const uint8_t src[4], const uint8_t dst[4], uint16_t id)
{
	memset(g, 0, 40);
	g[20] = 0x45;
	g[24] = (uint8_t)(id >> 8);
	g[25] = (uint8_t)id;
	g[28] = 64;
	g[29] = 17;
	memcpy(g + 32, src, 4);
	memcpy(g + 36, dst, 4);
}

static void test_sender(void)
{
	static const uint8_t a[4] = { 192, 0, 2, 1 }, b[4] = { 192, 0, 2, 2 }, d[4] = { 198, 51, 100, 7 };
	static const uint8_t want_a[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 };
	uint8_t g1[40], g2[40], s1[16], s2[16], grh[40], s[16];

	ipv4_grh(g1, a, d, 1);
	ipv4_grh(g2, b, d, 2);
	pw_sender_gid(g1, s1);
	pw_sender_gid(g2, s2);
	ok(!memcmp(s1, want_a, 16), "IPv4 RoCE v2: the sender is the IPv4 header's source, IPv4-mapped");
	ok(memcmp(s1, s2, 16) != 0, "two IPv4 senders differ (bytes 8..23 read as a GRH would not)");
	ok(!memcmp(g1 + 8, g2 + 8, 12), "... as the test's frames show: their bytes 8..19 are the same");
	ipv4_grh(g2, a, b, 999);
	pw_sender_gid(g2, s2);
	ok(!memcmp(s1, s2, 16), "one IPv4 sender, another destination and IP id: the same key");
	memset(grh, 0, sizeof(grh));
	grh[0] = 0x60;
	for (int i = 0; i < 16; i++)
		grh[8 + i] = (uint8_t)(0xf0 + i), grh[24 + i] = (uint8_t)i;
	pw_sender_gid(grh, s);
	ok(!memcmp(s, grh + 8, 16), "a GRH (IPv6, IB): its source GID");
}

static void test_epoch(void)
{
	uint8_t b[PW_EPOCH_LEN];
	static const uint8_t want[PW_EPOCH_LEN] = { 0x82, 0xaa, 0xab, 0x5b, 0x5a, 0x38, 0x7a, 0x25 };

	pw_epoch_put(0x82aaab5b5a387a25ull, b);
	ok(!memcmp(b, want, sizeof(b)), "an epoch in SIDR's private data: 8 bytes, big-endian");
	ok(pw_epoch_get(b, sizeof(b)) == 0x82aaab5b5a387a25ull, "... read back");
	ok(pw_epoch_get(b, 7) == 0 && pw_epoch_get(NULL, 8) == 0, "... none from 7 bytes or none at all");
}

int main(void)
{
	test_epoch();
	test_sender();
	test_layout();
	test_roundtrip();
	test_refused();
	return tap_done();
}
