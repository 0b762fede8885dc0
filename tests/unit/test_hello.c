/* HELLO's compared parameters (src/session/hello.c): which options both sides
 * must agree on, when, and the message that names a difference. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench/registry.h"
#include "session/hello.h"
#include "lib/log.h"
#include "cli/options.h"
#include "tap.h"

/* A side's HELLO for bench NAME with a NULL-terminated argument list. */
static int side(const char *name, struct wire_hello *h, ...)
{
	const struct rb_bench *b = bench_find(name);
	char *argv[32] = { "prog" };
	struct rb_options o;
	int argc = 1, err;
	va_list ap;

	va_start(ap, h);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	err = b ? options_parse(argc, argv, b, &o) : -ENOENT;
	if (!err)
		hello_params(&o, b, h);
	else
		ok(0, "%s: its options parse", name);
	return err;
}

/* The client's view of a pair: 0 or -EPROTO, the last message in *msg. */
static int pair(const struct wire_hello *server, const struct wire_hello *client, const char **msg)
{
	int err;

	log_clear_last_err();
	err = hello_compare(client, server, true);
	*msg = log_last_err();
	return err;
}

static void test_pair(const char *what, int want, const char *needle, const struct wire_hello *s,
		      const struct wire_hello *c)
{
	const char *msg;
	int err = pair(s, c, &msg);

	ok(err == want && (!needle || strstr(msg, needle)), "%s", what);
	if (err != want || (needle && !strstr(msg, needle)))
		printf("#   rc %d, message: %s\n", err, msg);
}

static void test_bidir_depths(void)
{
	struct wire_hello s, c;

	side("rb_send_bw", &s, "-b", "-t", "128", NULL);
	side("rb_send_bw", &c, "-b", "-t", "16", NULL);
	test_pair("-b: -t 128 against -t 16 fails naming -t", -EPROTO,
		  "send queue depth (-t/--tx-depth) differs: client 16, server 128", &s, &c);
	side("rb_send_bw", &s, "-t", "128", NULL);
	side("rb_send_bw", &c, "-t", "16", NULL);
	test_pair("no -b: -t is the posting side's alone, no mismatch", 0, NULL, &s, &c);
	side("rb_write_bw", &s, "-b", "-Q", "8", NULL);
	side("rb_write_bw", &c, "-b", NULL);
	test_pair("-b: -Q 8 against the default fails naming -Q", -EPROTO,
		  "completion moderation (-Q/--cq-mod) differs: client default, server 8", &s, &c);
	side("rb_send_bw", &s, "-b", "-r", "64", NULL);
	side("rb_send_bw", &c, "-b", "-r", "32", NULL);
	test_pair("-b sends: -r 64 against -r 32 fails naming -r", -EPROTO,
		  "receive queue depth (-r/--rx-depth) differs: client 32, server 64", &s, &c);
	side("rb_send_bw", &s, "-r", "64", NULL);
	side("rb_send_bw", &c, "-r", "32", NULL);
	test_pair("no -b: -r is the receiver's alone", 0, NULL, &s, &c);
	side("rb_atomic_bw", &s, "-b", "--atomic-same-address", NULL);
	side("rb_atomic_bw", &c, "-b", NULL);
	test_pair("-b atomics: --atomic-same-address on one side fails", -EPROTO,
		  "one target word (--atomic-same-address) differs: client off, server on", &s, &c);
}

