/*
 * --payload_file_path and --mr_per_qp as options: the payload file read
 * and checked while parsing (a missing, unreadable, empty or malformed
 * file is a usage error naming the option and the path), what HELLO
 * compares, what the metadata says.  The file is read again where the
 * buffers are filled (engine/payload.c): options keep only its path, its
 * length and hash, no bytes.
 */
#include <errno.h>
#include <inttypes.h>

#include "cli/rows.h"
#include "lib/log.h"
#include "lib/payload.h"

#define OPT ((const struct rb_options *)o)

int opt_parse_payload(const struct opt_row *r, const char *val, void *dst)
{
	struct rb_options *o = dst;
	struct payload p;
	char why[200] = "", lbl[48];
	int err = payload_load(val, &p, why, sizeof(why));

	if (err) {
		log_err("%s: '%s' %s", opt_label(r, lbl, sizeof(lbl)), val, why);
		log_info("expected a file of DWORDs, perftest's format: 0xaabbccdd,0x11223344,... (each little-endian: dd cc bb aa)");
		return -EINVAL;
	}
	o->payload_path = val;
	o->payload_len = p.len;
	o->payload_hash = p.hash;
	o->payload_file_bytes = p.file_bytes;
	payload_free(&p);
	return 0;
}

/* The payload's hash where the peer checks it (--validate), else 0: the
 * checking side must hold the same payload as the sending one. */
uint64_t peer_payload(const void *o, const void *b)
{
	(void)b;
	return OPT->validate && OPT->payload_path ? OPT->payload_hash : 0;
}

const char *peer_text_payload(uint64_t v, char *buf, size_t len)
{
	if (!v)
		return "none";
	snprintf(buf, len, "hash %016" PRIx64, v);
	return buf;
}

void meta_payload(struct out *out, const void *o, const struct opt_row *r)
{
	char hash[24];

	(void)r;
	out_meta_str(out, "payload_file", "Payload file", OPT->payload_path);
	out_meta_u64(out, "payload_file_bytes", "Payload file[B]", OPT->payload_file_bytes);
	out_meta_u64(out, "payload_bytes", "Payload[B]", OPT->payload_len);
	snprintf(hash, sizeof(hash), "%016" PRIx64, OPT->payload_hash);
	out_meta_str(out, "payload_fnv1a64", "Payload FNV-1a", hash);
}
