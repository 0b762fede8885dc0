/* Option parsing: defaults, good values, and every bad-value path
 * (exit status 2 is decided from the -EINVAL returned here). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench.h"
#include "lib/log.h"
#include "cli/options.h"
#include "tap.h"

static const struct rb_bench bw = {
	.name = "rb_test_bw", .title = "t", .summary = "t", .verb = VERB_SEND,
	.metric = METRIC_BW, .transports = TR_RC | TR_UC | TR_UD,
	.features = FEAT_QPS | FEAT_BIDIR | FEAT_POST_LIST | FEAT_CQ_MOD | FEAT_INLINE,
	.defaults = { .size = 65536, .iters = 5000, .tx_depth = 128, .rx_depth = 512 },
};

static const struct rb_bench lat = {
	.name = "rb_test_lat", .title = "t", .summary = "t", .verb = VERB_READ,
	.metric = METRIC_LAT, .transports = TR_RC, .features = FEAT_OUTS,
	.defaults = { .size = 2, .iters = 1000, .tx_depth = 1, .rx_depth = 1 },
};

/* Parse a NULL-terminated argument list. */
static int parse(const struct rb_bench *b, struct rb_options *o, ...)
{
	char *argv[32] = { "prog" };
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return options_parse(argc, argv, b, o);
}

static void test_defaults(void)
{
	struct rb_options o;

	is_int(parse(&bw, &o, NULL), 0, "no options parse");
	is_int(o.size, 65536, "default size from the bench");
	is_int(o.iters, 5000, "default iterations from the bench");
	is_int(o.port, 18515, "default port 18515 like perftest");
	is_int(o.gid_index, -1, "GID chosen automatically by default");
	is_int(o.transport, TR_RC, "RC by default");
	is_int(o.cq_mod, 100, "bandwidth CQ moderation 100");
	ok(o.server == NULL, "no host: server role");
	is_int(o.npct, 5, "five default percentiles");
	is_int(o.format, OUT_HUMAN, "human output by default");
	is_int(o.clock, CLK_AUTO, "--clock=auto by default");
	is_int(parse(&lat, &o, NULL), 0, "latency defaults parse");
	is_int(o.warmup_iters, 100, "latency warm-up 100 iterations");
	is_int(o.cq_mod, 1, "latency signals every operation");
}