static void test_both_post(void)
{
	struct wire_hello s, c;

	side("rb_send_lat", &s, "-I", "0", NULL);
	side("rb_send_lat", &c, NULL);
	test_pair("send ping-pong: -I 0 against the default fails naming -I", -EPROTO,
		  "inline size (-I/--inline_size) differs: client default, server 0", &s, &c);
	side("rb_send_lat", &s, "-e", NULL);
	side("rb_send_lat", &c, NULL);
	test_pair("send ping-pong: -e on one side fails naming -e", -EPROTO,
		  "completion events (-e/--use_event) differs: client off, server on", &s, &c);
	side("rb_read_lat", &s, NULL);
	side("rb_read_lat", &c, "-e", NULL);
	test_pair("read latency: -e is the reader's alone", 0, NULL, &s, &c);
	side("rb_read_bw", &s, "-m", "1024", NULL);
	side("rb_read_bw", &c, NULL);
	test_pair("-m on one side: an offer, no mismatch", 0, NULL, &s, &c);
	ok(hello_mtu(1024, 0) == 1024 && hello_mtu(0, 512) == 512 && hello_mtu(2048, 1024) == 1024 &&
	   hello_mtu(1024, 4096) == 1024 && hello_mtu(0, 0) == 0 && hello_mtu(0, 1u << 20) == 0 && hello_mtu(2048, 1000) == 2048 &&
	   hello_mtu(2048, 128) == 2048,
	   "-m: both sides use the smaller one given (none: 0; a peer's value that is no MTU: none)");
	side("rb_send_bw", &s, "-b", "-t", "64", "-Q", "4", "-r", "256", "-I", "0", NULL);
	side("rb_send_bw", &c, "-b", "-t", "64", "-Q", "4", "-r", "256", "-I", "0", NULL);
	test_pair("-b with the same -t -Q -r -I: no difference", 0, NULL, &s, &c);
}

/* The wire ids of HELLO, fixed: an id never moves and is never reused (a
 * peer of another version reads them).  Each PEER row of the option table
 * must be here under its id, and each id here a PEER row. */
static const struct { unsigned id; const char *label; } wire_ids[] = {
	{ 3, "transport (-c)" }, { 4, "size (-s)" }, { 5, "sweep (-a)" }, { 6, "iterations (-n)" },
	{ 7, "duration in ms (-D)" }, { 8, "warm-up in ms (--warmup-time)" },
	{ 9, "warm-up iterations (--warmup)" }, { 10, "QPs (-q)" }, { 11, "bidirectional (-b)" },
	{ 12, "rdma_cm (-R)" }, { 13, "atomic operation (-A)" }, { 14, "post list (-l)" },
	{ 15, "percentile list (--percentiles)" }, { 16, "counter list (-W)" }, { 17, "threads (-j)" },
	{ 18, "run until stopped (--run_infinitely)" }, { 19, "payload validation (--validate)" },
	{ 20, "background load (--load)" }, { 21, "load size (--load-size)" },
	{ 22, "load QPs (--load-qps)" }, { 23, "idle vs loaded (--load-compare)" },
	{ 24, "send queue depth (-t/--tx-depth)" }, { 25, "completion moderation (-Q/--cq-mod)" },
	{ 26, "receive queue depth (-r/--rx-depth)" }, { 27, "inline size (-I/--inline_size)" },
	{ 28, "completion events (-e/--use_event)" }, { 29, "one target word (--atomic-same-address)" },
	{ 50, "rate limit (--rate_limit)" }, { 51, "rate units (--rate_units)" },
	{ 52, "rate limiter (--rate_limit_type)" }, { 53, "burst size (--burst_size)" },
	{ 54, "latency gap (--latency_gap)" },
	{ 60, "multicast (-g/--mcg)" }, { 61, "multicast group (-M/--MGID)" },
	{ 70, "retry count (--retry_count)" }, { 71, "reversed roles (--reversed)" },
};
#define N_WIRE_IDS (sizeof(wire_ids) / sizeof(wire_ids[0]))

static const char *fixed_label(unsigned id)
{
	for (size_t i = 0; i < N_WIRE_IDS; i++)
		if (wire_ids[i].id == id)
			return wire_ids[i].label;
	return NULL;
}

