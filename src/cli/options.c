/* The benchmarks' options (options.h): defaults, the values with parsers of
 * their own, --help, options_parse.  The rows are in rows.c, the
 * combinations in rules.c. */
#include "cli/options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/rows.h"
#include "config.h"
#include "lib/commit.h"
#include "lib/gid.h"
#include "lib/log.h"
#include "lib/units.h"

static const double default_pcts[] = { 50, 90, 99, 99.9, 99.99 };

const char *options_transport_name(enum rb_transport t)
{
	return opt_enum_name(transport_names, (int)t);
}

const char *options_atomic_name(enum rb_atomic_op op)
{
	return op == ATOMIC_CMP_SWAP ? "CMP_AND_SWAP" : "FETCH_AND_ADD";
}

int options_transport_parse(const char *name, enum rb_transport *t)
{
	for (const struct opt_name *n = transport_names; n->name; n++)
		if (!strcasecmp(name, n->name)) {
			*t = (enum rb_transport)n->value;
			return 0;
		}
	return -EINVAL;
}

const struct opt_prog *options_table(void)
{
	return &options_prog;
}

unsigned options_features(const struct rb_bench *b)
{
	return b->features | (b->metric == METRIC_LAT ? FEAT_LATENCY : FEAT_BANDWIDTH | FEAT_THREADS) |
	       (b->verb != VERB_ATOMIC ? FEAT_SIZE : 0) | (b->verb == VERB_SEND ? FEAT_RX_DEPTH | FEAT_MCG : 0) |
	       (b->verb != VERB_ATOMIC || b->metric == METRIC_BW ? FEAT_VALIDATE : 0);
}

int options_usage_error(const char *fmt, ...)
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

/* perftest's values of our options that rdmabench does not take, and why:
 * named as perftest's, with what to use instead (rdmabench(7)). */
static const struct {
	const char *opt, *val, *why, *instead;
} perftest_values[] = {
	{ "connection", "XRC", "XRC (extended reliable connections: XRC domains and shared receive queues) is not supported here, and rxe has none", "-c RC" },
	{ "connection", "DC", "DC (dynamically connected, mlx5 only) is not supported here", "-c RC, or -c UD for connectionless" },
	{ "connection", "SRD", "SRD (EFA only) is not supported here", "-c RC, or -c UD for connectionless" },
};

/* True (and said) when val is one of perftest's values refused here. */
static bool perftest_value_refused(const struct opt_row *r, const char *val)
{
	char lbl[48];

	for (size_t i = 0; i < sizeof(perftest_values) / sizeof(perftest_values[0]); i++) {
		if (!r->name || strcmp(r->name, perftest_values[i].opt) || strcasecmp(val, perftest_values[i].val))
			continue;
		log_err("%s %s: perftest's transport; %s", opt_label(r, lbl, sizeof(lbl)), val, perftest_values[i].why);
		log_info("instead: %s", perftest_values[i].instead);
		return true;
	}
	return false;
}

int options_bad_value(const struct opt_row *r, const char *val, int err, const char *expect)
{
	char lbl[48];

	if (perftest_value_refused(r, val))
		return -EINVAL;
	if (err == -ERANGE)
		log_err("%s: %s is out of range (%s)", opt_label(r, lbl, sizeof(lbl)), val, expect);
	else
		log_err("%s: '%s' is not a valid value (expected %s)", opt_label(r, lbl, sizeof(lbl)), val, expect);
	return -EINVAL;
}

int options_error(const char *who, enum opt_err kind, const struct opt_row *r, const char *word,
		  int err, const char *expect)
{
	char lbl[48];

	switch (kind) {
	case OE_VALUE: return options_bad_value(r, word, err, expect);
	case OE_AMBIGUOUS:
		return options_usage_error("%s is ambiguous: it could be %s", word, expect);
	case OE_FEATURE:
		log_err("%s is not supported by %s", opt_label(r, lbl, sizeof(lbl)), who);
		log_info("try '%s --help'", who);
		return -EINVAL;
	default:
		if (err)
			return options_usage_error("-%c: unknown option or missing value", err);
		return options_usage_error("%s: unknown option or missing value", word);
	}
}

#define O(dst) ((struct rb_options *)(dst))

/* Any other whole number: the port's active MTU, with a warning (as
 * perftest's set_mtu: "Invalid MTU ... Will run with the port active
 * mtu"); the metadata's mtu_bytes says what ran. */
int opt_parse_mtu(const struct opt_row *r, const char *val, void *dst)
{
	uint64_t v;

	if (units_parse_size(val, 0, UINT32_MAX, &v))
		return options_bad_value(r, val, -EINVAL, "256, 512, 1024, 2048 or 4096");
	if (v < 256 || v > 4096 || (v & (v - 1))) {
		log_warn("-m/--mtu %s is not 256, 512, 1024, 2048 or 4096: the port's active MTU is used (as perftest does)", val);
		v = 0;
	}
	O(dst)->mtu = (int)v;
	return 0;
}

/* A numeric IPv4 or IPv6 address (perftest takes no host names either). */
int opt_parse_ip(const struct opt_row *r, const char *val, void *dst)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, val, &a4) != 1 && inet_pton(AF_INET6, val, &a6) != 1)
		return options_bad_value(r, val, -EINVAL, "a numeric IPv4 or IPv6 address of this host");
	O(dst)->source_ip = val;
	return 0;
}

