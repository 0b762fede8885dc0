/*
 * --validate: every slot of a QP holds a payload of its own (pattern.h),
 * written before the size starts and never while it runs: the bandwidth
 * loops post from a slot again before its earlier messages completed, so a
 * payload per message could be rewritten under a message in flight, but
 * every message from slot j of QP i carries the same bytes, whichever of
 * them lands last.  The sends carry their slot in their header; a receive
 * has a buffer of its own (qp.h's ring) and is checked at its completion.
 * A read is checked at its completion against what the responder holds; a
 * write target checks its slots after the run (the last message into each).
 */
#include "engine/internal.h"

#include "pattern.h"
#include "testfault.h"

/* The expected payload of slot j of QP i at this size. */
static const uint8_t *vref_slot(const struct rb_session *s, int i, uint64_t j)
{
	return s->vref + ((uint64_t)i * loop_addr_slots(s) + j) * loop_addr_stride(s);
}

static void validate_note(struct rb_session *s, int i, uint64_t msg, int64_t off)
{
	struct rb_vresult *v = &s->vres;

	v->checked++;
	if (off == PATTERN_NONE)
		return;
	if (!v->errors++) {
		v->first_msg = msg;
		v->first_off = off;
		v->first_qp = i;
	}
}

/* Slot 0 of QP 0 (one message in every -slots), for the tests: a byte the
 * peer must find changed (RB_TEST_FAULT=corrupt, --enable-test-faults). */
static void validate_fault(const struct rb_session *s, int i, uint8_t *area)
{
	if (i == 0 && s->size && test_fault("corrupt"))
		area[s->size / 2] ^= 0x20;
}

/* Each slot's payload into an area of QP i (a sender's, a read's responder). */
static void validate_fill(const struct rb_session *s, int i, uint8_t *area)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);

	for (uint64_t j = 0; j < slots; j++)
		memcpy(area + j * stride, vref_slot(s, i, j), s->size);
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

/* What each side's areas hold before the start: payloads where they are
 * sent or read from, zeros where they land (a slot never written shows). */
static void validate_areas(struct rb_session *s)
{
	size_t span = loop_addr_slots(s) * loop_addr_stride(s);
	enum rb_verb v = s->bench->verb;

	for (int i = 0; i < s->q.n; i++) {
		uint8_t *send = (uint8_t *)qps_send_area(&s->q, i);
		uint8_t *recv = (uint8_t *)qps_recv_area(&s->q, i);

		if (v != VERB_READ && side_posts(s))
			validate_fill(s, i, send);
		if (v == VERB_WRITE && side_is_target(s))
			memset(recv, 0, span);
		if (v == VERB_READ && (!s->is_client || s->opt->bidir))
			validate_fill(s, i, recv);
		if (v == VERB_READ && s->is_client)
			memset(send, 0, span);
	}
}

int validate_prepare(struct rb_session *s)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);

	free(s->vref);
	s->vres = (struct rb_vresult){ .first_off = PATTERN_NONE };
	s->vref = malloc((size_t)s->q.n * slots * stride);
	if (!s->vref)
		return -ENOMEM;
	for (int i = 0; i < s->q.n; i++)
		for (uint64_t j = 0; j < slots; j++)
			pattern_fill((uint8_t *)vref_slot(s, i, j), s->size, (uint32_t)i, j);
	validate_areas(s);
	return 0;
}

void validate_free(struct rb_session *s)
{
	free(s->vref);
	s->vref = NULL;
}

/*
 * Receive c (from 0) of QP i, in its ring buffer: the slot its header
 * names (RC: it must be c's, in order; UC and UD may lose messages), or
 * c's where the message is too short for a header.
 */
void validate_recv(struct rb_session *s, int i, uint64_t c)
{
	const uint8_t *buf = (const uint8_t *)qps_ring_buf(&s->q, i, c);
	uint64_t slots = loop_addr_slots(s), want = c % slots, tag;

	if (s->q.tr == TR_UD)
		buf += RB_UD_GRH;
	if (pattern_tag(buf, s->size, (uint32_t)i, &tag) && tag < slots &&
	    (s->q.tr != TR_RC || tag == want))
		want = tag;
	validate_note(s, i, c, pattern_diff(buf, vref_slot(s, i, want), s->size));
}

/* Reads k .. k + n - 1 of QP i have completed: each one's slot holds what
 * the responder's does (a later read in flight into it brings the same). */
void validate_reads(struct rb_session *s, int i, uint64_t k, uint64_t n)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);
	const uint8_t *area = (const uint8_t *)qps_send_area(&s->q, i);

	for (uint64_t e = k + n; k < e; k++)
		validate_note(s, i, k, pattern_diff(area + k % slots * stride,
						    vref_slot(s, i, k % slots), s->size));
}

static bool all_zero(const uint8_t *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/*
 * A write target after the run: each slot written holds the last message
 * into it (-n: the slots below the count, the message known; -D: those not
 * left at zero).  The write ping-pong's last byte is its sequence number.
 */
static void validate_target(struct rb_session *s)
{
	uint64_t slots = loop_addr_slots(s), stride = loop_addr_stride(s);
	uint64_t n = s->iters ? s->iters + s->warmup_iters : 0;
	size_t len = s->bench->metric == METRIC_LAT ? s->size - 1 : s->size;

	for (int i = 0; i < s->q.n && len; i++)
		for (uint64_t j = 0; j < slots; j++) {
			const uint8_t *buf = (const uint8_t *)qps_recv_area(&s->q, i) + j * stride;

			if (n ? j >= n : all_zero(buf, len))
				continue;
			validate_note(s, i, n ? j + (n - 1 - j) / slots * slots : j,
				      pattern_diff(buf, vref_slot(s, i, j), len));
		}
}

void validate_after(struct rb_session *s)
{
	if (s->bench->verb == VERB_WRITE && side_is_target(s))
		validate_target(s);
}