static void test_wire_ids(void)
{
	const struct opt_prog *t = options_table();
	unsigned seen[P_COUNT] = { 0 };
	int bad = 0;

	is_int(P_VERB, 1, "P_VERB is wire id 1");
	is_int(P_METRIC, 2, "P_METRIC is wire id 2");
	is_int(P_COUNT, 72, "compared params: ids 1..29, then #36's blocks (pacing: 50..54, multicast: 60, 61; path control: 70, 71)");
	for (size_t i = 0; i < t->n; i++) {
		const struct opt_row *r = &t->rows[i];
		const char *want = r->peer.id ? fixed_label(r->peer.id) : NULL;

		if (!r->peer.id)
			continue;
		if (!want || strcmp(want, r->peer.label) || r->peer.id >= P_COUNT || seen[r->peer.id]++) {
			printf("#   --%s: wire id %u, label '%s' (the fixed list: '%s')\n", r->name, r->peer.id,
			       r->peer.label, want ? want : "none");
			bad++;
		}
	}
	ok(!bad, "every PEER row has its fixed wire id and label, each id once");
	bad = 0;
	for (size_t i = 0; i < N_WIRE_IDS; i++)
		if (!seen[wire_ids[i].id] || strcmp(hello_param_label(wire_ids[i].id), wire_ids[i].label)) {
			printf("#   wire id %u (%s) has no PEER row\n", wire_ids[i].id, wire_ids[i].label);
			bad++;
		}
	ok(!bad, "every fixed wire id is a PEER row (%zu)", N_WIRE_IDS);
}

/* One PEER row's case: the same benchmark and options but one. */
struct peer_case {
	unsigned id;
	const char *bench;
	const char *base[6], *changed[8];
};

static const struct peer_case peer_cases[] = {
	{ 3, "rb_send_bw", { NULL }, { "-c", "UC", NULL } },
	{ 4, "rb_send_bw", { NULL }, { "-s", "1K", NULL } },
	{ 5, "rb_send_bw", { NULL }, { "-a", NULL } },
	{ 6, "rb_send_bw", { NULL }, { "-n", "77", NULL } },
	{ 7, "rb_send_bw", { NULL }, { "-D", "3", NULL } },
	{ 8, "rb_send_bw", { "-D", "5", NULL }, { "-D", "5", "--warmup-time", "2", NULL } },
	{ 9, "rb_send_lat", { NULL }, { "--warmup", "5", NULL } },
	{ 10, "rb_send_bw", { NULL }, { "-q", "3", NULL } },
	{ 11, "rb_send_bw", { NULL }, { "-b", NULL } },
	{ 12, "rb_send_bw", { NULL }, { "-R", NULL } },
	{ 13, "rb_atomic_bw", { NULL }, { "-A", "CMP_AND_SWAP", NULL } },
	{ 14, "rb_send_bw", { NULL }, { "-l", "4", NULL } },
	{ 15, "rb_send_lat", { NULL }, { "--percentiles", "50,99", NULL } },
	{ 16, "rb_send_bw", { NULL }, { "-W", "port_xmit_data", NULL } },
	{ 17, "rb_send_bw", { NULL }, { "-j", "2", NULL } },
	{ 18, "rb_send_bw", { NULL }, { "--run_infinitely", NULL } },
	{ 19, "rb_send_bw", { NULL }, { "--validate", NULL } },
	{ 20, "rb_send_lat", { NULL }, { "--load", "write_bw", NULL } },
	{ 21, "rb_send_lat", { "--load", "write_bw", NULL }, { "--load", "write_bw", "--load-size", "1K", NULL } },
	{ 22, "rb_send_lat", { "--load", "write_bw", NULL }, { "--load", "write_bw", "--load-qps", "2", NULL } },
	{ 23, "rb_send_lat", { "--load", "write_bw", NULL }, { "--load", "write_bw", "--load-compare", NULL } },
	{ 24, "rb_send_bw", { "-b", NULL }, { "-b", "-t", "16", NULL } },
	{ 25, "rb_send_bw", { "-b", NULL }, { "-b", "-Q", "8", NULL } },
	{ 26, "rb_send_bw", { "-b", NULL }, { "-b", "-r", "32", NULL } },
	{ 27, "rb_send_lat", { NULL }, { "-I", "0", NULL } },
	{ 28, "rb_send_lat", { NULL }, { "-e", NULL } },
	{ 29, "rb_atomic_bw", { "-b", NULL }, { "-b", "--atomic-same-address", NULL } },
	{ 50, "rb_write_bw", { "--rate_limit=1", NULL }, { "--rate_limit=2", NULL } },
	{ 51, "rb_write_bw", { "--rate_limit=1", NULL }, { "--rate_limit=1", "--rate_units=Mbps", NULL } },
	{ 52, "rb_write_bw", { "--rate_limit=1", NULL }, { "--rate_limit=1", "--rate_limit_type=HW", NULL } },
	{ 53, "rb_write_bw", { "--rate_limit=1", NULL }, { "--rate_limit=1", "--burst_size=8", NULL } },
	{ 54, "rb_write_lat", { NULL }, { "--latency_gap=10", NULL } },
	{ 60, "rb_send_bw", { "-c", "UD", "-s", "1K", NULL }, { "-c", "UD", "-s", "1K", "-g", NULL } },
	{ 61, "rb_send_bw", { "-c", "UD", "-s", "1K", "-g", NULL }, { "-c", "UD", "-s", "1K", "-g", "-M", "ff0e::7", NULL } },
	{ 61, "rb_send_lat", { "-c", "UD", "-g", "-M", "239.1.1.1", NULL }, { "-c", "UD", "-g", "-M", "239.1.1.2", NULL } },
	{ 70, "rb_write_bw", { NULL }, { "--retry_count", "3", NULL } },
	{ 71, "rb_read_bw", { NULL }, { "--reversed", NULL } },
};

