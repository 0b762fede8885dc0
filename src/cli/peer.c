/*
 * What HELLO compares of the PEER rows (rows.c) where the value is not the
 * field as it is, and how a value reads in the message that names a
 * difference.  session/hello.h says which options act on one side only
 * and so travel as 0 ("not compared") unless both sides do that work.
 */
#include <math.h>

#include "cli/rows.h"
#include "lib/wire.h"

#define OPT ((const struct rb_options *)o)
#define BENCH ((const struct rb_bench *)b)

bool options_both_stream(const struct rb_options *o, const struct rb_bench *b)
{
	(void)b;
	return o->bidir;
}

bool options_both_post(const struct rb_options *o, const struct rb_bench *b)
{
	return o->bidir || (b->metric == METRIC_LAT && (b->verb == VERB_SEND || b->verb == VERB_WRITE));
}

static bool timed(const struct rb_options *o)
{
	return o->duration_s > 0 || o->run_infinitely;
}

uint64_t peer_iters(const void *o, const void *b)
{
	(void)b;
	return timed(OPT) ? 0 : OPT->iters;
}

uint64_t peer_duration_ms(const void *o, const void *b)
{
	(void)b;
	return (uint64_t)llround(OPT->duration_s * 1000);
}

uint64_t peer_warmup_ms(const void *o, const void *b)
{
	(void)b;
	return timed(OPT) ? (uint64_t)llround(OPT->warmup_s * 1000) : 0;
}

/* The percentile list as one number (FNV-1a over thousandths): the result
 * rows of both sides must have the same columns. */
uint64_t peer_pcts(const void *o, const void *b)
{
	uint64_t h = WIRE_FNV_INIT;

	(void)b;
	for (int i = 0; i < OPT->npct; i++)
		h = wire_fnv1a(h, (uint64_t)llround(OPT->pcts[i] * 1000));
	return h;
}

uint64_t peer_counters(const void *o, const void *b)
{
	(void)b;
	return counters_fingerprint(&OPT->counters);
}

uint64_t peer_load(const void *o, const void *b)
{
	(void)b;
	return OPT->load_bench;
}

uint64_t peer_load_size(const void *o, const void *b)
{
	(void)b;
	return OPT->load_bench ? OPT->load.size : 0;
}

uint64_t peer_load_qps(const void *o, const void *b)
{
	(void)b;
	return OPT->load_bench ? OPT->load.qps : 0;
}

/* The one-sided options, 0 where not compared; a given value travels as
 * itself plus 1 where 0 could be one (-I 0, -Q's default). */
uint64_t peer_tx_depth(const void *o, const void *b)
{
	return options_both_stream(OPT, BENCH) ? OPT->tx_depth : 0;
}

uint64_t peer_cq_mod(const void *o, const void *b)
{
	bool stream = options_both_stream(OPT, BENCH);

	return stream && OPT->cq_mod_given ? OPT->cq_mod + 1ull : stream;
}

uint64_t peer_rx_depth(const void *o, const void *b)
{
	return options_both_stream(OPT, BENCH) && BENCH->verb == VERB_SEND ? OPT->rx_depth : 0;
}

uint64_t peer_inline(const void *o, const void *b)
{
	return options_both_post(OPT, BENCH) ? (uint64_t)(OPT->inline_size + 2) : 0;	/* -1: the default */
}

uint64_t peer_events(const void *o, const void *b)
{
	return options_both_post(OPT, BENCH) ? OPT->events + 1u : 0;
}

uint64_t peer_atomic_same(const void *o, const void *b)
{
	return options_both_stream(OPT, BENCH) && BENCH->verb == VERB_ATOMIC ? OPT->atomic_same_address + 1u : 0;
}

/* -M: the group's 16 bytes as one number (FNV-1a), 0: the default group. */
uint64_t peer_mgid(const void *o, const void *b)
{
	uint64_t h = WIRE_FNV_INIT;

	(void)b;
	if (!OPT->mgid_text)
		return 0;
	for (int i = 0; i < 16; i++)
		h = wire_fnv1a(h, OPT->mgid[i]);
	return h;
}

const char *peer_text_mgid(uint64_t v, char *buf, size_t len)
{
	if (!v)
		return "default";
	snprintf(buf, len, "another group");
	return buf;
}

const char *peer_text_transport(uint64_t v, char *buf, size_t len)
{
	(void)buf, (void)len;
	return options_transport_name((enum rb_transport)v);
}

const char *peer_text_atomic(uint64_t v, char *buf, size_t len)
{
	(void)buf, (void)len;
	return options_atomic_name((enum rb_atomic_op)v);
}

const char *peer_text_load(uint64_t v, char *buf, size_t len)
{
	(void)buf, (void)len;
	return load_bench_name((enum load_bench)v);
}

const char *peer_text_list(uint64_t v, char *buf, size_t len)
{
	(void)v, (void)buf, (void)len;
	return "(another list)";
}

/* -Q: 1 is "default", else the value given plus 1. */
const char *peer_text_given(uint64_t v, char *buf, size_t len)
{
	if (v == 1)
		return "default";
	snprintf(buf, len, "%llu", (unsigned long long)(v - 1));
	return buf;
}

/* -I: 1 is "default" (-1 + 2), else the value given plus 2. */
const char *peer_text_inline(uint64_t v, char *buf, size_t len)
{
	if (v == 1)
		return "default";
	snprintf(buf, len, "%llu", (unsigned long long)(v - 2));
	return buf;
}

const char *peer_text_onoff(uint64_t v, char *buf, size_t len)
{
	(void)buf, (void)len;
	return v == 2 ? "on" : "off";
}

/* --rate_limit: in thousandths of its unit (0: unpaced). */
uint64_t peer_rate_limit(const void *o, const void *b)
{
	(void)b;
	return (uint64_t)llround(OPT->rate_limit * 1000);
}

const char *peer_text_rate(uint64_t v, char *buf, size_t len)
{
	if (!v)
		return "unpaced";
	snprintf(buf, len, "%g", (double)v / 1000);
	return buf;
}
