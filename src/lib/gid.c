/*
 * GID table entries: names, formatting and the automatic choice of an index.
 * Pure: no verbs calls.
 */
#include "lib/gid.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

const char *gid_type_name(enum gid_type t)
{
	switch (t) {
	case GID_TYPE_IB:
		return "IB";
	case GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case GID_TYPE_ROCE_V2:
		return "RoCE v2";
	default:
		return "unknown";
	}
}

/* The kernel writes "IB/RoCE v1" for both: the link layer tells them apart. */
enum gid_type gid_type_parse(const char *sysfs_text, bool ib_link)
{
	if (!sysfs_text)
		return GID_TYPE_UNKNOWN;
	if (strcmp(sysfs_text, "IB/RoCE v1") == 0)
		return ib_link ? GID_TYPE_IB : GID_TYPE_ROCE_V1;
	if (strcmp(sysfs_text, "RoCE v2") == 0)
		return GID_TYPE_ROCE_V2;
	if (strcmp(sysfs_text, "IB") == 0)
		return GID_TYPE_IB;
	if (strcmp(sysfs_text, "RoCE v1") == 0)
		return GID_TYPE_ROCE_V1;
	return GID_TYPE_UNKNOWN;
}

bool gid_is_ipv4_mapped(const uint8_t raw[16])
{
	return memcmp(raw, v4_mapped_prefix, sizeof(v4_mapped_prefix)) == 0;
}

bool gid_is_link_local(const uint8_t raw[16])
{
	return raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80;
}

void gid_format(const uint8_t raw[16], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, raw, buf, (socklen_t)len) && len)
		buf[0] = '\0';
}

/* Callers know the link layer: for IB they print no IP at all. */
void gid_ip(const uint8_t raw[16], char *buf, size_t len)
{
	const char *s;

	if (gid_is_ipv4_mapped(raw))
		s = inet_ntop(AF_INET, raw + 12, buf, (socklen_t)len);
	else
		s = inet_ntop(AF_INET6, raw, buf, (socklen_t)len);
	if (!s && len)
		buf[0] = '\0';
}

/* Lower is better; 5 means unusable (empty). */
static int gid_rank(const struct gid_entry *e)
{
	bool mapped = gid_is_ipv4_mapped(e->raw);

	if (e->empty)
		return 5;
	if (e->type == GID_TYPE_ROCE_V2 && mapped)
		return 0;
	if (e->type == GID_TYPE_ROCE_V2 && !gid_is_link_local(e->raw))
		return 1;
	if (e->type == GID_TYPE_ROCE_V1 && mapped)
		return 2;
	if (e->type == GID_TYPE_ROCE_V1)
		return 3;
	return 4;
}

static const char *gid_kind(const uint8_t raw[16])
{
	if (gid_is_ipv4_mapped(raw))
		return "IPv4-mapped";
	return gid_is_link_local(raw) ? "IPv6 link-local" : "IPv6";
}

/* "RoCE v2, IPv4-mapped 192.0.2.1 on rxedummy0" */
static void gid_describe(const struct gid_entry *e, const char *prefix,
			 char *why, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	gid_ip(e->raw, ip, sizeof(ip));
	snprintf(why, len, "%s%s, %s %s%s%s", prefix, gid_type_name(e->type),
		 gid_kind(e->raw), ip, e->netdev[0] ? " on " : "", e->netdev);
}

static int gid_choose_ib(const struct gid_entry *e, int n, char *why, size_t len)
{
	char s[INET6_ADDRSTRLEN];

	for (int i = 0; i < n; i++) {
		if (e[i].empty)
			continue;
		gid_format(e[i].raw, s, sizeof(s));
		snprintf(why, len, "InfiniBand link layer: first valid GID %s", s);
		return e[i].index;
	}
	snprintf(why, len, "no valid GID in the table");
	return -ENOENT;
}

int gid_choose(const struct gid_entry *e, int n, bool ib_link, char *why, size_t len)
{
	int best = -1, best_rank = 5;

	if (ib_link)
		return gid_choose_ib(e, n, why, len);
	for (int i = 0; i < n; i++) {
		int r = gid_rank(&e[i]);

		if (r < best_rank) {
			best = i;
			best_rank = r;
		}
	}
	if (best < 0) {
		snprintf(why, len, "no valid GID in the table");
		return -ENOENT;
	}
	gid_describe(&e[best], best_rank == 4 ? "no routable GID, using " : "",
		     why, len);
	return e[best].index;
}

bool gid_is_multicast(const uint8_t raw[16])
{
	if (raw[0] == 0xff)
		return true;
	return gid_is_ipv4_mapped(raw) && (raw[12] & 0xf0) == 0xe0;
}

/* perftest's form: exactly 16 byte values, 15 colons (set_multicast_gid). */
static int mgid_parse_bytes(const char *text, uint8_t raw[16])
{
	const char *p = text;

	for (int i = 0; i < 16; i++) {
		char *end;
		unsigned long v;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoul(p, &end, 0);
		if (errno || end == p || v > 255 || *end != (i == 15 ? '\0' : ':'))
			return -EINVAL;
		raw[i] = (uint8_t)v;
		p = end + 1;
	}
	return 0;
}

static int colons(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == ':';
	return n;
}

int gid_parse_mgid(const char *text, uint8_t raw[16])
{
	struct in_addr a4;
	int err = 0;

	if (colons(text) == 15)
		err = mgid_parse_bytes(text, raw);
	else if (inet_pton(AF_INET, text, &a4) == 1) {
		memcpy(raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(raw + 12, &a4, 4);
	} else if (inet_pton(AF_INET6, text, raw) != 1)
		err = -EINVAL;
	if (err)
		return err;
	return gid_is_multicast(raw) ? 0 : -EDOM;
}

void gid_default_mgid(bool ipv4, uint8_t raw[16])
{
	static const uint8_t v6[16] = { 0xff, 0x05, 0, 0, 0, 2, 0xc9, 0x85 };
	static const uint8_t v4[4] = { 239, 2, 201, 133 };

	if (!ipv4) {
		memcpy(raw, v6, 16);
		return;
	}
	memcpy(raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
	memcpy(raw + 12, v4, 4);
}

void gid_mgid_next(uint8_t raw[16])
{
	raw[15]++;
}

uint64_t gid_half(const uint8_t raw[16], int half)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | raw[half * 8 + i];
	return v;
}
