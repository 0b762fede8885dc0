/* --validate's payload pattern (pattern.h). */
#include "lib/pattern.h"

#include <string.h>

uint64_t pattern_header(uint32_t qp, uint64_t tag)
{
	return PATTERN_MAGIC << 48 | (uint64_t)(qp & 0xffffu) << 32 | (tag & 0xffffffffu);
}

/* splitmix64's output function over the header plus a word's index */
static uint64_t pattern_word(uint64_t header, uint64_t w)
{
	uint64_t z = header + w * UINT64_C(0x9e3779b97f4a7c15);

	if (w == 0)
		return header;
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void pattern_fill(uint8_t *buf, size_t len, uint32_t qp, uint64_t tag)
{
	uint64_t h = pattern_header(qp, tag);

	for (size_t o = 0; o < len; o += 8) {
		uint64_t v = pattern_word(h, o / 8);

		for (size_t b = 0; b < 8 && o + b < len; b++)
			buf[o + b] = (uint8_t)(v >> (8 * b));
	}
}

int64_t pattern_diff(const uint8_t *buf, const uint8_t *want, size_t len)
{
	if (memcmp(buf, want, len) == 0)
		return PATTERN_NONE;
	for (size_t o = 0; o < len; o++)
		if (buf[o] != want[o])
			return (int64_t)o;
	return PATTERN_NONE;
}

/* Word by word as pattern_fill writes them: no copy of the expected bytes. */
int64_t pattern_check(const uint8_t *buf, size_t len, uint32_t qp, uint64_t tag)
{
	uint64_t h = pattern_header(qp, tag);

	for (size_t o = 0; o < len; o += 8) {
		uint64_t v = pattern_word(h, o / 8);

		for (size_t b = 0; b < 8 && o + b < len; b++)
			if (buf[o + b] != (uint8_t)(v >> (8 * b)))
				return (int64_t)(o + b);
	}
	return PATTERN_NONE;
}

bool pattern_tag(const uint8_t *buf, size_t len, uint32_t qp, uint64_t *tag)
{
	uint64_t h = 0;

	if (len < 8)
		return false;
	for (int b = 7; b >= 0; b--)
		h = h << 8 | buf[b];
	if (h >> 48 != PATTERN_MAGIC || (h >> 32 & 0xffffu) != (qp & 0xffffu))
		return false;
	*tag = h & 0xffffffffu;
	return true;
}
