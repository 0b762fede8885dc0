/* HELLO's compared test parameters (hello.h). */
#include "session/hello.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/counters.h"
#include "cli/load.h"
#include "lib/log.h"

static const char *const param_names[P_COUNT] = {
	[P_VERB] = "verb", [P_METRIC] = "metric", [P_TRANSPORT] = "transport (-c)",
	[P_SIZE] = "size (-s)", [P_ALL] = "sweep (-a)", [P_ITERS] = "iterations (-n)",
	[P_DURATION_MS] = "duration in ms (-D)", [P_WARMUP_MS] = "warm-up in ms (--warmup-time)",
	[P_WARMUP_ITERS] = "warm-up iterations (--warmup)", [P_QPS] = "QPs (-q)",
	[P_BIDIR] = "bidirectional (-b)", [P_RDMA_CM] = "rdma_cm (-R)",
	[P_ATOMIC_OP] = "atomic operation (-A)", [P_POST_LIST] = "post list (-l)",
	[P_PERCENTILES] = "percentile list (--percentiles)",
	[P_COUNTERS] = "counter list (-W)", [P_THREADS] = "threads (-j)",
	[P_RUN_INF] = "run until stopped (--run_infinitely)",
	[P_VALIDATE] = "payload validation (--validate)",
	[P_LOAD] = "background load (--load)", [P_LOAD_SIZE] = "load size (--load-size)",
	[P_LOAD_QPS] = "load QPs (--load-qps)", [P_LOAD_COMPARE] = "idle vs loaded (--load-compare)",
	[P_TX_DEPTH] = "send queue depth (-t/--tx-depth)",
	[P_CQ_MOD] = "completion moderation (-Q/--cq-mod)",
	[P_RX_DEPTH] = "receive queue depth (-r/--rx-depth)",
	[P_INLINE] = "inline size (-I/--inline_size)",
	[P_EVENTS] = "completion events (-e/--use_event)",
	[P_ATOMIC_SAME] = "one target word (--atomic-same-address)",
};

bool hello_both_stream(const struct rb_options *o, const struct rb_bench *b)
{
	(void)b;
	return o->bidir;
}

bool hello_both_post(const struct rb_options *o, const struct rb_bench *b)
{
	return o->bidir || (b->metric == METRIC_LAT && (b->verb == VERB_SEND || b->verb == VERB_WRITE));
}

/* The percentile list as one number (FNV-1a over thousandths): the result
 * rows of both sides must have the same columns. */
static uint64_t pcts_fingerprint(const struct rb_options *o)
{
	uint64_t h = WIRE_FNV_INIT;

	for (int i = 0; i < o->npct; i++)
		h = wire_fnv1a(h, (uint64_t)llround(o->pcts[i] * 1000));
	return h;
}

/* The one-sided options (hello.h), 0 where not compared; a given value
 * travels as itself plus 1 where 0 could be one (-I 0, -Q's default). */
static void hello_local_params(const struct rb_options *o, const struct rb_bench *b, uint64_t *v)
{
	bool stream = hello_both_stream(o, b), post = hello_both_post(o, b);

	v[P_TX_DEPTH] = stream ? o->tx_depth : 0;
	v[P_CQ_MOD] = stream && o->cq_mod_given ? o->cq_mod + 1ull : stream;
	v[P_RX_DEPTH] = stream && b->verb == VERB_SEND ? o->rx_depth : 0;
	v[P_INLINE] = post ? (uint64_t)(o->inline_size + 2) : 0;	/* -1: the default */
	v[P_EVENTS] = post ? o->events + 1u : 0;
	v[P_ATOMIC_SAME] = stream && b->verb == VERB_ATOMIC ? o->atomic_same_address + 1u : 0;
}

