/* --validate's payload pattern: fill, check, the header's tag. */
#include "lib/pattern.h"
#include "tap.h"

#include <stdlib.h>

/* Every length up to 80 and every byte of it: a flip is found where it is. */
static void test_flips(void)
{
	uint8_t buf[80];
	int bad = 0;

	for (size_t len = 1; len <= sizeof(buf); len++) {
		pattern_fill(buf, len, 3, 17);
		if (pattern_check(buf, len, 3, 17) != PATTERN_NONE)
			bad++;
		for (size_t o = 0; o < len; o++) {
			buf[o] ^= 0x01;
			if (pattern_check(buf, len, 3, 17) != (int64_t)o)
				bad++;
			buf[o] ^= 0x01;
		}
	}
	is_int(bad, 0, "lengths 1..80: the pattern checks, and every single-bit flip is found at its offset");
}

/* Another QP's or slot's message differs, within its first 8 bytes. */
static void test_distinct(void)
{
	uint8_t a[64], b[64];
	int same = 0;

	for (uint32_t qp = 0; qp < 8; qp++)
		for (uint64_t tag = 0; tag < 64; tag++) {
			pattern_fill(a, sizeof(a), qp, tag);
			for (uint64_t t2 = 0; t2 < 64; t2++) {
				pattern_fill(b, sizeof(b), qp ^ 1, t2);
				int64_t at = pattern_diff(a, b, sizeof(a));

				same += at == PATTERN_NONE || at >= 8;
				pattern_fill(b, sizeof(b), qp, t2);
				at = pattern_diff(a, b, sizeof(a));
				same += t2 == tag ? at != PATTERN_NONE : at == PATTERN_NONE || at >= 8;
			}
		}
	is_int(same, 0, "8 QPs x 64 slots: every other QP's or slot's message differs in its header");
}

static void test_tag(void)
{
	uint8_t buf[64];
	uint64_t tag = 0;

	pattern_fill(buf, sizeof(buf), 5, 4095);
	ok(pattern_tag(buf, sizeof(buf), 5, &tag) && tag == 4095, "the header says slot 4095 of QP 5");
	ok(!pattern_tag(buf, sizeof(buf), 6, &tag), "not a header of QP 6");
	ok(!pattern_tag(buf, 7, 5, &tag), "7 bytes carry no header");
	buf[7] ^= 0x80;
	ok(!pattern_tag(buf, sizeof(buf), 5, &tag), "a flipped magic is no header");
	pattern_fill(buf, sizeof(buf), 0x10005, 1);
	ok(pattern_tag(buf, sizeof(buf), 0x10005, &tag) && tag == 1, "QP numbers past 16 bits: their low 16 bits");
	memset(buf, 0, sizeof(buf));
	ok(!pattern_tag(buf, sizeof(buf), 0, &tag), "an untouched (zeroed) buffer has no header");
}

/* Large messages: the check finds the last byte too. */
static void test_large(void)
{
	size_t len = (size_t)1 << 20;
	uint8_t *buf = malloc(len);

	if (!buf)
		return;
	pattern_fill(buf, len, 1, 0);
	is_int(pattern_check(buf, len, 1, 0), PATTERN_NONE, "1 MiB: the pattern checks");
	buf[len - 1] ^= 0xff;
	is_int(pattern_check(buf, len, 1, 0), (long long)len - 1, "1 MiB: the last byte's change is found");
	is_int(pattern_check(buf, len, 1, 1), 0, "1 MiB against slot 1: the first byte differs");
	free(buf);
}

/* Sequence numbers (the bandwidth loops' tags): message k and any of the
 * next 1000 share no 8-byte word, so a buffer left holding an earlier
 * message fails in its header and in every word after it. */
static void test_sequence(void)
{
	uint64_t a[64], b[64];
	int shared = 0;

	pattern_fill((uint8_t *)a, sizeof(a), 0, 4096);
	for (uint64_t k = 4097; k <= 5096; k++) {
		pattern_fill((uint8_t *)b, sizeof(b), 0, k);
		for (int w = 0; w < 64; w++)
			shared += a[w] == b[w];
	}
	is_int(shared, 0, "message 4096 and messages 4097..5096 of a QP share no word");
	is_int(pattern_check((const uint8_t *)a, sizeof(a), 0, 4097), 0,
	       "message 4096 checked as 4097: the header's first byte differs");
}

int main(void)
{
	test_flips();
	test_distinct();
	test_tag();
	test_large();
	test_sequence();
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