static int side_of(const char *bench, const char *const *args, struct wire_hello *h)
{
	const struct rb_bench *b = bench_find(bench);
	char *argv[16] = { "prog" };
	struct rb_options o;
	int argc = 1;

	while (argc < 15 && args[argc - 1]) {
		argv[argc] = (char *)args[argc - 1];
		argc++;
	}
	if (!b || options_parse(argc, argv, b, &o))
		return -EINVAL;
	hello_params(&o, b, h);
	return 0;
}

static uint64_t param_of(const struct wire_hello *h, unsigned id)
{
	for (int i = 0; i < h->nparams; i++)
		if (h->params[i].id == id)
			return h->params[i].value;
	return UINT64_MAX;
}

/* Each PEER row: its value moves with its option, and a peer that differs
 * in it alone fails HELLO with a message naming it. */
static void test_every_peer_row(void)
{
	bool covered[P_COUNT] = { false };
	size_t ncov = 0;

	for (size_t i = 0; i < sizeof(peer_cases) / sizeof(peer_cases[0]); i++) {
		const struct peer_case *k = &peer_cases[i];
		struct wire_hello s, c, one;
		char needle[96];
		const char *msg;
		int err;

		if (side_of(k->bench, k->base, &s) || side_of(k->bench, k->changed, &c)) {
			ok(0, "wire id %u: %s's options parse", k->id, k->bench);
			continue;
		}
		one = s;
		for (int j = 0; j < one.nparams; j++)
			if (one.params[j].id == k->id)
				one.params[j].value = param_of(&c, k->id);
		snprintf(needle, sizeof(needle), "%s differs: client ", hello_param_label(k->id));
		err = pair(&s, &one, &msg);
		ok(param_of(&s, k->id) != param_of(&c, k->id) && err == -EPROTO && strstr(msg, needle),
		   "wire id %u, %s: one changed value fails HELLO naming it", k->id, hello_param_label(k->id));
		if (err != -EPROTO || !strstr(msg, needle))
			printf("#   rc %d, message: %s\n", err, msg);
		if (!covered[k->id]) {
			covered[k->id] = true;
			ncov++;
		}
	}
	is_int((int)ncov, (int)N_WIRE_IDS, "every PEER row has its case");
}

/* An older peer's HELLO (ids up to --load-compare only): named, not passed. */
static void test_versions(void)
{
	struct wire_hello s, c;

	side("rb_send_bw", &s, NULL);
	side("rb_send_bw", &c, NULL);
	s.nparams = P_TX_DEPTH - 1;
	test_pair("a peer without the new ids: fails asking for an upgrade", -EPROTO, "upgrade", &s, &c);
	log_clear_last_err();
	is_int(hello_compare(&s, &c, false), -EPROTO, "... on the older side too (the ids it does not know)");
	ok(strstr(log_last_err(), "does not know") != NULL, "... naming an unknown parameter");
}

int main(void)
{
	log_set_prog("test_hello");
	test_bidir_depths();
	test_both_post();
	test_versions();
	test_wire_ids();
	test_every_peer_row();
	return tap_done();
}
