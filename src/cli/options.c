#include "cli/options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/commit.h"
#include "config.h"
#include "lib/log.h"
#include "lib/units.h"

/* Long-only option codes start above any character. */
enum {
	OPT_BIND = 256, OPT_TCLASS, OPT_PERSISTENT, OPT_TIMEOUT, OPT_WARMUP,
	OPT_WARMUP_TIME, OPT_NUMA_NODE, OPT_NO_NUMA, OPT_CPU, OPT_HUGEPAGES,
	OPT_GBITS, OPT_PCTS, OPT_CSV, OPT_JSON, OPT_RAW, OPT_FORMAT,
	OPT_OUTPUT, OPT_CLOCK, OPT_SOURCE_IP, OPT_NO_RELAXED, OPT_ATOMIC_SAME,
	OPT_THREAD_ROWS,
	OPT_LOOPBACK,
	OPT_INTERVAL, OPT_RUN_INF, OPT_MIN_BW, OPT_VALIDATE,
	OPT_LOAD, OPT_LOAD_SIZE, OPT_LOAD_QPS, OPT_LOAD_COMPARE, OPT_POLL_PAUSE,
};

/* The groups of --help, in this order. */
enum opt_group { G_CONN, G_TEST, G_OUTPUT, G_PLACE, G_INFO, G_N };

static const char *const group_title[G_N] = {
	[G_CONN] = "Connection", [G_TEST] = "Test", [G_OUTPUT] = "Output",
	[G_PLACE] = "Placement", [G_INFO] = "Information",
};

/*
 * One option.  name is the spelling --help shows, with dashes; the other
 * spelling (underscores, as perftest users type them) is accepted too.
 * feature: 0 for every benchmark, else only those with that feature
 * (bench.h): the others reject it (exit 2) and their --help does not list
 * it.  help NULL: an alias, not listed.  The default shown after help comes
 * from options_defaults() (opt_default_text), never typed here.
 *
 * Adding an option: a line below (a letter, or an OPT_* code; its group;
 * a FEAT_* bit if only some benchmarks take it), a case in options_apply(),
 * a case in opt_default_text() if options_defaults() gives it a value, its
 * text in man/gen-options.sh (then run it), its values in the completion if
 * they are a list.  Both spellings, --help and the tests (tests/cli.sh,
 * test_options.c: they walk this table) follow by themselves.
 */
struct opt_desc {
	const char *name;
	int code;
	int has_arg;
	const char *arg;
	unsigned feature;
	enum opt_group group;
	const char *help;
};

