/*
 * --validate's payload: what a message with tag T of QP Q holds, byte for
 * byte, and where a buffer first differs from it.  Pure: no verbs calls
 * (tests/unit/test_pattern.c).  The tag is the message's sequence number on
 * its QP where the sender writes each message (the bandwidth loops), else
 * the slot it comes from (a read responder's memory, a ping-pong's one
 * buffer).
 *
 * Bytes 0..7 are a header, little-endian: 0x5242 ("RB") in the top 16
 * bits, the QP's low 16 bits, then the tag's low 32 bits, so a receiver can
 * read which message it holds; every further 8 bytes are a splitmix64 step
 * from the header, so two tags share no word, and a byte that moved, went
 * stale or flipped differs from what is expected.  Shorter messages are a
 * prefix.
 */
#ifndef RB_PATTERN_H
#define RB_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PATTERN_MAGIC UINT64_C(0x5242)
#define PATTERN_NONE (-1)

uint64_t pattern_header(uint32_t qp, uint64_t tag);
void pattern_fill(uint8_t *buf, size_t len, uint32_t qp, uint64_t tag);
/* The offset of the first byte of buf that differs from want, or PATTERN_NONE. */
int64_t pattern_diff(const uint8_t *buf, const uint8_t *want, size_t len);
/* The offset of the first byte of buf that is not the pattern, or PATTERN_NONE. */
int64_t pattern_check(const uint8_t *buf, size_t len, uint32_t qp, uint64_t tag);
/* The tag a message of len bytes says it carries for QP qp: false when it
 * is shorter than the header or the header is not one of QP qp's. */
bool pattern_tag(const uint8_t *buf, size_t len, uint32_t qp, uint64_t *tag);

#endif
