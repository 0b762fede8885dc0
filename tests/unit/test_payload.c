/* --payload_file_path's parser (perftest's DWORD format), fill and load. */
#include "lib/payload.h"
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static int parse(const char *text, struct payload *p, char *why)
{
	return payload_parse(text, strlen(text), p, why, 160);
}

/* "0xaabbccdd" is the bytes dd cc bb aa, as perftest stores it. */
static void test_order(void)
{
	static const uint8_t want[] = { 0xdd, 0xcc, 0xbb, 0xaa, 0x44, 0x33, 0x22, 0x11 };
	struct payload p;
	char why[160] = "";
	int err = parse("0xaabbccdd,0x11223344", &p, why);

	ok(err == 0 && p.len == 8 && memcmp(p.bytes, want, 8) == 0,
	   "two DWORDs: 8 bytes, each little-endian (err %d, len %zu)", err, p.len);
	ok(p.hash == payload_hash(want, 8) && p.hash != payload_hash(want, 7), "the hash is of the bytes");
	payload_free(&p);
	err = parse(" 0XAABBCCDD ,\n0x11223344,\n", &p, why);
	ok(err == 0 && p.len == 8 && memcmp(p.bytes, want, 8) == 0,
	   "spaces, newlines, a trailing comma and 0X are taken (err %d: %s)", err, why);
	payload_free(&p);
}

static void test_refused(void)
{
	static const char *const bad[] = { "0xaabbcc", "0xaabbccdd0", "aabbccdd00", "0xaabbccgg",
					   "0xaabbccdd;0x11223344", "0xaabbccdd,zz" };
	struct payload p;
	char why[160];
	int wrong = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &p, why) != -EINVAL || p.bytes || !strstr(why, "is not 0x and 8 hex digits"))
			wrong++;
	is_int(wrong, 0, "a short, long, unprefixed, non-hex or wrongly separated DWORD is refused, named");
	ok(parse("0xaabbccdd,zz", &p, why) == -EINVAL && strstr(why, "DWORD 1 ('zz')"),
	   "the refusal names which DWORD: %s", why);
	ok(parse(" ,\n", &p, why) == -EINVAL && strstr(why, "holds no DWORD"), "no DWORD: refused (%s)", why);
}

static void test_fill(void)
{
	const uint8_t src[3] = { 1, 2, 3 };
	uint8_t dst[8];

	memset(dst, 0xee, sizeof(dst));
	payload_fill(dst, 7, src, 3);
	ok(memcmp(dst, "\1\2\3\1\2\3\1\xee", 8) == 0, "a shorter payload repeats, cut at the length");
	payload_fill(dst, 2, src, 3);
	ok(memcmp(dst, "\1\2\3", 3) == 0 && dst[2] == 3, "a longer payload is cut at the length");
}

static void test_load(void)
{
	char path[] = "/tmp/rb-payload-XXXXXX", why[160] = "";
	struct payload p;
	int fd = mkstemp(path);

	ok(fd >= 0, "a scratch file");
	if (fd < 0)
		return;
	ok(payload_load(path, &p, why, sizeof(why)) == -EINVAL && strstr(why, "is empty"), "an empty file: %s", why);
	ok(write(fd, "0x01020304\n", 11) == 11, "written");
	close(fd);
	ok(payload_load(path, &p, why, sizeof(why)) == 0 && p.len == 4 && p.bytes[0] == 4 && p.file_bytes == 11,
	   "a file of one DWORD: 4 bytes, the file's size kept (%s)", why);
	payload_free(&p);
	unlink(path);
	ok(payload_load(path, &p, why, sizeof(why)) == -ENOENT && strstr(why, "cannot open"), "a missing file: %s", why);
}

int main(void)
{
	test_order();
	test_refused();
	test_fill();
	test_load();
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