void hello_params(const struct rb_options *o, const struct rb_bench *b, struct wire_hello *h)
{
	uint64_t v[P_COUNT] = {
		[P_VERB] = b->verb, [P_METRIC] = b->metric,
		[P_TRANSPORT] = o->transport, [P_SIZE] = o->size, [P_ALL] = o->all,
		[P_ITERS] = o->duration_s > 0 || o->run_infinitely ? 0 : o->iters,
		[P_DURATION_MS] = (uint64_t)llround(o->duration_s * 1000),
		[P_WARMUP_MS] = o->duration_s > 0 || o->run_infinitely ? (uint64_t)llround(o->warmup_s * 1000) : 0,
		[P_WARMUP_ITERS] = o->warmup_iters, [P_QPS] = o->qps, [P_BIDIR] = o->bidir,
		[P_RDMA_CM] = o->rdma_cm, [P_ATOMIC_OP] = o->atomic_op,
		[P_POST_LIST] = o->post_list, [P_PERCENTILES] = pcts_fingerprint(o),
		[P_COUNTERS] = counters_fingerprint(&o->counters), [P_THREADS] = o->threads,
		[P_RUN_INF] = o->run_infinitely, [P_VALIDATE] = o->validate,
		[P_LOAD] = o->load_bench, [P_LOAD_SIZE] = o->load_bench ? o->load.size : 0,
		[P_LOAD_QPS] = o->load_bench ? o->load.qps : 0, [P_LOAD_COMPARE] = o->load.compare,
	};

	hello_local_params(o, b, v);
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", b->name);
	for (int id = 1; id < P_COUNT; id++)
		h->params[h->nparams++] = (struct wire_param){ (uint16_t)id, v[id] };
}

/* A peer's value that is no MTU (256..4096, a power of two) is none. */
unsigned hello_mtu(uint64_t mine, uint64_t peer)
{
	if (peer < 256 || peer > 4096 || (peer & (peer - 1)))
		peer = 0;
	return (unsigned)(!mine || (peer && peer < mine) ? peer : mine);
}

static const struct wire_param *param_find(const struct wire_hello *h, uint16_t id)
{
	for (int i = 0; i < h->nparams; i++)
		if (h->params[i].id == id)
			return &h->params[i];
	return NULL;
}

/* The one-sided options' values as given: "default", "16". */
static const char *local_text(uint16_t id, uint64_t v, char *buf, size_t len)
{
	if (id == P_CQ_MOD || id == P_INLINE || id == P_EVENTS || id == P_ATOMIC_SAME) {
		if (v == 1 && (id == P_CQ_MOD || id == P_INLINE))
			return "default";
		if (id == P_EVENTS || id == P_ATOMIC_SAME)
			return v == 2 ? "on" : "off";
		v -= id == P_INLINE ? 2 : 1;
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* A value as the user wrote it: "UC", not 2. */
static const char *param_text(uint16_t id, uint64_t v, char *buf, size_t len)
{
	if (id == P_TRANSPORT)
		return options_transport_name((enum rb_transport)v);
	if (id == P_ATOMIC_OP)
		return options_atomic_name((enum rb_atomic_op)v);
	if (id == P_LOAD)
		return load_bench_name((enum load_bench)v);
	if (id == P_PERCENTILES || id == P_COUNTERS)
		return "(another list)";
	if (id >= P_TX_DEPTH && id < P_COUNT)
		return local_text(id, v, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void param_differs(uint16_t id, uint64_t mine, uint64_t peer, const char *me, const char *them)
{
	char mv[24], pv[24];

	log_err("%s differs: %s %s, %s %s", param_names[id], me, param_text(id, mine, mv, sizeof(mv)),
		them, param_text(id, peer, pv, sizeof(pv)));
}

/* Name every difference; both sides run this and fail alike. */
int hello_compare(const struct wire_hello *mine, const struct wire_hello *peer, bool is_client)
{
	const char *me = is_client ? "client" : "server", *them = is_client ? "server" : "client";
	int diffs = 0;

	if (strcmp(mine->name, peer->name)) {
		log_err("test differs: %s runs %s, %s runs %s", me, mine->name, them, peer->name);
		return -EPROTO;
	}
	for (int i = 0; i < peer->nparams; i++) {
		const struct wire_param *p = &peer->params[i], *m = param_find(mine, p->id);

		if (!m) {
			log_err("the %s sent parameter %u that this version does not know (upgrade)", them, p->id);
			diffs++;
		} else if (p->id < WIRE_P_FIRST_OFFER && m->value != p->value) {
			param_differs(p->id, m->value, p->value, me, them);
			diffs++;
		}
	}
	if (peer->nparams < mine->nparams && !diffs) {
		log_err("the %s sent fewer parameters than this version expects (upgrade it)", them);
		diffs++;
	}
	if (diffs)
		log_info("both sides must run the same test with the same parameters");
	return diffs ? -EPROTO : 0;
}