/* The usage text and getopt's table both come from here. */
static const struct opt_desc opt_table[] = {
	{ "ib-dev", 'd', 1, "DEV", 0, G_CONN, "RDMA device (default: the first one)" },
	{ "ib-port", 'i', 1, "N", 0, G_CONN, "device port, 1..255" },
	{ "gid-index", 'x', 1, "N", 0, G_CONN, "GID index (default: RoCE v2 IPv4-mapped, then IPv6, then v1)" },
	{ "port", 'p', 1, "N", 0, G_CONN, "TCP port of the out-of-band exchange" },
	{ "bind", OPT_BIND, 1, "ADDR", 0, G_CONN, "server: listen on ADDR only (default: all)" },
	{ "connection", 'c', 1, "TR", 0, G_CONN, "transport" },
	{ "rdma-cm", 'R', 0, NULL, 0, G_CONN, "connect the QPs with librdmacm" },
	{ "mtu", 'm', 1, "BYTES", 0, G_CONN, "path MTU 256..4096 (default: the smaller active MTU)" },
	{ "qp-timeout", 'u', 1, "N", 0, G_CONN, "QP ack timeout 4.096us*2^N, 0..31" },
	{ "sl", 'S', 1, "N", 0, G_CONN, "service level 0..15" },
	{ "tclass", OPT_TCLASS, 1, "N", 0, G_CONN, "traffic class 0..255 (with -R: the rdma_cm ToS)" },
	{ "source-ip", OPT_SOURCE_IP, 1, "ADDR", 0, G_CONN, "client with -R: bind rdma_cm to this local address" },
	{ "bind-source-ip", OPT_SOURCE_IP, 1, "ADDR", 0, G_CONN, NULL },
	{ "persistent", OPT_PERSISTENT, 0, NULL, 0, G_CONN, "server: serve clients one after another" },
	{ "loopback", OPT_LOOPBACK, 0, NULL, 0, G_CONN, "run the server and the client here, in one command" },
	{ "timeout", OPT_TIMEOUT, 1, "SECONDS", 0, G_CONN, "deadline for a silent peer or a stalled queue" },
	{ "size", 's', 1, "BYTES", FEAT_SIZE, G_TEST, "message size, K/M suffixes" },
	{ "all", 'a', 0, NULL, FEAT_SIZE, G_TEST, "sweep sizes 2B..8MiB in powers of two" },
	{ "iters", 'n', 1, "N", 0, G_TEST, "iterations per size" },
	{ "duration", 'D', 1, "SECONDS", 0, G_TEST, "run for SECONDS instead of -n iterations" },
	{ "warmup", OPT_WARMUP, 1, "N", FEAT_LATENCY, G_TEST, "iterations run before measuring" },
	{ "warmup-time", OPT_WARMUP_TIME, 1, "SECONDS", 0, G_TEST, "with -D: warm-up excluded from the figures (default 1, or D/4 when D < 4)" },
	{ "interval", OPT_INTERVAL, 1, "SECONDS", 0, G_TEST, "report every SECONDS (fractions allowed) the interval just ended, then the summary" },
	{ "run-infinitely", OPT_RUN_INF, 0, NULL, 0, G_TEST, "run until SIGINT or SIGTERM (then the summary, status complete)" },
	{ "min-bw", OPT_MIN_BW, 1, "RATE", FEAT_BANDWIDTH, G_TEST, "with --interval: exit 1 naming every interval below RATE (e.g. 10Gb/s, 900MiB/s)" },
	{ "qp", 'q', 1, "N", FEAT_QPS, G_TEST, "number of QPs" },
	{ "bidirectional", 'b', 0, NULL, FEAT_BIDIR, G_TEST, "traffic in both directions" },
	{ "threads", 'j', 1, "N", FEAT_THREADS, G_TEST, "N measuring threads, each with its own -q QPs, CQ, buffers and CPU" },
	{ "tx-depth", 't', 1, "N", 0, G_TEST, "send queue depth" },
	{ "rx-depth", 'r', 1, "N", FEAT_RX_DEPTH, G_TEST, "receive queue depth" },
	{ "post-list", 'l', 1, "N", FEAT_POST_LIST, G_TEST, "post N work requests per ibv_post_send" },
	{ "cq-mod", 'Q', 1, "N", FEAT_CQ_MOD, G_TEST, "request a completion every N sends, at most -t" },
	{ "outs", 'o', 1, "N", FEAT_OUTS, G_TEST, "outstanding RDMA reads/atomics per QP (default: the smaller device maximum of both sides)" },
	{ "inline-size", 'I', 1, "BYTES", FEAT_INLINE, G_TEST, "inline sends of up to BYTES, never above the device's grant" },
	{ "disable-pcie-relaxed", OPT_NO_RELAXED, 0, NULL, 0, G_TEST, "register buffers without PCIe relaxed ordering" },
	{ "events", 'e', 0, NULL, FEAT_EVENTS, G_TEST, "sleep on a completion channel instead of busy polling" },
	{ "poll-pause", OPT_POLL_PAUSE, 0, NULL, 0, G_TEST, "the CPU's pause instruction between empty polls, for VMs whose vCPUs share cores (also RB_POLL_PAUSE=1)" },
	{ "atomic-type", 'A', 1, "OP", FEAT_ATOMIC_OP, G_TEST, "FETCH_AND_ADD or CMP_AND_SWAP" },
	{ "atomic-same-address", OPT_ATOMIC_SAME, 0, NULL, FEAT_ATOMIC_OP, G_TEST, "every atomic of a QP on one 8-byte word (default: 64 slots, 64 B apart, as perftest)" },
	{ "validate", OPT_VALIDATE, 0, NULL, FEAT_VALIDATE, G_TEST, "check each message's payload (atomics: each result) where it lands; exit 1 on a mismatch" },
	{ "load", OPT_LOAD, 1, "BENCH", FEAT_LATENCY, G_TEST, "run BENCH (send_bw, write_bw, read_bw) on QPs of its own, in a thread on a CPU of its own, for the whole latency run" },
	{ "load-size", OPT_LOAD_SIZE, 1, "BYTES", FEAT_LATENCY, G_TEST, "with --load: the load's message size, K/M suffixes" },
	{ "load-qps", OPT_LOAD_QPS, 1, "N", FEAT_LATENCY, G_TEST, "with --load: the load's QPs" },
	{ "load-compare", OPT_LOAD_COMPARE, 0, NULL, FEAT_LATENCY, G_TEST, "with --load: each size idle then loaded, interleaved, with the loaded/idle ratio of each percentile" },
	{ "clock", OPT_CLOCK, 1, "auto|tsc|monotonic", 0, G_TEST, "timestamps from the TSC, from clock_gettime, or auto: the TSC where clock_gettime is slow" },
	{ "CPU-freq", 'F', 0, NULL, 0, G_TEST, "accepted for perftest compatibility (no effect)" },
	{ "report-gbits", OPT_GBITS, 0, NULL, FEAT_BANDWIDTH, G_OUTPUT, "human table: bandwidth in Gb/s instead of MiB/s" },
	{ "percentiles", OPT_PCTS, 1, "LIST", FEAT_LATENCY, G_OUTPUT, "latency percentiles" },
	{ "csv", OPT_CSV, 2, "FILE", 0, G_OUTPUT, "results as CSV (to FILE, or stdout)" },
	{ "json", OPT_JSON, 2, "FILE", 0, G_OUTPUT, "results as JSON (to FILE, or stdout)" },
	{ "report-counters", 'W', 1, "LIST", 0, G_OUTPUT, "report port counters' changes: counters/NAME, hw_counters/NAME or NAME, comma-separated" },
	{ "histogram", 'H', 1, "FILE", FEAT_LATENCY, G_OUTPUT, "latency histogram as CSV to FILE" },
	{ "raw", OPT_RAW, 1, "FILE", FEAT_LATENCY, G_OUTPUT, "every latency sample, in order, to FILE" },
	{ "thread-rows", OPT_THREAD_ROWS, 0, NULL, FEAT_THREADS, G_OUTPUT, "human and CSV output: a row per thread after each size's total" },
	{ "verbose", 'v', 0, NULL, 0, G_OUTPUT, "say more on stderr (clock, placement, QP attributes)" },
	{ "numa-node", OPT_NUMA_NODE, 1, "N", 0, G_PLACE, "place buffers and thread on node N (default: the device's)" },
	{ "no-numa", OPT_NO_NUMA, 0, NULL, 0, G_PLACE, "leave NUMA placement alone" },
	{ "cpu", OPT_CPU, 1, "LIST", 0, G_PLACE, "pin the measuring thread to LIST (e.g. 2 or 0-3)" },
	{ "use-hugepages", OPT_HUGEPAGES, 0, NULL, 0, G_PLACE, "allocate buffers on huge pages" },
	{ "version", 'V', 0, NULL, 0, G_INFO, "print the version and exit" },
	{ "help", 'h', 0, NULL, 0, G_INFO, "print this help and exit" },
};

