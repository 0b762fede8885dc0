/*
 * GID table entries and the choice of a GID when -x is not given.  Pure:
 * no verbs calls, unit-tested on hand-made tables.
 */
#ifndef RB_GID_H
#define RB_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gid_type { GID_TYPE_IB, GID_TYPE_ROCE_V1, GID_TYPE_ROCE_V2, GID_TYPE_UNKNOWN };

struct gid_entry {
	int index;
	uint8_t raw[16];
	enum gid_type type;
	char netdev[32];        /* "" when none */
	bool empty;             /* all-zero GID: unused slot */
};

/* "IB", "RoCE v1", "RoCE v2", "unknown" */
const char *gid_type_name(enum gid_type t);
/* sysfs spelling: "IB/RoCE v1" -> GID_TYPE_ROCE_V1 (IB link: IB), "RoCE v2". */
enum gid_type gid_type_parse(const char *sysfs_text, bool ib_link);
bool gid_is_ipv4_mapped(const uint8_t raw[16]);
bool gid_is_link_local(const uint8_t raw[16]);     /* fe80::/10 */
/* "::ffff:192.0.2.1" style for mapped, full IPv6 otherwise (inet_ntop). */
void gid_format(const uint8_t raw[16], char *buf, size_t len);
/* The IP address a RoCE GID stands for ("192.0.2.1" or IPv6), "" for IB. */
void gid_ip(const uint8_t raw[16], char *buf, size_t len);

/*
 * Choose a GID index.  IB link layer: the first non-empty entry (index 0).
 * RoCE: RoCE v2 with an IPv4-mapped address first, then RoCE v2 IPv6 global
 * (not link-local), then RoCE v1 (IPv4-mapped first), then any non-empty.
 * Writes a one-line reason into why ("RoCE v2, IPv4-mapped 192.0.2.1 on
 * rxedummy0").  Returns the chosen entry's index or -ENOENT.
 */
int gid_choose(const struct gid_entry *e, int n, bool ib_link, char *why, size_t len);

/*
 * Multicast groups (-g/--mcg, -M/--MGID).  An MGID is a multicast GID:
 * ff00::/8, or on RoCE v2 with IPv4 an IPv4-mapped ::ffff:224.0.0.0/4
 * (rxe sends to the IPv4 address in its last 4 bytes).
 */
bool gid_is_multicast(const uint8_t raw[16]);
/* -M's text: perftest's 16 byte values "255:1:0:0:0:2:201:133:0:0:0:0:0:0:0:0"
 * (each decimal or 0x hex), an IPv6 address, or an IPv4 address (taken
 * IPv4-mapped).  0, or -EINVAL (not a GID) or -EDOM (not multicast). */
int gid_parse_mgid(const char *text, uint8_t raw[16]);
/* The default group for a source GID of this family: IPv4-mapped
 * ::ffff:239.2.201.133, else ff05:0:2:c985:: (perftest's ff01:0:2:c985::,
 * site scope: an interface-local group never leaves the host). */
void gid_default_mgid(bool ipv4, uint8_t raw[16]);
/* The second group of a ping-pong (the client's): the last byte plus 1,
 * as perftest's client takes. */
void gid_mgid_next(uint8_t raw[16]);
/* Half of a GID as one number (HELLO): 0 the first 8 bytes, 1 the last. */
uint64_t gid_half(const uint8_t raw[16], int half);

#endif