static void test_good_values(void)
{
	struct rb_options o;

	is_int(parse(&bw, &o, "-d", "rxe0", "-x", "1", "-s", "64K", "-n", "200", "-q", "4",
		     "-c", "UC", "--csv=out.csv", "host1", NULL), 0, "a typical client line parses");
	is_str(o.ib_dev, "rxe0", "-d");
	is_int(o.gid_index, 1, "-x");
	is_int(o.size, 65536, "-s with K suffix");
	is_int(o.iters, 200, "-n");
	is_int(o.qps, 4, "-q");
	is_int(o.transport, TR_UC, "-c UC");
	is_int(o.format, OUT_CSV, "--csv");
	is_str(o.out_file, "out.csv", "--csv=FILE");
	is_str(o.server, "host1", "positional host");
	is_int(parse(&bw, &o, "--json", "-D", "2", NULL), 0, "--json without a file and -D");
	ok(o.format == OUT_JSON && o.out_file == NULL, "--json to stdout");
	is_near(o.duration_s, 2, 1e-12, "-D 2");
	is_near(o.warmup_s, 0.5, 1e-12, "warm-up D/4 when D < 4");
	is_int(parse(&bw, &o, "-D", "10", NULL), 0, "-D 10");
	is_near(o.warmup_s, 1, 1e-12, "warm-up 1 s when D >= 4");
	is_int(parse(&lat, &o, "--percentiles", "50,99.9", "-o", "4", NULL), 0, "--percentiles and -o");
	is_int(o.npct, 2, "two percentiles");
	is_near(o.pcts[1], 99.9, 1e-12, "99.9 parsed");
	is_int(o.outs, 4, "-o 4");
	is_int(parse(&bw, &o, "-m", "1024", "-t", "64", "-Q", "64", NULL), 0, "-Q equal to -t");
	is_int(o.cq_mod, 64, "-Q 64 kept");
	is_int(o.mtu, 1024, "-m 1024");
	is_int(parse(&bw, &o, "-t", "64", "-Q", "500", NULL), -EINVAL, "-Q above -t is a usage error");
	is_int(parse(&bw, &o, "-t", "16", NULL), 0, "-t below the default -Q");
	is_int(o.cq_mod, 16, "the default -Q is lowered to -t, and the metadata says 16");
	ok(!o.cq_mod_given, "the lowered default is not taken for a given -Q");
	is_int(parse(&bw, &o, "-a", "-s", "64", NULL), -EINVAL, "-a with -s is a usage error");
	is_int(parse(&lat, &o, "--clock=monotonic", NULL), 0, "--clock=monotonic");
	is_int(o.clock, CLK_MONOTONIC, "--clock=monotonic chooses CLOCK_MONOTONIC");
	is_int(parse(&lat, &o, "--clock", "tsc", NULL), 0, "--clock tsc");
	is_int(o.clock, CLK_TSC, "--clock tsc chooses the counter");
	is_int(parse(&lat, &o, "-W", "hw_counters/sent_pkts,rcvd_pkts", NULL), 0, "-W on a latency test");
	is_int(o.counters.n, 2, "-W: two counters");
	is_str(o.counters.c[1].key, "ctr_rcvd_pkts", "-W: the second one's column");
	is_int(parse(&bw, &o, "--report-counters=port_xmit_data", NULL), 0, "--report-counters=LIST");
	is_int(o.counters.n, 1, "--report-counters: one counter");
}