#define N_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static const double default_pcts[] = { 50, 90, 99, 99.9, 99.99 };

const char *options_transport_name(enum rb_transport t)
{
	switch (t) {
	case TR_RC: return "RC";
	case TR_UC: return "UC";
	case TR_UD: return "UD";
	}
	return "?";
}

const char *options_atomic_name(enum rb_atomic_op op)
{
	return op == ATOMIC_CMP_SWAP ? "CMP_AND_SWAP" : "FETCH_AND_ADD";
}

/* The bench file's features and those its metric and verb imply. */
static unsigned bench_features(const struct rb_bench *b)
{
	return b->features | (b->metric == METRIC_LAT ? FEAT_LATENCY : FEAT_BANDWIDTH | FEAT_THREADS) |
	       (b->verb != VERB_ATOMIC ? FEAT_SIZE : 0) | (b->verb == VERB_SEND ? FEAT_RX_DEPTH : 0) |
	       (b->verb != VERB_ATOMIC || b->metric == METRIC_BW ? FEAT_VALIDATE : 0);
}

static const struct opt_desc *opt_find(int code)
{
	for (size_t i = 0; i < N_OPTS; i++)
		if (opt_table[i].code == code)
			return &opt_table[i];
	return NULL;
}

/* "-s/--size" or "--timeout", for messages. */
static const char *opt_label(int code, char *buf, size_t len)
{
	const struct opt_desc *d = opt_find(code);

	if (!d)
		snprintf(buf, len, "option");
	else if (code < 256)
		snprintf(buf, len, "-%c/--%s", code, d->name);
	else
		snprintf(buf, len, "--%s", d->name);
	return buf;
}

static int bad_value(int code, const char *val, int err, const char *range)
{
	char lbl[48];

	if (err == -ERANGE)
		log_err("%s: %s is out of range (%s)", opt_label(code, lbl, sizeof(lbl)), val, range);
	else
		log_err("%s: '%s' is not a valid value (expected %s)", opt_label(code, lbl, sizeof(lbl)), val, range);
	return -EINVAL;
}

static int parse_u64(int code, const char *val, uint64_t min, uint64_t max, uint64_t *out)
{
	char range[64];
	int err = units_parse_uint(val, min, max, out);

	snprintf(range, sizeof(range), "an integer %llu..%llu",
		 (unsigned long long)min, (unsigned long long)max);
	return err ? bad_value(code, val, err, range) : 0;
}

static int parse_uint(int code, const char *val, unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	int err = parse_u64(code, val, min, max, &v);

	if (!err)
		*out = (unsigned)v;
	return err;
}

static int parse_int(int code, const char *val, unsigned min, unsigned max, int *out)
{
	unsigned v;
	int err = parse_uint(code, val, min, max, &v);

	if (!err)
		*out = (int)v;
	return err;
}

static int parse_seconds(int code, const char *val, double min, double max, double *out)
{
	char range[64];
	int err = units_parse_double(val, min, max, out);

	snprintf(range, sizeof(range), "seconds, %g..%g", min, max);
	return err ? bad_value(code, val, err, range) : 0;
}

static int parse_rate(int code, const char *val, double *out, const char **text)
{
	int err = units_parse_rate(val, 1, 1e15, out);

	*text = val;
	return err ? bad_value(code, val, err,
			       "a rate with its unit: b/s, Kb/s, Mb/s, Gb/s, Tb/s, B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s or GiB/s, e.g. 10Gb/s") : 0;
}

static int parse_transport(const char *val, enum rb_transport *t)
{
	if (!strcasecmp(val, "RC"))
		*t = TR_RC;
	else if (!strcasecmp(val, "UC"))
		*t = TR_UC;
	else if (!strcasecmp(val, "UD"))
		*t = TR_UD;
	else
		return bad_value('c', val, -EINVAL, "RC, UC or UD");
	return 0;
}

static int parse_atomic(const char *val, enum rb_atomic_op *op)
{
	if (!strcasecmp(val, "FETCH_AND_ADD"))
		*op = ATOMIC_FETCH_ADD;
	else if (!strcasecmp(val, "CMP_AND_SWAP"))
		*op = ATOMIC_CMP_SWAP;
	else
		return bad_value('A', val, -EINVAL, "FETCH_AND_ADD or CMP_AND_SWAP");
	return 0;
}

static int parse_clock(const char *val, enum clock_policy *p)
{
	if (clock_policy_parse(val, p))
		return bad_value(OPT_CLOCK, val, -EINVAL, "auto, tsc or monotonic");
	return 0;
}

static int parse_mtu(const char *val, int *mtu)
{
	uint64_t v;

	if (units_parse_size(val, 256, 4096, &v) || (v & (v - 1)))
		return bad_value('m', val, -EINVAL, "256, 512, 1024, 2048 or 4096");
	*mtu = (int)v;
	return 0;
}