int opt_parse_mgid(const struct opt_row *r, const char *val, void *dst)
{
	int err = gid_parse_mgid(val, O(dst)->mgid);

	O(dst)->mgid_text = val;
	if (err == -EDOM)
		return options_bad_value(r, val, -EINVAL, "a multicast group: ff00::/8, or IPv4 224.0.0.0/4 (e.g. ff0e::1, 239.1.2.3)");
	return err ? options_bad_value(r, val, err, "an IPv6 or IPv4 multicast address, or perftest's 16 bytes 255:1:0:...:0") : 0;
}

int opt_parse_rate(const struct opt_row *r, const char *val, void *dst)
{
	int err = units_parse_rate(val, 1, 1e15, &O(dst)->min_bw_bps);

	O(dst)->min_bw_text = val;
	return err ? options_bad_value(r, val, err,
				       "a rate with its unit: b/s, Kb/s, Mb/s, Gb/s, Tb/s, B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s or GiB/s, e.g. 10Gb/s") : 0;
}

int opt_parse_load_size(const struct opt_row *r, const char *val, void *dst)
{
	return units_parse_size(val, 1, 1u << 30, &O(dst)->load.size) ?
	       options_bad_value(r, val, -EINVAL, "a size, K/M suffixes") : 0;
}

int opt_parse_pcts(const struct opt_row *r, const char *val, void *dst)
{
	struct rb_options *o = dst;

	o->npct = stats_parse_percentiles(val, o->pcts, STATS_MAX_PCT - 1);
	if (o->npct <= 0)
		return options_bad_value(r, val, -EINVAL, "a comma-separated list of percentiles in (0,100]");
	return 0;
}

int opt_parse_clock(const struct opt_row *r, const char *val, void *dst)
{
	if (clock_policy_parse(val, &O(dst)->clock))
		return options_bad_value(r, val, -EINVAL, "auto, tsc or monotonic");
	return 0;
}

int opt_parse_counters(const struct opt_row *r, const char *val, void *dst)
{
	char bad[RB_COUNTER_NAME_MAX + 32];
	int err = counters_parse(val, &O(dst)->counters, bad, sizeof(bad));

	(void)r;
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

int opt_parse_output(const struct opt_row *r, const char *val, void *dst)
{
	struct rb_options *o = dst;
	char lbl[48];

	if (o->format != OUT_HUMAN) {
		log_err("%s: only one of --csv and --json may be given", opt_label(r, lbl, sizeof(lbl)));
		return -EINVAL;
	}
	o->format = !strcmp(r->name, "csv") ? OUT_CSV : OUT_JSON;
	o->out_file = val;
	return 0;
}

void options_init_defaults(const struct rb_bench *b, struct rb_options *o)
{
	memset(o, 0, sizeof(*o));
	o->ib_port = 1;
	o->gid_index = -1;
	o->port = 18515;
	o->transport = TR_RC;
	o->qp_timeout = 14;
	o->tclass = -1;
	o->hop_limit = RB_HOP_LIMIT_DEFAULT;
	o->retry_count = RB_RETRY_COUNT_DEFAULT;
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

void options_set_cq_mod(struct rb_options *o, unsigned cq_mod)
{
	o->cq_mod = cq_mod;
	o->cq_mod_given = true;
}

int options_env(struct rb_options *o)
{
	const char *v = getenv("RB_POLL_PAUSE");

	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (strcmp(v, "1"))
		return options_usage_error("RB_POLL_PAUSE=%s: 0 or 1 (1: --poll-pause)", v);
	o->poll_pause = true;
	return 0;
}

static void options_cmdline(int argc, char **argv, struct rb_options *o)
{
	size_t used = 0;

	for (int i = 0; i < argc && used < sizeof(o->cmdline); i++)
		used += (size_t)snprintf(o->cmdline + used, sizeof(o->cmdline) - used,
					 "%s%s", i ? " " : "", argv[i]);
}

int options_parse(int argc, char **argv, const struct rb_bench *b, struct rb_options *o)
{
	int first, rc;

	options_init_defaults(b, o);
	if (options_env(o))
		return -EINVAL;
	options_cmdline(argc, argv, o);
	rc = opt_parse(&options_prog, b->name, argc, argv, options_features(b), o, &first);
	if (rc == OPT_HELP)
		options_usage(b, stdout);
	else if (rc == OPT_VERSION)
		printf("%s (rdmabench) %s (commit %s)\n", b->name, PACKAGE_VERSION, rb_commit());
	if (rc)
		return rc > 0 ? 1 : -EINVAL;
	if (first < argc)
		o->server = argv[first++];
	if (first < argc)
		return options_usage_error("unexpected argument '%s' (only one server host may be given)", argv[first]);
	return options_finish(b, o);
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

void options_inherit(struct rb_options *load, const struct rb_options *o)
{
	load->ib_dev = o->ib_dev;
	load->ib_port = o->ib_port;
	load->gid_index = o->gid_index;
	load->mtu = o->mtu;
	load->qp_timeout = o->qp_timeout;
	load->sl = o->sl;
	load->tclass = o->tclass;
	options_inherit_path(load, o);
	load->timeout_s = o->timeout_s;
	load->numa_node = o->numa_node;
	load->no_numa = o->no_numa;
	load->verbose = o->verbose;
	load->clock = o->clock;
	load->poll_pause = o->poll_pause;
	load->warmup_s = 0;
}

const char *options_long_name(size_t i, int *code, int *has_arg, bool *listed_for_all)
{
	const struct opt_row *r;

	if (i >= options_prog.n)
		return NULL;
	r = &options_prog.rows[i];
	*code = r->code;
	*has_arg = r->opt_arg ? 2 : r->arg ? 1 : 0;
	*listed_for_all = r->help && !r->feat;
	return r->name;
}
