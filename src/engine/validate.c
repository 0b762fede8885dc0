/*
 * --validate (pattern.h).  What each test checks, and where:
 *   send bw    every message, by its receiver at its completion: the
 *              sender writes message k of QP i (its sequence number in the
 *              header, the rest derived from it) into a buffer of its own
 *              (qp.h's tx_ring) just before posting it, and each receive has
 *              a buffer of its own (qp.h's ring): RC's k-th receive must be
 *              message k, UC's and UD's a later one than the last (they may
 *              lose messages);
 *   read bw    every read, by the reader at its completion: each read lands
 *              in a buffer of its own (tx_ring) that was poisoned (zeroed)
 *              just before it was posted, and must hold what the responder
 *              holds in the slot it read from (fixed: the responder's CPU
 *              takes no part);
 *   write bw   after the run, by the target: each slot must hold the last
 *              message written into it (its sequence number: every earlier
 *              one differs), so the last messages into each of its slots
 *              (64 at most per QP; one above 2 KiB) are checked, not every
 *              message: a plain write leaves the target no event per
 *              message;
 *   atomic bw  every result, at its completion: each operation in flight
 *              returns into a word of its own (tx_ring) set to all ones
 *              before it is posted (wr.c's atomic_result: operation k finds
 *              k / slots in its target word);
 *   ping-pongs (send_lat, read_lat) every message or read, into a buffer
 *              poisoned before it was posted, against the sender's one
 *              fixed payload (the latency loops write no payload per
 *              message); write_lat: its one slot after the run.
 * The sequence numbers are each QP's WR count from 0 (warm-up included).
 * Memory the CPU may not touch (GPU memory, mem.h) is checked on a host
 * copy (its stage): what is written here is pushed to the buffer before
 * the device reads it, what the device wrote is pulled before it is
 * checked (vpush, vpull: nothing for host memory).
 *
 * --bounce (with or without --validate) takes the same buffers, the same
 * hooks and the loops' same copies that call them: the registered buffer
 * is then a host buffer of its own (qp.h's bounce) and the data's buffer
 * (buf, GPU memory or host) is copied into it before each send or write
 * (validate_stamp) and out of it after each receive or read completed
 * (validate_recv, validate_reads).  A write's target learns of no message:
 * its areas are copied once, after the run (validate_after).
 */
#include "engine/internal.h"

#include "lib/pattern.h"
#include "lib/testfault.h"

#define VTAG(k) ((k) & 0xffffffffu)     /* the header's 32 bits of a sequence number */
#define VFAULT_LATE 5                   /* RB_TEST_FAULT=corrupt-late: this message */

/* The expected payload of slot j of QP i at this size (fixed payloads). */
static const uint8_t *vref_slot(const struct rb_session *s, int i, uint64_t j)
{
	return s->val->ref + ((uint64_t)i * loop_addr_slots(s) + j) * loop_addr_stride(s);
}

static void validate_note(struct rb_session *s, int i, uint64_t msg, int64_t off)
{
	struct rb_vresult *v = &s->val->res;

	v->checked++;
	if (off == PATTERN_NONE)
		return;
	if (!v->errors++) {
		v->first_msg = msg;
		v->first_off = off;
		v->first_qp = i;
	}
}

/* A copy that failed (said by the kind) counts as a wrong payload. */
static void vcopied(struct rb_session *s, int err)
{
	if (err)
		validate_note(s, 0, 0, 0);
}

static void vpush(struct rb_session *s, const uint8_t *p, size_t len)
{
	const struct mem_buf *b = &s->conn.q.buf;

	if (mem_staged(b))
		vcopied(s, mem_push(b, (size_t)(p - (const uint8_t *)b->view), len));
}

static void vpull(struct rb_session *s, const uint8_t *p, size_t len)
{
	const struct mem_buf *b = &s->conn.q.buf;

	if (mem_staged(b))
		vcopied(s, mem_pull(b, (size_t)(p - (const uint8_t *)b->view), len));
}

/* --bounce: len bytes at off of the data's buffer into the registered
 * host buffer (out), or back (in).  Nothing without --bounce. */
static void bounce_out(struct rb_session *s, size_t off, size_t len)
{
	struct rb_qps *q = &s->conn.q;

	if (q->bounce.ops)
		vcopied(s, mem_to_host((char *)q->bounce.cpu + off, &q->buf, off, len));
}