/* A numeric IPv4 or IPv6 address (perftest takes no host names either). */
static int parse_ip(int code, const char *val, const char **out)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, val, &a4) != 1 && inet_pton(AF_INET6, val, &a6) != 1)
		return bad_value(code, val, -EINVAL, "a numeric IPv4 or IPv6 address of this host");
	*out = val;
	return 0;
}

static int parse_counters(const char *val, struct rb_counter_list *l)
{
	char bad[RB_COUNTER_NAME_MAX + 32];
	int err = counters_parse(val, l, bad, sizeof(bad));

	if (err == -E2BIG)
		log_err("-W/--report-counters: '%s' is one counter too many (at most %d)", bad, RB_MAX_COUNTERS);
	else if (err == -EEXIST)
		log_err("-W/--report-counters: '%s' is given twice", bad);
	else if (err)
		log_err("-W/--report-counters: '%s' is not a counter", bad);
	if (err)
		log_info("expected %s", COUNTERS_FORMS);
	return err ? -EINVAL : 0;
}

static int parse_output(int code, const char *val, struct rb_options *o)
{
	char lbl[48];

	if (o->format != OUT_HUMAN) {
		log_err("%s: only one of --csv and --json may be given", opt_label(code, lbl, sizeof(lbl)));
		return -EINVAL;
	}
	o->format = code == OPT_CSV ? OUT_CSV : OUT_JSON;
	o->out_file = val;
	return 0;
}

static void options_defaults(const struct rb_bench *b, struct rb_options *o)
{
	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->port = 18515;
	o->transport = TR_RC;
	o->qp_timeout = 14;
	o->tclass = -1;
	o->timeout_s = 10;
	o->size = b->defaults.size;
	o->iters = b->defaults.iters;
	o->warmup_iters = b->metric == METRIC_LAT ? 100 : 0;
	o->warmup_s = -1;
	o->load.size = LOAD_DEFAULT_SIZE;
	o->load.qps = LOAD_DEFAULT_QPS;
	o->qps = 1;
	o->threads = 1;
	o->tx_depth = b->defaults.tx_depth;
	o->rx_depth = b->defaults.rx_depth;
	o->post_list = 1;
	o->cq_mod = b->metric == METRIC_LAT ? 1 : 100;
	o->inline_size = -1;
	o->numa_node = -1;
	o->npct = (int)(sizeof(default_pcts) / sizeof(default_pcts[0]));
	memcpy(o->pcts, default_pcts, sizeof(default_pcts));
	o->format = OUT_HUMAN;
}

/* --load and its options (checked together in load_opts_check). */
static int load_apply(int c, const char *arg, struct rb_options *o)
{
	switch (c) {
	case OPT_LOAD: o->load.bench_text = arg; return 0;
	case OPT_LOAD_SIZE:
		o->load.size_given = true;
		return units_parse_size(arg, 1, 1u << 30, &o->load.size) ?
		       bad_value(c, arg, -EINVAL, "a size, K/M suffixes") : 0;
	case OPT_LOAD_QPS:
		o->load.qps_given = true;
		return parse_u64(c, arg, 1, RB_MAX_QPS, &o->load.qps);
	default: o->load.compare = true; return 0;
	}
}