static void test_bad_values(void)
{
	struct rb_options o;
	static const char *const bad[][3] = {
		{ "-s", "0", "size 0" }, { "-s", "abc", "size not a number" },
		{ "-s", "2G", "size past 1G" }, { "-s", "-5", "negative size" },
		{ "-n", "0", "zero iterations" }, { "-n", "1x", "iterations with junk" },
		{ "-i", "0", "port 0" }, { "-i", "256", "port 256" },
		{ "-x", "abc", "GID index not a number" }, { "-p", "70000", "TCP port past 65535" },
		{ "-p", "0", "TCP port 0" }, { "-c", "XRC", "unknown transport" },
		{ "-m", "1k5", "MTU not a number" }, { "-m", "-1", "MTU negative" },
		{ "-q", "0", "zero QPs" }, { "-q", "100000", "too many QPs" },
		{ "-t", "0", "tx depth 0" }, { "-D", "0", "duration 0" },
		{ "-D", "nan", "duration NaN" }, { "--timeout", "-1", "negative timeout" },
		{ "-u", "32", "QP timeout past 31" }, { "-S", "16", "SL past 15" },
		{ "--percentiles", "0", "percentile 0" }, { "--percentiles", "101", "percentile past 100" },
		{ "--percentiles", "50,,", "empty percentile" }, { "--numa-node", "x", "NUMA node not a number" },
		{ "-I", "99999", "inline past 4096" }, { "-l", "0", "post list 0" },
		{ "-W", "a/b", "-W: an unknown directory" }, { "-W", "a,,b", "-W: an empty entry" },
		{ "-W", "x,x", "-W: a counter twice" }, { "-W", "1,2,3,4,5,6,7,8,9", "-W: nine counters" },
		{ "--clock", "rdtsc", "unknown clock" }, { "--clock", "", "empty clock" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parse(&bw, &o, bad[i][0], bad[i][1], NULL), -EINVAL, bad[i][2]);
	is_int(parse(&bw, &o, "--nonsense", NULL), -EINVAL, "unknown long option");
	is_int(parse(&bw, &o, "-s", NULL), -EINVAL, "missing value");
	is_int(parse(&bw, &o, "a", "b", NULL), -EINVAL, "two hosts");
}

static void test_conflicts(void)
{
	struct rb_options o;

	is_int(parse(&bw, &o, "-a", "-D", "5", NULL), -EINVAL, "-a with -D");
	is_int(parse(&bw, &o, "-a", "-s", "64", NULL), -EINVAL, "-a with -s");
	is_int(parse(&bw, &o, "-s", "64", "--all", NULL), -EINVAL, "-s with --all");
	is_int(parse(&bw, &o, "-a", NULL), 0, "-a alone");
	is_int(parse(&bw, &o, "-n", "10", "-D", "5", NULL), -EINVAL, "-n with -D");
	is_int(parse(&bw, &o, "-D", "2", "--warmup-time", "3", NULL), -EINVAL, "warm-up longer than the run");
	is_int(parse(&bw, &o, "--no-numa", "--numa-node", "0", NULL), -EINVAL, "--no-numa with --numa-node");
	is_int(parse(&bw, &o, "--no-numa", "--cpu", "0", NULL), -EINVAL, "--no-numa with --cpu");
	is_int(parse(&bw, &o, "-t", "4", "-l", "8", NULL), -EINVAL, "post list past tx depth");
	is_int(parse(&bw, &o, "-c", "UD", "-s", "8192", NULL), -EINVAL, "UD larger than any MTU");
	is_int(parse(&bw, &o, "-c", "UD", "-R", NULL), -EINVAL, "UD with rdma_cm");
	is_int(parse(&bw, &o, "--csv", "--json", NULL), -EINVAL, "two output formats");
	is_int(parse(&lat, &o, "-c", "UD", NULL), -EINVAL, "read with UD");
	is_int(parse(&lat, &o, "-c", "UC", NULL), -EINVAL, "read with UC");
	is_int(parse(&lat, &o, "-q", "2", NULL), -EINVAL, "-q on a latency test");
	is_int(parse(&lat, &o, "-b", NULL), -EINVAL, "-b on a latency test");
	is_int(parse(&bw, &o, "-o", "4", NULL), -EINVAL, "-o on a send test");
	is_int(parse(&bw, &o, "-A", "FETCH_AND_ADD", NULL), -EINVAL, "-A on a send test");
}

static void test_help(void)
{
	struct rb_options o;
	FILE *saved = stdout;
	char buf[16384] = "";	/* --help and -V (the help is near 8 KiB) */
	FILE *mem = fmemopen(buf, sizeof(buf) - 1, "w");

	int help, version;

	stdout = mem;
	help = parse(&bw, &o, "--help", NULL);
	version = parse(&bw, &o, "-V", NULL);
	fclose(mem);
	stdout = saved;
	is_int(help, 1, "--help returns 1 (exit 0)");
	is_int(version, 1, "-V returns 1 (exit 0)");
	ok(strstr(buf, "Usage: rb_test_bw") != NULL, "help names the program");
	ok(strstr(buf, "--qp=N") != NULL, "help lists a supported option");
	ok(strstr(buf, "--outs") == NULL, "help omits an unsupported option");
	ok(strstr(buf, "rb_test_bw (rdmabench)") != NULL, "version line");
}

/* --source-ip and perftest's spellings: a numeric address, -R client only;
 * -S remembered as given (with -R it overrides rdma_cm's SL). */
static void test_source_ip(void)
{
	struct rb_options o;

	is_int(parse(&bw, &o, "-R", "--source-ip=192.0.2.5", "h", NULL), 0, "--source-ip=IPv4 with -R parses");
	is_str(o.source_ip, "192.0.2.5", "--source-ip kept");
	is_int(parse(&bw, &o, "-R", "--source_ip", "fe80::1", "h", NULL), 0, "--source_ip IPv6 (perftest's spelling)");
	is_str(o.source_ip, "fe80::1", "--source_ip kept");
	is_int(parse(&bw, &o, "-R", "--bind_source_ip=10.0.0.1", "h", NULL), 0, "--bind_source_ip (perftest's spelling)");
	is_str(o.source_ip, "10.0.0.1", "--bind_source_ip kept");
	is_int(parse(&bw, &o, "-R", "--source-ip=1.2.3", "h", NULL), -EINVAL, "--source-ip=1.2.3 is a usage error");
	is_int(parse(&bw, &o, "-R", "--source-ip=host.example", "h", NULL), -EINVAL, "--source-ip takes no host name");
	is_int(parse(&bw, &o, "-R", "--source-ip=", "h", NULL), -EINVAL, "--source-ip= (empty) is a usage error");
	is_int(parse(&bw, &o, "--source-ip=192.0.2.5", "h", NULL), -EINVAL, "--source-ip without -R is a usage error");
	is_int(parse(&bw, &o, "-R", "--source-ip=192.0.2.5", NULL), -EINVAL, "--source-ip on the server is a usage error");
	is_int(parse(&bw, &o, NULL), 0, "defaults");
	ok(o.source_ip == NULL && !o.sl_given, "no source address, -S not given by default");
	is_int(parse(&bw, &o, "-S", "0", NULL), 0, "-S 0 parses");
	ok(o.sl_given && o.sl == 0, "-S 0 is remembered as given");
}

/* Every option with every bench feature: both spellings of each long name
 * parse to the same options; "-v" is --verbose. */
static const struct rb_bench full = {
	.name = "rb_test_full", .title = "t", .summary = "t", .verb = VERB_SEND,
	.metric = METRIC_LAT, .transports = TR_RC | TR_UC | TR_UD, .features = ~0u,
	.defaults = { .size = 64, .iters = 100, .tx_depth = 128, .rx_depth = 128 },
};

/* --payload_file_path's value: a file of this process's own (main). */
static char test_payload[64];

static const char *const spell_values[][2] = {
	{ "ib-dev", "rxe0" }, { "connection", "UC" }, { "mtu", "1024" },
	{ "atomic-type", "CMP_AND_SWAP" }, { "clock", "tsc" }, { "percentiles", "50,99" },
	{ "report-counters", "port_xmit_data" }, { "source-ip", "192.0.2.1" },
	{ "bind-source-ip", "192.0.2.1" }, { "bind", "192.0.2.1" }, { "cpu", "0" },
	{ "csv", "x.csv" }, { "json", "x.json" }, { "histogram", "h.csv" }, { "raw", "r.csv" },
	{ "size", "4096" }, { "timeout", "2" }, { "duration", "2" }, { "numa-node", "0" },
	{ "min-bw", "1Gb/s" }, { "load", "write_bw" }, { "output", "latency" }, { "MGID", "239.1.2.3" },
	{ "rate-units", "Mbps" }, { "rate-limit-type", "SW" },
	{ "payload-file-path", test_payload }, { "gpu-touch", "once" },
};

static const char *spell_value(const char *name)
{
	for (size_t i = 0; i < sizeof(spell_values) / sizeof(spell_values[0]); i++)
		if (!strcmp(spell_values[i][0], name))
			return spell_values[i][1];
	return "3";
}

/* Parse "--SPELT[=NAME's value] -R -c UC h"; rc and the options, cmdline
 * cleared.  One buffer for the word: a FILE argument points into it. */
static int parse_spelt(const char *name, const char *spelt, int has_arg, struct rb_options *o)
{
	static char word[96];
	int rc;

	snprintf(word, sizeof(word), "--%s%s%s", spelt, has_arg ? "=" : "",
		 has_arg ? spell_value(name) : "");
	if (!strcmp(name, "loopback"))	/* both sides here: no host */
		rc = parse(&full, o, word, NULL);
	else if (!strcmp(name, "connection"))
		rc = parse(&full, o, word, "-R", "h", NULL);
	else if (!strcmp(name, "min-bw"))	/* bandwidth tests, with --interval */
		rc = parse(&bw, o, word, "--interval=1", "h", NULL);
	else if (!strncmp(name, "load-", 5))	/* only with --load */
		rc = parse(&full, o, word, "--load=write_bw", "-R", "-c", "UC", "h", NULL);
	else if (!strcmp(name, "use-cuda-dmabuf"))	/* only with --use-cuda */
		rc = parse(&full, o, word, "--use-cuda=1", "-R", "-c", "UC", "h", NULL);
	else if (!strcmp(name, "gpu-touch"))	/* only on GPU memory paged on demand */
		rc = parse(&full, o, word, "--use-cuda=1", "--odp", "-R", "-c", "UC", "h", NULL);
	else if (!strcmp(name, "use-rocm-dmabuf"))	/* only with --use-rocm */
		rc = parse(&full, o, word, "--use-rocm=1", "-R", "-c", "UC", "h", NULL);
	else if (!strcmp(name, "mcg") || !strcmp(name, "MGID"))	/* multicast: UD, -M with -g */
		rc = parse(&full, o, word, "-g", "-c", "UD", "h", NULL);
	else if (!strcmp(name, "reversed"))	/* with -R: a usage error */
		rc = parse(&full, o, word, "-c", "UC", "h", NULL);
	else if (!strcmp(name, "retry-count"))	/* RC's: -c UC is a usage error */
		rc = parse(&full, o, word, "-R", "h", NULL);
	else if (!strcmp(name, "rate-units") || !strcmp(name, "rate-limit-type") ||
		 !strcmp(name, "burst-size"))	/* only with --rate_limit */
		rc = parse(&full, o, word, "--rate_limit=1", "-R", "-c", "UC", "h", NULL);
	else if (!strcmp(name, "threads"))	/* -j with -R: a usage error */
		rc = parse(&full, o, word, "-c", "UC", "h", NULL);
	else
		rc = parse(&full, o, word, "-R", "-c", "UC", "h", NULL);
	memset(o->cmdline, 0, sizeof(o->cmdline));
	return rc;
}

/* Same options: byte for byte, but the -W list by its names (the bytes
 * after each name's NUL are not the parser's to set). */
static bool same_options(struct rb_options *a, struct rb_options *b)
{
	if (a->counters.n != b->counters.n)
		return false;
	for (int i = 0; i < a->counters.n; i++)
		if (strcmp(a->counters.c[i].key, b->counters.c[i].key))
			return false;
	memset(&a->counters, 0, sizeof(a->counters));
	memset(&b->counters, 0, sizeof(b->counters));
	return !memcmp(a, b, sizeof(*a));
}

static void test_spellings(void)
{
	struct rb_options a, b;
	const char *name;
	int code, has_arg, n = 0;
	bool all;

	for (size_t i = 0; (name = options_long_name(i, &code, &has_arg, &all)); i++) {
		char alt[64];
		int ra, rb;

		if (!strcmp(name, "help") || !strcmp(name, "version"))
			continue;
		snprintf(alt, sizeof(alt), "%s", name);
		for (char *p = alt; *p; p++)
			*p = *p == '-' ? '_' : *p;
		ra = parse_spelt(name, name, has_arg, &a);
		rb = parse_spelt(name, alt, has_arg, &b);
		if (ra || rb || !same_options(&a, &b)) {
			is_int(ra, 0, name);
			is_int(rb, 0, alt);
			ok(false, "--%s and --%s give the same options", name, alt);
		}
		n++;
	}
	ok(n >= 45, "every option of the table parsed in both spellings (%d)", n);
	is_int(parse(&bw, &a, "--report_gbits", "--post_list", "2", "--ib_dev", "x", NULL), 0,
	       "perftest's --report_gbits --post_list --ib_dev");
	ok(a.report_gbits && a.post_list == 2 && !strcmp(a.ib_dev, "x"), "... take effect");
	is_int(parse(&bw, &a, "--report-gbits", "--post-list", "2", "--ib-dev", "x", NULL), 0,
	       "--report-gbits --post-list --ib-dev");
	ok(a.report_gbits && a.post_list == 2 && !strcmp(a.ib_dev, "x"), "... take effect");
	is_int(parse(&bw, &a, "-v", NULL), 0, "-v");
	ok(a.verbose, "-v is --verbose");
	is_int(parse(&bw, &a, "--verb", NULL), 0, "an unambiguous prefix still works");
	is_int(parse(&lat, &a, "-r", "4", NULL), -EINVAL, "-r (receive depth) is refused by a read test");
	is_int(parse(&lat, &a, "--report-gbits", NULL), 0, "--report-gbits is accepted by a latency test (perftest's scripts pass it)");
	ok(!a.report_gbits, "... with no effect");
	is_int(parse(&lat, &a, "-b", NULL), -EINVAL, "-b (a row that is not lax) is refused by a latency test");
}

static void test_load(void)
{
	struct rb_options o;

	is_int(parse(&lat, &o, "--load=rb_read_bw", "h", NULL), 0, "--load=rb_read_bw on a latency test");
	ok(o.load_bench == LOAD_READ_BW && o.load.size == LOAD_DEFAULT_SIZE && o.load.qps == 1 &&
	   !o.load.compare, "... read_bw, 64 KiB, 1 QP, no comparison by default");
	is_int(parse(&lat, &o, "--load=send_bw", "--load-size=1M", "--load-qps=4", "--load-compare", "h",
		     NULL), 0, "--load=send_bw --load-size=1M --load-qps=4 --load-compare");
	ok(o.load_bench == LOAD_SEND_BW && o.load.size == 1u << 20 && o.load.qps == 4 && o.load.compare,
	   "... each taken");
	is_int(parse(&lat, &o, "h", NULL), 0, "no --load");
	ok(o.load_bench == LOAD_NONE, "... no load");
	is_int(parse(&bw, &o, "--load=write_bw", "h", NULL), -EINVAL, "--load on a bandwidth test");
	is_int(parse(&lat, &o, "--load=write_lat", "h", NULL), -EINVAL, "--load=write_lat (not a load)");
	is_int(parse(&lat, &o, "--load=write_bw", "--load-size=9M", "h", NULL), -EINVAL, "--load-size=9M");
	is_int(parse(&lat, &o, "--load-qps=2", "h", NULL), -EINVAL, "--load-qps without --load");
}

static void test_intervals(void)
{
	struct rb_options o;

	is_int(parse(&bw, &o, "--interval=0.1", "-D", "2", NULL), 0, "--interval=0.1 with -D 2");
	ok(o.interval_s == 0.1 && !o.run_infinitely && o.min_bw_bps == 0, "--interval=0.1 kept, nothing else");
	is_int(parse(&bw, &o, "--interval=0", NULL), -EINVAL, "--interval=0");
	is_int(parse(&bw, &o, "--interval=-1", NULL), -EINVAL, "--interval=-1");
	is_int(parse(&bw, &o, "--interval=abc", NULL), -EINVAL, "--interval=abc");
	is_int(parse(&bw, &o, "--interval=", NULL), -EINVAL, "--interval= (empty)");
	is_int(parse(&bw, &o, "-D", "5", "--interval=4.5", NULL), -EINVAL, "--interval longer than -D less the warm-up");
	is_int(parse(&bw, &o, "-D", "5", "--interval=4", NULL), 0, "--interval as long as the window");
	is_int(parse(&bw, &o, "--run_infinitely", NULL), 0, "--run_infinitely");
	ok(o.run_infinitely && o.warmup_s == 1, "--run_infinitely: warm-up 1 s by default");
	is_int(parse(&bw, &o, "--run-infinitely", "--interval", "1", NULL), 0, "--run-infinitely (hyphens)");
	is_int(parse(&bw, &o, "--run_infinitely", "-D", "5", NULL), -EINVAL, "--run_infinitely with -D");
	is_int(parse(&bw, &o, "--run_infinitely", "-n", "5", NULL), -EINVAL, "--run_infinitely with -n");
	is_int(parse(&bw, &o, "--run_infinitely", "-a", NULL), -EINVAL, "--run_infinitely with -a");
	is_int(parse(&bw, &o, "--interval=1", "--min-bw=10Gb/s", NULL), 0, "--min-bw=10Gb/s");
	ok(o.min_bw_bps == 1.25e9, "10Gb/s is 1.25e9 bytes/s (got %g)", o.min_bw_bps);
	is_int(parse(&bw, &o, "--interval=1", "--min-bw=900MiB/s", NULL), 0, "--min-bw=900MiB/s");
	ok(o.min_bw_bps == 900.0 * 1048576, "900MiB/s in bytes/s (got %g)", o.min_bw_bps);
	is_int(parse(&bw, &o, "--min-bw=10Gb/s", NULL), -EINVAL, "--min-bw without --interval");
	is_int(parse(&bw, &o, "--interval=1", "--min-bw=10", NULL), -EINVAL, "--min-bw without a unit");
	is_int(parse(&bw, &o, "--interval=1", "--min-bw=10Gbit", NULL), -EINVAL, "--min-bw with an unknown unit");
	is_int(parse(&bw, &o, "--interval=1", "--min-bw=-1Gb/s", NULL), -EINVAL, "--min-bw negative");
	is_int(parse(&bw, &o, "--interval=1", "--min-bw=0Gb/s", NULL), -EINVAL, "--min-bw 0");
	is_int(parse(&lat, &o, "--interval=1", "--min-bw=1Gb/s", NULL), -EINVAL, "--min-bw on a latency test");
	is_int(parse(&lat, &o, "--interval=0.5", NULL), 0, "--interval on a latency test");
}

/* --poll-pause, and RB_POLL_PAUSE (0 or 1) as its default. */
static void test_poll_pause(void)
{
	struct rb_options o, ld;

	unsetenv("RB_POLL_PAUSE");
	is_int(parse(&bw, &o, NULL), 0, "no --poll-pause");
	ok(!o.poll_pause, "... no pause by default (perftest's loops have none)");
	is_int(parse(&lat, &o, "--poll-pause", NULL), 0, "--poll-pause");
	ok(o.poll_pause, "... taken");
	is_int(parse(&bw, &o, "--poll_pause", NULL), 0, "--poll_pause (perftest's spelling)");
	ok(o.poll_pause, "... taken");
	setenv("RB_POLL_PAUSE", "1", 1);
	is_int(parse(&bw, &o, NULL), 0, "RB_POLL_PAUSE=1");
	ok(o.poll_pause, "... pauses");
	memset(&ld, 0, sizeof(ld));
	options_inherit(&ld, &o);
	ok(ld.poll_pause, "a --load inherits it");
	setenv("RB_POLL_PAUSE", "0", 1);
	is_int(parse(&bw, &o, NULL), 0, "RB_POLL_PAUSE=0");
	ok(!o.poll_pause, "... no pause");
	setenv("RB_POLL_PAUSE", "", 1);
	is_int(parse(&bw, &o, NULL), 0, "RB_POLL_PAUSE empty");
	ok(!o.poll_pause, "... no pause");
	setenv("RB_POLL_PAUSE", "yes", 1);
	is_int(parse(&bw, &o, NULL), -EINVAL, "RB_POLL_PAUSE=yes is refused (0 or 1)");
	unsetenv("RB_POLL_PAUSE");
}

int main(void)
{
	FILE *f;
	int rc;

	log_set_prog("test_options");
	fclose(stderr);
	unsetenv("RB_POLL_PAUSE");
	snprintf(test_payload, sizeof(test_payload), "/tmp/rb-test-options-%d.payload", (int)getpid());
	f = fopen(test_payload, "w");
	if (f) {
		fputs("0x01020304\n", f);
		fclose(f);
	}
	test_defaults();
	test_good_values();
	test_bad_values();
	test_conflicts();
	test_help();
	test_source_ip();
	test_spellings();
	test_intervals();
	test_load();
	test_poll_pause();
	rc = tap_done();
	unlink(test_payload);
	return rc;
}