static void bounce_in(struct rb_session *s, size_t off, size_t len)
{
	struct rb_qps *q = &s->conn.q;

	if (q->bounce.ops)
		vcopied(s, mem_from_host(&q->buf, off, (const char *)q->bounce.cpu + off, len));
}

/* Slot 0 of QP 0, for the tests: a byte the peer must find changed
 * (RB_TEST_FAULT=corrupt, --enable-test-faults): a fixed payload's. */
static void validate_fault(const struct rb_session *s, int i, uint8_t *area)
{
	if (i == 0 && s->run.size && test_fault("corrupt"))
		area[s->run.size / 2] ^= 0x20;
}

/* Each slot's payload into an area of QP i (a ping-pong's sender, a
 * read's responder). */
static void validate_fill(const struct rb_session *s, int i, uint8_t *area)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);

	for (uint64_t j = 0; j < slots; j++)
		memcpy(area + j * stride, vref_slot(s, i, j), s->run.size);
	validate_fault(s, i, area);
}

static bool side_posts(const struct rb_session *s)
{
	return s->is_client || s->opt->bidir || s->bench->metric == METRIC_LAT;
}

static bool side_is_target(const struct rb_session *s)
{
	return !s->is_client || s->opt->bidir || s->bench->metric == METRIC_LAT;
}

/* What each side's areas hold before the start: fixed payloads where they
 * are sent (ping-pongs) or read from, zeros where they land (a slot never
 * written shows).  The bandwidth loops' buffers are written per WR. */
static void validate_areas(struct rb_session *s)
{
	size_t span = loop_addr_slots(s) * loop_addr_stride(s);
	enum rb_verb v = s->bench->verb;

	for (int i = 0; i < s->conn.q.n && v != VERB_ATOMIC; i++) {
		uint8_t *send = qps_cpu_send_area(&s->conn.q, i);
		uint8_t *recv = qps_cpu_recv_area(&s->conn.q, i);

		if (v != VERB_READ && side_posts(s) && !s->conn.q.tx_ring)
			validate_fill(s, i, send);
		if (v == VERB_WRITE && side_is_target(s))
			memset(recv, 0, span);
		if (v == VERB_READ && (!s->is_client || s->opt->bidir))
			validate_fill(s, i, recv);
		if (v == VERB_READ && s->is_client && !s->conn.q.tx_ring)
			memset(send, 0, span);
	}
	vpush(s, s->conn.q.buf.view, s->conn.q.buf.len);
}

static int validate_refs(struct rb_session *s);

int validate_prepare(struct rb_session *s)
{
	if (!s->val && !(s->val = calloc(1, sizeof(*s->val))))
		return -ENOMEM;
	free(s->val->ref);
	free(s->val->next);
	s->val->res = (struct rb_vresult){ .first_off = PATTERN_NONE };
	s->val->ref = NULL;
	s->val->next = NULL;
	if (s->opt->validate && validate_refs(s))
		return -ENOMEM;
	bounce_out(s, 0, s->conn.q.buf.len);
	return 0;
}

/* The expected payloads of this size, and the areas set as they start. */
static int validate_refs(struct rb_session *s)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);

	s->val->ref = malloc((size_t)s->conn.q.n * slots * stride);
	s->val->next = calloc((size_t)s->conn.q.n, sizeof(*s->val->next));
	if (!s->val->ref || !s->val->next)
		return -ENOMEM;
	for (int i = 0; i < s->conn.q.n; i++)
		for (uint64_t j = 0; j < slots; j++)
			pattern_fill((uint8_t *)vref_slot(s, i, j), s->run.size, (uint32_t)i, j);
	validate_areas(s);
	return 0;
}

void validate_free(struct rb_session *s)
{
	if (s->val) {
		free(s->val->ref);
		free(s->val->next);
	}
	free(s->val);
	s->val = NULL;
}

const struct rb_vresult *validate_result(const struct rb_session *s)
{
	static const struct rb_vresult none = { .first_off = -1 };

	return s->val ? &s->val->res : &none;
}