/* Apply one parsed option. */
static int options_apply(int c, const char *arg, struct rb_options *o)
{
	uint64_t v;

	switch (c) {
	case 'd': o->ib_dev = arg; return 0;
	case 'i': return parse_int(c, arg, 1, 255, &o->ib_port);
	case 'x': return parse_int(c, arg, 0, 1023, &o->gid_index);
	case 'p':
		if (parse_u64(c, arg, 1, 65535, &v))
			return -EINVAL;
		o->port = (uint16_t)v;
		return 0;
	case OPT_BIND: o->bind_addr = arg; return 0;
	case 'c': return parse_transport(arg, &o->transport);
	case 'R': o->rdma_cm = true; return 0;
	case 'm': return parse_mtu(arg, &o->mtu);
	case 'u': return parse_uint(c, arg, 0, 31, &o->qp_timeout);
	case 'S':
		o->sl_given = true;
		return parse_uint(c, arg, 0, 15, &o->sl);
	case OPT_TCLASS: return parse_int(c, arg, 0, 255, &o->tclass);
	case OPT_SOURCE_IP: return parse_ip(c, arg, &o->source_ip);
	case OPT_PERSISTENT: o->persistent = true; return 0;
	case OPT_LOOPBACK: o->loopback = true; return 0;
	case OPT_TIMEOUT: return parse_seconds(c, arg, 0.1, 3600, &o->timeout_s);
	case 's': {
		int err = units_parse_size(arg, 1, 1u << 30, &o->size);

		return err ? bad_value(c, arg, err, "a size 1..1G, K/M/G suffixes") : 0;
	}
	case 'a': o->all = true; return 0;
	case 'n': return parse_u64(c, arg, 1, 1ULL << 40, &o->iters);
	case 'D': return parse_seconds(c, arg, 0.1, 86400, &o->duration_s);
	case OPT_INTERVAL: return parse_seconds(c, arg, 0.01, 86400, &o->interval_s);
	case OPT_RUN_INF: o->run_infinitely = true; return 0;
	case OPT_MIN_BW: return parse_rate(c, arg, &o->min_bw_bps, &o->min_bw_text);
	case OPT_WARMUP: return parse_u64(c, arg, 0, 1ULL << 32, &o->warmup_iters);
	case OPT_WARMUP_TIME: return parse_seconds(c, arg, 0, 3600, &o->warmup_s);
	case 'q': return parse_uint(c, arg, 1, RB_MAX_QPS, &o->qps);
	case 'b': o->bidir = true; return 0;
	case 'j': return parse_uint(c, arg, 1, RB_MAX_THREADS, &o->threads);
	case OPT_THREAD_ROWS: o->thread_rows = true; return 0;
	case 't': return parse_uint(c, arg, 1, 16384, &o->tx_depth);
	case 'r': return parse_uint(c, arg, 1, 16384, &o->rx_depth);
	case 'l': return parse_uint(c, arg, 1, 1024, &o->post_list);
	case 'Q':
		o->cq_mod_given = true;
		return parse_uint(c, arg, 1, 1024, &o->cq_mod);
	case 'o': return parse_uint(c, arg, 1, 256, &o->outs);
	case 'I': return parse_int(c, arg, 0, 4096, &o->inline_size);
	case 'e': o->events = true; return 0;
	case OPT_POLL_PAUSE: o->poll_pause = true; return 0;
	case 'A': return parse_atomic(arg, &o->atomic_op);
	case OPT_ATOMIC_SAME: o->atomic_same_address = true; return 0;
	case OPT_VALIDATE: o->validate = true; return 0;
	case OPT_LOAD: case OPT_LOAD_SIZE: case OPT_LOAD_QPS: case OPT_LOAD_COMPARE:
		return load_apply(c, arg, o);
	case OPT_NUMA_NODE: return parse_int(c, arg, 0, 1023, &o->numa_node);
	case OPT_NO_NUMA: o->no_numa = true; return 0;
	case OPT_CPU: o->cpu_list = arg; return 0;
	case OPT_HUGEPAGES: o->hugepages = true; return 0;
	case OPT_NO_RELAXED: o->no_relaxed = true; return 0;
	case OPT_GBITS: o->report_gbits = true; return 0;
	case OPT_PCTS:
		o->npct = stats_parse_percentiles(arg, o->pcts, STATS_MAX_PCT - 1);
		if (o->npct <= 0)
			return bad_value(c, arg, -EINVAL, "a comma-separated list of percentiles in (0,100]");
		return 0;
	case OPT_CSV:
	case OPT_JSON: return parse_output(c, arg, o);
	case 'W': return parse_counters(arg, &o->counters);
	case 'H': o->histogram_file = arg; return 0;
	case OPT_RAW: o->raw_file = arg; return 0;
	case OPT_CLOCK: return parse_clock(arg, &o->clock);
	case 'F': return 0;
	case 'v': o->verbose = true; return 0;
	}
	return -EINVAL;
}

static void options_cmdline(int argc, char **argv, struct rb_options *o)
{
	size_t used = 0;

	for (int i = 0; i < argc && used < sizeof(o->cmdline); i++)
		used += (size_t)snprintf(o->cmdline + used, sizeof(o->cmdline) - used,
					 "%s%s", i ? " " : "", argv[i]);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err("%s", msg);
	log_info("try '--help'");
	return -EINVAL;
}

/* --interval, --run_infinitely and --min-bw together and with -D, -n, -a. */
static int interval_check(const struct rb_options *o, unsigned given)
{
	if (o->run_infinitely && (o->duration_s > 0 || (given & 1) || o->all))
		return usage_error("--run_infinitely runs one size until SIGINT/SIGTERM: drop %s",
				   o->duration_s > 0 ? "-D/--duration" : (given & 1) ? "-n/--iters" : "-a/--all");
	if (o->min_bw_text && o->interval_s <= 0)
		return usage_error("--min-bw %s applies to intervals: give --interval=SECONDS too",
				   o->min_bw_text);
	if (o->interval_s > 0 && o->duration_s > 0 && o->interval_s > o->duration_s - o->warmup_s)
		return usage_error("--interval: %g s is longer than the measured window (-D %g s less --warmup-time %g s)",
				   o->interval_s, o->duration_s, o->warmup_s);
	return 0;
}

/*
 * --validate: the send tests give each receive a buffer of its own (-r of
 * them per QP, each as large as the largest message), the bandwidth tests
 * each WR in flight (-t of them per QP); -j's rows carry no
 * check yet.
 */
static int validate_check(const struct rb_bench *b, const struct rb_options *o)
{
	uint64_t max = o->all ? RB_SWEEP_MAX : o->size;

	if (!o->validate)
		return 0;
	if (o->threads > 1)
		return usage_error("--validate cannot be combined with -j/--threads %u yet (a thread's row carries no check)",
				   o->threads);
	if (b->verb == VERB_SEND && (uint64_t)o->rx_depth * max * o->qps > RB_VALIDATE_RX_MAX)
		return usage_error("--validate: -r/--rx-depth %u receive buffers of %llu bytes on %u QP(s) exceed %llu MiB; lower -r or -s",
				   o->rx_depth, (unsigned long long)max, o->qps,
				   (unsigned long long)(RB_VALIDATE_RX_MAX >> 20));
	if (b->metric == METRIC_BW && (uint64_t)o->tx_depth * max * o->qps > RB_VALIDATE_RX_MAX)
		return usage_error("--validate: -t/--tx-depth %u send buffers of %llu bytes on %u QP(s) exceed %llu MiB; lower -t or -s",
				   o->tx_depth, (unsigned long long)max, o->qps,
				   (unsigned long long)(RB_VALIDATE_RX_MAX >> 20));
	return 0;
}

