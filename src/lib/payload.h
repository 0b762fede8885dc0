/*
 * --payload_file_path: a payload read from a file in perftest's format
 * (create_payload(), perftest_resources.c): DWORDs written "0xaabbccdd",
 * separated by commas (perftest: commas, then newlines after the first),
 * each stored little-endian, so "0xaabbccdd" is the bytes dd cc bb aa.
 * Here whitespace around a DWORD is allowed too; anything else is refused,
 * naming the DWORD.  A message of len bytes holds the payload from its
 * first byte, repeated past its end, cut at len (payload_fill): every
 * message, whatever its slot, starts at the payload's start.
 * Pure but for payload_load's file: tests/unit/test_payload.c.
 */
#ifndef RB_PAYLOAD_H
#define RB_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

/* The most text a payload file may hold (a 32 MiB file parses into about
 * 12 MiB of payload, more than one message of a -a sweep carries). */
#define PAYLOAD_FILE_MAX (32u << 20)

struct payload {
	uint8_t *bytes;         /* parsed; NULL: none */
	size_t len;             /* bytes (4 per DWORD) */
	size_t file_bytes;      /* the file's size */
	uint64_t hash;          /* FNV-1a 64 of the bytes: what both sides compare */
};

/* Parse text[0..n) into p (p->bytes malloc'd): 0, or -EINVAL with why
 * ("DWORD 3 ('0x12,') is not 0x and 8 hex digits") or -ENOMEM. */
int payload_parse(const char *text, size_t n, struct payload *p, char *why, size_t whylen);
/* Read and parse the file at path: 0, or -errno with why ("cannot open:
 * No such file or directory", "is empty", a parse error). */
int payload_load(const char *path, struct payload *p, char *why, size_t whylen);
/* len bytes of the payload bytes[0..n) into dst: repeated, cut at len. */
void payload_fill(uint8_t *dst, size_t len, const uint8_t *bytes, size_t n);
uint64_t payload_hash(const uint8_t *bytes, size_t n);
void payload_free(struct payload *p);

#endif
