/* --payload_file_path's file, parsed (payload.h). */
#include "lib/payload.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/* One DWORD token "0x" + 8 hex digits into out[0..3], little-endian. */
static int dword_parse(const char *t, size_t n, uint8_t *out)
{
	if (n != 10 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
		return -EINVAL;
	for (size_t i = 2; i < 10; i++)
		if (!isxdigit((unsigned char)t[i]))
			return -EINVAL;
	for (int b = 0; b < 4; b++)
		out[b] = (uint8_t)(hexval(t[8 - 2 * b]) << 4 | hexval(t[9 - 2 * b]));
	return 0;
}

static void token_why(const char *t, size_t n, size_t k, char *why, size_t whylen)
{
	snprintf(why, whylen, "DWORD %zu ('%.*s%s') is not 0x and 8 hex digits (the format: 0xaabbccdd,0x11223344,...)",
		 k, (int)(n > 24 ? 24 : n), t, n > 24 ? "..." : "");
}

static bool is_sep(char c)
{
	return c == ',' || isspace((unsigned char)c);
}

int payload_parse(const char *text, size_t n, struct payload *p, char *why, size_t whylen)
{
	size_t k = 0, i = 0;

	memset(p, 0, sizeof(*p));
	p->bytes = malloc(n / 2 + 4);
	if (!p->bytes)
		return -ENOMEM;
	for (;;) {
		size_t start;

		while (i < n && is_sep(text[i]))
			i++;
		if (i == n)
			break;
		for (start = i; i < n && !is_sep(text[i]); i++)
			;
		if (dword_parse(text + start, i - start, p->bytes + 4 * k)) {
			token_why(text + start, i - start, k, why, whylen);
			payload_free(p);
			return -EINVAL;
		}
		k++;
	}
	if (!k) {
		snprintf(why, whylen, "holds no DWORD (the format: 0xaabbccdd,0x11223344,...)");
		payload_free(p);
		return -EINVAL;
	}
	p->len = 4 * k;
	p->hash = payload_hash(p->bytes, p->len);
	return 0;
}

static int read_all(FILE *f, char **text, size_t *n, char *why, size_t whylen)
{
	*text = malloc(PAYLOAD_FILE_MAX + 1);
	if (!*text)
		return -ENOMEM;
	*n = fread(*text, 1, PAYLOAD_FILE_MAX + 1, f);
	if (ferror(f)) {
		snprintf(why, whylen, "cannot read: %s", strerror(errno));
		return -EIO;
	}
	if (*n > PAYLOAD_FILE_MAX) {
		snprintf(why, whylen, "is over %u MiB", PAYLOAD_FILE_MAX >> 20);
		return -EFBIG;
	}
	if (!*n) {
		snprintf(why, whylen, "is empty");
		return -EINVAL;
	}
	return 0;
}

int payload_load(const char *path, struct payload *p, char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t n = 0;
	int err;

	memset(p, 0, sizeof(*p));
	if (!f) {
		err = -errno;
		snprintf(why, whylen, "cannot open: %s", strerror(errno));
		return err;
	}
	err = read_all(f, &text, &n, why, whylen);
	fclose(f);
	if (!err)
		err = payload_parse(text, n, p, why, whylen);
	free(text);
	p->file_bytes = n;
	return err;
}

void payload_fill(uint8_t *dst, size_t len, const uint8_t *bytes, size_t n)
{
	for (size_t done = 0; done < len; done += n < len - done ? n : len - done)
		memcpy(dst + done, bytes, n < len - done ? n : len - done);
}

uint64_t payload_hash(const uint8_t *bytes, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ bytes[i]) * 1099511628211ULL;
	return h;
}

void payload_free(struct payload *p)
{
	free(p->bytes);
	p->bytes = NULL;
	p->len = 0;
}