/* --load: its own rules (load.c), then what it does not run with yet. */
static int load_opts_check(const struct rb_bench *b, struct rb_options *o)
{
	char why[256];

	if (load_check(&o->load, b->metric == METRIC_LAT, RB_SWEEP_MAX, RB_MAX_QPS, why, sizeof(why)))
		return usage_error("%s", why);
	if (!o->load.bench_text)
		return 0;
	o->load_bench = (enum load_bench)load_bench_parse(o->load.bench_text);
	if (o->validate || o->loopback)
		return usage_error("--load cannot be combined with %s yet",
				   o->validate ? "--validate" : "--loopback (run the server and the client apart)");
	if (o->load.compare && o->run_infinitely)
		return usage_error("--load-compare runs each size %u times: drop --run_infinitely",
				   LOAD_COMPARE_REPS);
	return 0;
}

/* Combinations that no single option's range can catch. */
static int options_check(const struct rb_bench *b, struct rb_options *o, unsigned given)
{
	if (!(b->transports & o->transport))
		return usage_error("-c/--connection: %s is not supported by %s",
				   options_transport_name(o->transport), b->name);
	if (o->rdma_cm && o->transport == TR_UD)
		return usage_error("-R/--rdma-cm supports RC and UC; UD is connected by hand (drop -R)");
	if (o->source_ip && (!o->rdma_cm || !o->server))
		return usage_error("--source-ip applies to a client with -R/--rdma-cm (%s)",
				   o->server ? "without -R the source is the GID: choose it with -d and -x"
					     : "a server listens on --bind ADDR");
	if (o->loopback && (o->server || o->persistent || o->source_ip))
		return usage_error("--loopback runs both sides here: give no %s", o->server ?
				   "HOST" : o->persistent ? "--persistent" : "--source-ip");
	if (o->all && o->duration_s > 0)
		return usage_error("-a/--all and -D/--duration cannot be combined");
	if (o->all && (given & 2))
		return usage_error("-a/--all sweeps the sizes and -s/--size sets one: give one of them");
	if (o->duration_s > 0 && (given & 1))
		return usage_error("-n/--iters and -D/--duration cannot be combined");
	if (o->warmup_s < 0)
		o->warmup_s = o->duration_s >= 4 || o->run_infinitely ? 1 : o->duration_s / 4;
	if (o->duration_s > 0 && o->warmup_s >= o->duration_s)
		return usage_error("--warmup-time: %g s must be shorter than -D/--duration %g s",
				   o->warmup_s, o->duration_s);
	if (o->threads > 1 && (o->rdma_cm || o->cpu_list))
		return usage_error("-j/--threads %u cannot be combined with %s", o->threads,
				   o->rdma_cm ? "-R/--rdma_cm (it connects one thread's QPs)"
					      : "--cpu (each thread claims a CPU of its own)");
	if (o->threads > 1 && (o->interval_s > 0 || o->run_infinitely))
		return usage_error("-j/--threads %u cannot be combined with %s yet (one row of intervals per thread is not written)",
				   o->threads, o->interval_s > 0 ? "--interval" : "--run_infinitely");
	if (interval_check(o, given) || validate_check(b, o) || load_opts_check(b, o))
		return -EINVAL;
	if (o->no_numa && (o->numa_node >= 0 || o->cpu_list))
		return usage_error("--no-numa cannot be combined with %s",
				   o->cpu_list ? "--cpu" : "--numa-node");
	if (o->post_list > o->tx_depth)
		return usage_error("-l/--post-list %u is larger than -t/--tx-depth %u",
				   o->post_list, o->tx_depth);
	if (o->transport == TR_UD && o->size > 4096 && !o->all)
		return usage_error("-s/--size: %llu is larger than any UD message can be (the MTU, at most 4096)",
				   (unsigned long long)o->size);
	if (o->format != OUT_HUMAN && o->out_file && (o->histogram_file || o->raw_file) &&
	    ((o->histogram_file && !strcmp(o->out_file, o->histogram_file)) ||
	     (o->raw_file && !strcmp(o->out_file, o->raw_file))))
		return usage_error("--csv/--json: the results file and -H/--raw must differ");
	return 0;
}

static int reject_feature(const struct rb_bench *b, int code)
{
	char lbl[48];

	log_err("%s is not supported by %s", opt_label(code, lbl, sizeof(lbl)), b->name);
	log_info("try '%s --help'", b->name);
	return -EINVAL;
}

/* The other spelling of a long name: '-' and '_' swapped ("" if none). */
static void opt_alt_name(const char *name, char *alt, size_t len)
{
	bool dash = strchr(name, '-') != NULL;
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		alt[i] = dash && name[i] == '-' ? '_' : !dash && name[i] == '_' ? '-' : name[i];
	alt[i] = '\0';
	if (!strcmp(alt, name))
		alt[0] = '\0';
}

#define N_LONG (2 * N_OPTS)
#define ALT_LEN 32

