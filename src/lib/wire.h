/*
 * The out-of-band message format: explicit, versioned, big-endian.  Pure
 * encode/decode, no I/O (oob.c moves the bytes).  Never a raw struct on the
 * wire.
 *
 * Frame header, 12 bytes:
 *   u32 magic   = 0x52444D42 ("RDMB")
 *   u16 version = WIRE_VERSION
 *   u16 type    = enum wire_type
 *   u32 length  = payload bytes that follow, <= WIRE_MAX_PAYLOAD
 *
 * Payloads:
 *   HELLO  u16 count, then count x { u16 param id, u64 value }, then
 *          u8 name_len, name bytes (the benchmark name, e.g. "rb_send_bw";
 *          printable ASCII, 0x20..0x7e).
 *          Unknown ids are kept (a newer peer) and reported as differences.
 *          Most params must be equal on both sides; a few are offers that
 *          may differ (the device's read/atomic limits, -o: struct
 *          wire_rd_offer), from which both sides pick one value.
 *   QP     u16 count (1..WIRE_MAX_QPS), then count x 44 bytes:
 *          u32 qpn, u32 psn, u16 lid, u8 gid[16], u32 rkey, u64 addr,
 *          u32 mtu (bytes), u16 reserved(0)
 *   READY, DONE, BUSY: empty payload.
 *   ERROR  u16 len, message bytes (not NUL terminated, len <= 1024).
 *   RESULT u16 count, then count x { u16 id, u64 value } (the peer's counters,
 *          e.g. messages received), same encoding as HELLO's params.
 *   DOCTOR printable ASCII "key=value\n" lines (rb_doctor only; unknown keys
 *          are ignored): the facts of a host ("doctor=1", "version=", "dev=",
 *          "gid_type=", ...), "step=N", "ready=N", "done=N" with "rc=",
 *          "diag=", and "bye=1".
 *   THREAD u16 thread, u16 type, then that type's payload: a frame of one
 *          measuring thread (--threads) carried on the session's channel.
 */
#ifndef RB_WIRE_H
#define RB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_MAGIC 0x52444D42u
#define WIRE_VERSION 1
#define WIRE_HDR_LEN 12
#define WIRE_MAX_PAYLOAD 65536u
#define WIRE_MAX_QPS 1024
#define WIRE_MAX_PARAMS 64
#define WIRE_MAX_NAME 64
#define WIRE_MAX_ERROR 1024

enum wire_type {
	WIRE_HELLO = 1,
	WIRE_QP = 2,
	WIRE_READY = 3,
	WIRE_DONE = 4,
	WIRE_ERROR = 5,
	WIRE_BUSY = 6,
	WIRE_RESULT = 7,
	WIRE_DOCTOR = 8,            /* rb_doctor: "key=value\n" lines (src/prog/doctor/peer.c) */
	WIRE_THREAD = 9,
	WIRE_TYPE_MAX = 9,
};

struct wire_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t length;
};

/* A list (percentiles, counters) travels in HELLO as one parameter: its
 * FNV-1a hash, fed one value at a time from WIRE_FNV_INIT. */
#define WIRE_FNV_INIT 14695981039346656037ULL

static inline uint64_t wire_fnv1a(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211ULL;
}

struct wire_param {
	uint16_t id;
	uint64_t value;
};

struct wire_hello {
	char name[WIRE_MAX_NAME + 1];
	int nparams;
	struct wire_param params[WIRE_MAX_PARAMS];
};

/*
 * Outstanding RDMA reads/atomics: what each side offers in HELLO.  A QP's
 * max_rd_atomic (requester) must not exceed the peer's max_dest_rd_atomic
 * (responder), each bounded by its own device (max_qp_init_rd_atom,
 * max_qp_rd_atom); both sides set both on every RC QP, so both use the
 * smallest value either side offers.  0: no limit from that field (no -o;
 * a device not known yet, as under -R before rdma_cm picks it).
 */
struct wire_rd_offer {
	uint64_t asked;             /* -o/--outs */
	uint64_t rd_atom;           /* max_qp_rd_atom */
	uint64_t init_rd_atom;      /* max_qp_init_rd_atom */
};

/* Its HELLO param ids: apart from the compared ones (1, 2, ...), which
 * must be equal on both sides. */
enum { WIRE_P_OUTS_ASKED = 0x100, WIRE_P_RD_ATOM = 0x101, WIRE_P_INIT_RD_ATOM = 0x102,
       WIRE_P_LOAD_PORT = 0x103, /* --load: the server's TCP port for the load's channel, 0: none */
       WIRE_P_MTU_ASKED = 0x104 /* -m: both sides use the smaller one given (0: none) */ };
#define WIRE_P_FIRST_OFFER WIRE_P_OUTS_ASKED

/* The offer in a decoded HELLO (a missing id reads as 0: no limit). */
void wire_hello_offer(const struct wire_hello *h, struct wire_rd_offer *o);
/* The smallest nonzero value of both offers, at most 255 (a QP
 * attribute holds 8 bits). */
unsigned wire_rd_depth(const struct wire_rd_offer *a, const struct wire_rd_offer *b);

struct wire_qp {
	uint32_t qpn, psn;
	uint16_t lid;
	uint8_t gid[16];
	uint32_t rkey;
	uint64_t addr;
	uint32_t mtu;
};

#define WIRE_QP_LEN 44

/* Header: encode into 12 bytes; decode checks magic, version, type, length.
 * decode returns 0, -EPROTO (bad magic or unknown type), -EPROTONOSUPPORT
 * (other version), -EMSGSIZE (length > WIRE_MAX_PAYLOAD). */
void wire_hdr_encode(uint8_t *buf, uint16_t type, uint32_t length);
int wire_hdr_decode(const uint8_t *buf, struct wire_hdr *h);

/* Payload encoders return the bytes written, or -EMSGSIZE when cap is too small. */
int wire_hello_encode(const struct wire_hello *m, uint8_t *buf, size_t cap);
int wire_qp_encode(const struct wire_qp *qps, int n, uint8_t *buf, size_t cap);
int wire_params_encode(const struct wire_param *p, int n, uint8_t *buf, size_t cap);
int wire_error_encode(const char *msg, uint8_t *buf, size_t cap);

/* Payload decoders validate every count and length against len and the
 * WIRE_MAX_* bounds; 0 or -EPROTO. */
int wire_hello_decode(const uint8_t *buf, size_t len, struct wire_hello *m);
int wire_qp_decode(const uint8_t *buf, size_t len, struct wire_qp *qps, int max, int *n);
int wire_params_decode(const uint8_t *buf, size_t len, struct wire_param *p, int max, int *n);
int wire_error_decode(const uint8_t *buf, size_t len, char *msg, size_t cap);

/* THREAD: the frame (type, payload of len bytes) of thread t.  encode
 * returns the bytes written or -EMSGSIZE; decode points *payload into buf
 * and checks the inner type, 0 or -EPROTO. */
#define WIRE_THREAD_HDR 4
int wire_thread_encode(uint16_t t, uint16_t type, const void *payload, uint32_t len,
		       uint8_t *buf, size_t cap);
int wire_thread_decode(const uint8_t *buf, size_t len, uint16_t *t, uint16_t *type,
		       const uint8_t **payload, uint32_t *plen);

/* Human name of a message type ("HELLO"), "unknown" otherwise. */
const char *wire_type_name(uint16_t type);

#endif