/* The faults build's payload faults on QP 0's WR k (testfault.h): stale,
 * every WR after the first moves nothing (a zero-length WR, which completes
 * as any other); corrupt, corrupt-late: a byte of message 0, or 5, flipped. */
static void stamp_fault(const struct rb_session *s, int i, uint64_t k, struct ibv_send_wr *wr,
			uint8_t *buf)
{
	if (i != 0 || !s->run.size)
		return;
	if (k > 0 && test_fault("stale"))
		wr->sg_list->length = 0;
	if ((k == 0 && test_fault("corrupt")) || (k == VFAULT_LATE && test_fault("corrupt-late")))
		buf[s->run.size / 2] ^= 0x20;
}

/*
 * The k-th WR of QP i is about to be posted (bandwidth loops): its buffer
 * of the tx ring gets message k's payload (sends, writes) or is zeroed
 * (reads), and the WR points at it.  The WR that used it before is done:
 * at most -t are in flight (postsched.h).
 */
void validate_stamp(struct rb_session *s, int i, struct ibv_send_wr *wr, uint64_t k)
{
	if (s->opt->validate) {
		uint8_t *buf = qps_cpu_tx_buf(&s->conn.q, i, k);

		if (s->bench->verb == VERB_READ)
			memset(buf, 0, s->run.size);
		else if (s->bench->verb == VERB_ATOMIC)
			memset(buf, 0xff, sizeof(uint64_t));   /* never a result: 2^64 - 1 operations */
		else
			pattern_fill(buf, s->run.size, (uint32_t)i, VTAG(k));
		stamp_fault(s, i, k, wr, buf);
		vpush(s, buf, s->bench->verb == VERB_ATOMIC ? sizeof(uint64_t) : s->run.size);
	}
	if (s->opt->validate || s->bench->verb != VERB_READ)   /* a read's data comes back */
		bounce_out(s, qps_tx_off(&s->conn.q, i, k), s->run.size);
	wr->sg_list->addr = (uintptr_t)qps_tx_buf(&s->conn.q, i, k);
}

/*
 * Which message receive c of QP i must hold: a ping-pong's one payload
 * (tag 0); RC: message c; UC, UD: the one its header names if that is
 * later than the last one received, else (a stale or repeated message)
 * the next one, which it is not.  Messages under 8 bytes carry no header:
 * message c.
 */
static uint64_t recv_want(struct rb_session *s, int i, uint64_t c, const uint8_t *buf)
{
	uint64_t tag;

	if (s->bench->metric == METRIC_LAT)
		return 0;
	if (s->conn.q.tr == TR_RC || !pattern_tag(buf, s->run.size, (uint32_t)i, &tag))
		return VTAG(c);
	if (tag < s->val->next[i])
		return VTAG(s->val->next[i]);
	s->val->next[i] = tag + 1;
	return tag;
}

/* Receive c (from 0) of QP i, in its ring buffer. */
void validate_recv(struct rb_session *s, int i, uint64_t c)
{
	const uint8_t *buf;

	bounce_in(s, qps_ring_off(&s->conn.q, i, c), s->run.size + (s->conn.q.tr == TR_UD ? RB_UD_GRH : 0));
	if (!s->opt->validate)
		return;
	buf = qps_cpu_ring_buf(&s->conn.q, i, c);
	vpull(s, buf, s->run.size + (s->conn.q.tr == TR_UD ? RB_UD_GRH : 0));
	if (s->conn.q.tr == TR_UD)
		buf += RB_UD_GRH;
	validate_note(s, i, c, pattern_check(buf, s->run.size, (uint32_t)i, recv_want(s, i, c, buf)));
}

/* A ping-pong's receive buffer before it is posted again: zeroed, so that
 * a receive that brought nothing (its one payload is fixed) shows. */
void validate_poison_recv(struct rb_session *s, int i)
{
	uint8_t *buf = qps_cpu_ring_buf(&s->conn.q, i, s->conn.q.ring_posted[i]);

	if (s->bench->metric == METRIC_LAT) {
		memset(buf, 0, s->run.size + RB_UD_GRH);
		vpush(s, buf, s->run.size + RB_UD_GRH);
	}
}

/* Reads k .. k + n - 1 of QP i have completed: each one's buffer holds
 * what the responder's slot does.  The bandwidth loop's buffers are its
 * own (zeroed at its post); the latency loop's one buffer is zeroed here,
 * after its check, for the next read. */