/* getopt's tables: every name in both spellings (alt holds the others). */
static void build_getopt(struct option *lo, char alt[][ALT_LEN], char *so)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < N_OPTS; i++) {
		const struct opt_desc *d = &opt_table[i];
		int has = d->has_arg == 2 ? optional_argument : d->has_arg ? required_argument : no_argument;

		lo[k++] = (struct option){ d->name, has, NULL, d->code };
		opt_alt_name(d->name, alt[i], ALT_LEN);
		if (alt[i][0])
			lo[k++] = (struct option){ alt[i], has, NULL, d->code };
		if (d->code < 256) {
			so[n++] = (char)d->code;
			if (d->has_arg)
				so[n++] = ':';
		}
	}
	lo[k] = (struct option){ 0 };
	so[n] = '\0';
}

/* -Q given above -t is an error; the default is lowered to -t, and the
 * metadata's cq_mod says so. */
static int check_cq_mod(struct rb_options *o)
{
	if (o->cq_mod_given && o->cq_mod > o->tx_depth)
		return usage_error("-Q/--cq-mod %u is larger than -t/--tx-depth %u (a completion is requested at least every -t sends): give -Q %u or less, or a larger -t",
				   o->cq_mod, o->tx_depth, o->tx_depth);
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	return 0;
}

/* RB_POLL_PAUSE: --poll-pause's default, 0 or 1 (the test bed sets 1). */
static int poll_pause_env(struct rb_options *o)
{
	const char *v = getenv("RB_POLL_PAUSE");

	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (strcmp(v, "1"))
		return usage_error("RB_POLL_PAUSE=%s: 0 or 1 (1: --poll-pause)", v);
	o->poll_pause = true;
	return 0;
}

int options_parse(int argc, char **argv, const struct rb_bench *b, struct rb_options *o)
{
	struct option lo[N_LONG + 1];
	char alt[N_OPTS][ALT_LEN];
	char so[2 * N_OPTS + 2];
	unsigned given = 0;
	int c;

	options_defaults(b, o);
	if (poll_pause_env(o))
		return -EINVAL;
	options_cmdline(argc, argv, o);
	build_getopt(lo, alt, so);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct opt_desc *d = opt_find(c);

		if (c == '?') {
			if (optopt)
				return usage_error("-%c: unknown option or missing value", optopt);
			return usage_error("%s: unknown option or missing value", argv[optind - 1]);
		}
		if (c == 'h') {
			options_usage(b, stdout);
			return 1;
		}
		if (c == 'V') {
			printf("%s (rdmabench) %s (commit %s)\n", b->name, PACKAGE_VERSION, rb_commit());
			return 1;
		}
		if (d && d->feature && !(bench_features(b) & d->feature))
			return reject_feature(b, c);
		if (c == 'n')
			given |= 1;
		if (c == 's')
			given |= 2;
		if (options_apply(c, optarg, o))
			return -EINVAL;
	}
	if (optind < argc)
		o->server = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s' (only one server host may be given)", argv[optind]);
	if (options_check(b, o, given))
		return -EINVAL;
	return check_cq_mod(o);
}

/*
 * perftest's defaults (ctx_set_max_inline() in perftest_parameters.c):
 * bandwidth tests send nothing inline; latency tests inline writes up to
 * 220 bytes (DEF_INLINE_WRITE), sends up to 236 (DEF_INLINE_SEND_RC_UC)
 * or 188 on UD (DEF_INLINE_SEND_UD); reads and atomics none.  Its
 * per-vendor table (and 0 for devices it does not know, rxe among them)
 * is not copied: the device's grant bounds the default instead.
 */
uint32_t options_inline_default(const struct rb_bench *b, enum rb_transport tr)
{
	if (b->metric != METRIC_LAT)
		return 0;
	if (b->verb == VERB_WRITE)
		return 220;
	if (b->verb == VERB_SEND)
		return tr == TR_UD ? 188 : 236;
	return 0;
}

/* "RC|UC|UD": the transports b accepts. */
static void transports_text(const struct rb_bench *b, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned t = TR_RC; t <= TR_UD && used < len; t <<= 1)
		if (b->transports & t)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
						 options_transport_name((enum rb_transport)t));
}

static void inline_default_text(const struct rb_bench *b, char *buf, size_t len)
{
	uint32_t rc = options_inline_default(b, TR_RC), ud = options_inline_default(b, TR_UD);

	if ((b->transports & TR_UD) && ud != rc)
		snprintf(buf, len, "%u, UD %u", rc, ud);
	else
		snprintf(buf, len, "%u", rc);
}

static void pcts_text(const struct rb_options *o, char *buf, size_t len)
{
	size_t used = 0;

	for (int i = 0; i < o->npct && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%g", i ? "," : "", o->pcts[i]);
}

/* The default of an option for b, as options_defaults() sets it ("": none
 * worth a number; the help text says it in words). */
static void opt_default_text(int code, const struct rb_bench *b, char *buf, size_t len)
{
	struct rb_options d;

	options_defaults(b, &d);
	buf[0] = '\0';
	switch (code) {
	case 'i': snprintf(buf, len, "%d", d.ib_port); break;
	case 'p': snprintf(buf, len, "%u", d.port); break;
	case 'c': snprintf(buf, len, "%s", options_transport_name(d.transport)); break;
	case 'u': snprintf(buf, len, "%u", d.qp_timeout); break;
	case 'S': snprintf(buf, len, "%u", d.sl); break;
	case OPT_TIMEOUT: snprintf(buf, len, "%g", d.timeout_s); break;
	case OPT_LOAD_SIZE: snprintf(buf, len, "%llu", (unsigned long long)d.load.size); break;
	case OPT_LOAD_QPS: snprintf(buf, len, "%llu", (unsigned long long)d.load.qps); break;
	case 's': snprintf(buf, len, "%llu", (unsigned long long)d.size); break;
	case 'n': snprintf(buf, len, "%llu", (unsigned long long)d.iters); break;
	case OPT_WARMUP: snprintf(buf, len, "%llu", (unsigned long long)d.warmup_iters); break;
	case 'q': snprintf(buf, len, "%u", d.qps); break;
	case 't': snprintf(buf, len, "%u", d.tx_depth); break;
	case 'r': snprintf(buf, len, "%u", d.rx_depth); break;
	case 'l': snprintf(buf, len, "%u", d.post_list); break;
	case 'Q': snprintf(buf, len, "%u", d.cq_mod); break;
	case 'I': inline_default_text(b, buf, len); break;
	case 'A': snprintf(buf, len, "%s", options_atomic_name(d.atomic_op)); break;
	case OPT_CLOCK: snprintf(buf, len, "%s", d.clock == CLK_AUTO ? "auto" : "?"); break;
	case OPT_PCTS: pcts_text(&d, buf, len); break;
	}
}

#define HELP_WIDTH 79
#define HELP_HEAD 24

/* "-d, --ib-dev=DEV", "    --csv[=FILE]", "-c, --connection=RC|UC" */
static void opt_head(const struct opt_desc *d, const struct rb_bench *b, char *buf, size_t len)
{
	char arg[64];

	snprintf(arg, sizeof(arg), "%s", d->arg ? d->arg : "");
	if (d->code == 'c')
		transports_text(b, "|", arg, sizeof(arg));
	snprintf(buf, len, "%s%c%s--%s%s%s%s", d->code < 256 ? "-" : " ",
		 d->code < 256 ? d->code : ' ', d->code < 256 ? ", " : "  ", d->name,
		 !d->arg ? "" : d->has_arg == 2 ? "[=" : "=", arg, d->has_arg == 2 ? "]" : "");
}

/* The length of the unit at text: a word and the words starting with '-'
 * that follow it (kept on its line: see help_wrap). */
static size_t wrap_unit(const char *text)
{
	size_t n = strcspn(text, " ");

	while (text[n] == ' ' && text[n + 1] == '-')
		n += 1 + strcspn(text + n + 1, " ");
	return n;
}

/* Write text from column col on, wrapped before HELP_WIDTH.  A line never
 * starts with '-': tools (docs.sh, gen-options.sh) read those as option heads. */
static void help_wrap(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		size_t w = wrap_unit(text);

		if (at > col && at + 1 + (int)w > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		}
		at += fprintf(f, "%s%.*s", at > col ? " " : "", (int)w, text);
		text += w + (text[w] == ' ');
	}
	fputc('\n', f);
}

static void opt_usage_line(const struct opt_desc *d, const struct rb_bench *b, FILE *f)
{
	char head[96], def[64], text[320];

	opt_head(d, b, head, sizeof(head));
	opt_default_text(d->code, b, def, sizeof(def));
	snprintf(text, sizeof(text), "%s%s%s%s%s", d->help,
		 d->code == 'a' && (b->transports & TR_UD) ? " (UD: up to the MTU)" : "",
		 def[0] ? " (default " : "", def, def[0] ? ")" : "");
	if ((int)strlen(head) > HELP_HEAD)
		fprintf(f, "  %s\n%*s", head, HELP_HEAD + 3, "");
	else
		fprintf(f, "  %-*s ", HELP_HEAD, head);
	help_wrap(f, text, HELP_HEAD + 3);
}

static bool opt_listed(const struct opt_desc *d, const struct rb_bench *b)
{
	return d->help && (!d->feature || (bench_features(b) & d->feature));
}

void options_inherit(struct rb_options *load, const struct rb_options *o)
{
	load->ib_dev = o->ib_dev;
	load->ib_port = o->ib_port;
	load->gid_index = o->gid_index;
	load->mtu = o->mtu;
	load->qp_timeout = o->qp_timeout;
	load->sl = o->sl;
	load->tclass = o->tclass;
	load->timeout_s = o->timeout_s;
	load->numa_node = o->numa_node;
	load->no_numa = o->no_numa;
	load->verbose = o->verbose;
	load->clock = o->clock;
	load->poll_pause = o->poll_pause;
	load->warmup_s = 0;
}

void options_usage(const struct rb_bench *b, FILE *f)
{
	fprintf(f, "Usage: %s [OPTIONS]          run the server\n"
		   "       %s [OPTIONS] HOST     run the client against HOST\n\n",
		b->name, b->name);
	help_wrap(f, b->summary, 0);
	for (int g = 0; g < G_N; g++) {
		fprintf(f, "\n%s:\n", group_title[g]);
		for (size_t i = 0; i < N_OPTS; i++)
			if (opt_table[i].group == (enum opt_group)g && opt_listed(&opt_table[i], b))
				opt_usage_line(&opt_table[i], b, f);
	}
	fprintf(f, "\nLong options may be spelt with - or _ (--ib-dev, --ib_dev).\n"
		   "Exit status: 0 success, 1 runtime failure, 2 usage error.\n");
}

const char *options_long_name(size_t i, int *code, int *has_arg, bool *listed_for_all)
{
	if (i >= N_OPTS)
		return NULL;
	*code = opt_table[i].code;
	*has_arg = opt_table[i].has_arg;
	*listed_for_all = opt_table[i].help && !opt_table[i].feature;
	return opt_table[i].name;
}