void validate_reads(struct rb_session *s, int i, uint64_t k, uint64_t n)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);
	const struct rb_qps *q = &s->conn.q;

	for (uint64_t e = k + n; k < e; k++) {
		size_t off = q->tx_ring ? qps_tx_off(q, i, k) : qps_send_off(q, i) + k % slots * stride;
		uint8_t *buf;

		bounce_in(s, off, s->run.size);
		if (!s->opt->validate)
			continue;
		buf = (uint8_t *)q->buf.view + off;
		vpull(s, buf, s->run.size);
		validate_note(s, i, k, pattern_diff(buf, vref_slot(s, i, k % slots), s->run.size));
		if (!q->tx_ring) {
			memset(buf, 0, s->run.size);
			vpush(s, buf, s->run.size);
		}
	}
}

/* Atomics k .. k + n - 1 of QP i have completed: each one's result. */
static void validate_atomics(struct rb_session *s, int i, uint64_t k, uint64_t n)
{
	for (uint64_t e = k + n; k < e; k++) {
		uint64_t got;

		vpull(s, qps_cpu_tx_buf(&s->conn.q, i, k), sizeof(got));
		memcpy(&got, qps_cpu_tx_buf(&s->conn.q, i, k), sizeof(got));
		validate_note(s, i, k, atomic_result(s, i, k, got, !s->val->res.errors) ? 0 : PATTERN_NONE);
	}
}

/* WRs k .. k + n - 1 of QP i of a bandwidth loop have completed. */
void validate_done(struct rb_session *s, int i, uint64_t k, uint64_t n)
{
	if (s->bench->verb == VERB_ATOMIC)
		validate_atomics(s, i, k, n);
	else
		validate_reads(s, i, k, n);
}

static bool all_zero(const uint8_t *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/* -D: how many WRs the writer posted, from the target's slots: one more
 * than the latest sequence number found in a slot it belongs to (every slot
 * is then checked up to that count), or every slot where some slot holds
 * neither zeros nor a header of its own. */
static uint64_t target_count(const struct rb_session *s, int i, const uint8_t *area)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s), n = 0, tag;
	bool stray = false;

	for (uint64_t j = 0; j < slots; j++) {
		const uint8_t *buf = area + j * stride;

		if (pattern_tag(buf, s->run.size, (uint32_t)i, &tag) && tag % slots == j)
			n = tag + 1 > n ? tag + 1 : n;
		else if (!all_zero(buf, s->run.size))
			stray = true;
	}
	return stray && n < slots ? slots : n;
}

/*
 * A write target after the run: each slot below the count holds the last
 * message into it (the write ping-pong: its one payload, whose last byte is
 * its sequence number).  The count: -n's, or target_count's.
 */
static void validate_target(struct rb_session *s)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);
	bool lat = s->bench->metric == METRIC_LAT;
	size_t len = lat ? s->run.size - 1 : s->run.size;

	for (int i = 0; i < s->conn.q.n && len; i++) {
		const uint8_t *area = qps_cpu_recv_area(&s->conn.q, i);
		uint64_t n;

		vpull(s, area, slots * stride);
		n = s->run.iters ? s->run.iters + s->run.warmup_iters : target_count(s, i, area);

		for (uint64_t j = 0; j < slots && j < n; j++) {
			const uint8_t *buf = area + j * stride;
			uint64_t last = j + (n - 1 - j) / slots * slots;
			int64_t off = lat ? pattern_diff(buf, vref_slot(s, i, j), len)
					  : pattern_check(buf, len, (uint32_t)i, VTAG(last));

			validate_note(s, i, last, off);
		}
	}
}

void validate_after(struct rb_session *s)
{
	uint64_t span = loop_addr_slots(s) * loop_addr_stride(s);

	if (s->bench->verb != VERB_WRITE || !side_is_target(s))
		return;
	for (int i = 0; i < s->conn.q.n; i++)
		bounce_in(s, qps_recv_off(&s->conn.q, i), span);
	if (s->opt->validate)
		validate_target(s);
}

const char *validate_method(const struct rb_bench *b)
{
	if (b->verb == VERB_WRITE)
		return "final-slot-content";
	return "per-message";
}
