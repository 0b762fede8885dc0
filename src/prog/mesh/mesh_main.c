/*
 * rb_mesh: argv[1] picks the mode.  watch: the agent (mesh_agent.c) with
 * its options as rows of the suite's parser (cli/optrow.h); check: rb_mpi
 * --check (mesh_check.c).
 *
 * Exit status: 0 done (--duration or a signal), 1 a runtime failure
 * (said on stderr), 2 a usage error.
 */
#ifdef HAVE_CONFIG_H
#include "lib/commit.h"
#include "config.h"
#endif

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/optrow.h"
#include "lib/log.h"
#include "prog/mesh/mesh_agent.h"
#include "prog/mesh/mesh_check.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

struct mesh_cli {
	struct mesh_watch_opts w;
	const char *host;
};

#define F(field) OPT_FIELD(struct mesh_cli, field)

enum { O_PINGLIST = 256, O_HOST, O_PORT, O_WINDOW, O_RATE_SW, O_RATE_X, O_CROSS, O_MAXP,
       O_TIMEOUT, O_INTRA, O_MAXLOSS, O_MAXP99, O_LISTEN, O_TEXTFILE, O_JSONL, O_DURATION };

static const struct opt_row rows[] = {
	{ "pinglist", O_PINGLIST, OT_STR, "FILE", F(w.pinglist),
	  .help = "the hosts' NICs: 'HOST NIC RAIL ADDR[:PORT] [SWITCH]' lines (required)" },
	{ "host", O_HOST, OT_STR, "NAME", F(host), .help = "this host's name in the pinglist (default: hostname)" },
	{ "port", O_PORT, OT_U16, "PORT", F(w.port), .min = 1, .max = 65535,
	  .help = "this agent's rdma_cm port, and the peers' where ADDR has none (default 18520)" },
	{ "window", O_WINDOW, OT_SECONDS, "SECONDS", F(w.window_s), .min = 0.1, .max = 86400,
	  .help = "a window's length: loss and RTT percentiles per window (default 30)" },
	{ "rate-switch", O_RATE_SW, OT_NUMBER, "PER_S", F(w.pl.rate_switch), .min = 0.01, .max = 10000,
	  .help = "probes/s to each peer on the same switch (default 10)" },
	{ "rate-cross", O_RATE_X, OT_NUMBER, "PER_S", F(w.pl.rate_cross), .min = 0.01, .max = 10000,
	  .help = "probes/s to each sampled peer across switches (default 1)" },
	{ "cross-peers", O_CROSS, OT_INT, "N", F(w.pl.cross_peers), .min = 0, .max = 4096,
	  .help = "cross-switch peers probed per window and NIC (default 16)" },
	{ "max-peers", O_MAXP, OT_INT, "N", F(w.pl.max_peers), .min = 1, .max = 65536,
	  .help = "peers kept per local NIC; the rest are said and dropped (default 256)" },
	{ "timeout", O_TIMEOUT, OT_NUMBER, "MS", F(w.timeout_ms), .min = 1, .max = 60000,
	  .help = "a probe unanswered this long is lost (default 500)" },
	{ "intra", O_INTRA, OT_FLAG, NULL, F(w.pl.intra), .help = "also probe this host's other NICs" },
	{ "max-loss", O_MAXLOSS, OT_NUMBER, "FRACTION", F(w.thr.max_loss), .min = 0, .max = 1,
	  .help = "a link is bad over this loss in a window (default 0.02)" },
	{ "max-p99", O_MAXP99, OT_NUMBER, "US", F(w.thr.max_p99_us), .min = 0, .max = 1e9,
	  .help = "a link is bad over this p99 RTT in a window, us (default 500)" },
	{ "listen", O_LISTEN, OT_STR, "[ADDR]:PORT", F(w.listen), .help = "serve /metrics (Prometheus, OpenMetrics)" },
	{ "textfile", O_TEXTFILE, OT_STR, "FILE", F(w.textfile),
	  .help = "node_exporter's textfile form, rewritten each window" },
	{ "jsonl", O_JSONL, OT_STR, "FILE", F(w.jsonl),
	  .help = "a JSON line per record and alert ('-': stdout; the default with no other output)" },
	{ "duration", O_DURATION, OT_SECONDS, "SECONDS", F(w.duration_s), .min = 0, .max = 1e9,
	  .help = "stop after this long (default 0: at SIGINT or SIGTERM)" },
	{ "help", 'h', OT_HELP, NULL, 0, .help = "print this help and exit" },
	{ "version", 'V', OT_VERSION, NULL, 0, .help = "print the version and exit" },
};

static int usage_error(const char *opt, const char *word, const char *hint)
{
	if (word && *word)
		log_err("%s '%s': %s", opt, word, hint);
	else
		log_err("%s: %s", opt, hint);
	log_info("try 'rb_mesh --help'");
	return -2;
}

static int parse_error(const char *who, enum opt_err kind, const struct opt_row *r, const char *word,
		       int err, const char *expect)
{
	char opt[48], hint[128];

	(void)who, (void)err;
	if (kind == OE_UNKNOWN || !r)
		return usage_error("unknown option", word, "see the options of 'rb_mesh --help'");
	snprintf(opt, sizeof(opt), "--%s", r->name);
	if (kind == OE_MISSING)
		return usage_error(opt, "", "needs a value");
	snprintf(hint, sizeof(hint), "is not %s", expect ? expect : "a valid value");
	return usage_error(opt, word, hint);
}

static const struct opt_prog prog = {
	.name = "rb_mesh", .rows = rows, .n = sizeof(rows) / sizeof(rows[0]),
	.both_spellings = true, .missing_apart = true, .error = parse_error, .help_head = 26,
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: rb_mesh watch --pinglist FILE [options]\n\n"
		   "Watch every rail: probe each peer NIC of the pinglist over UD from each local NIC,\n"
		   "judge loss and RTT percentiles per window, export them and say where a fault is.\n\n"
		   "Options:\n");
	opt_help_rows(f, &prog);
	fprintf(f, "\nExit status: 0 stopped (--duration or a signal), 1 a runtime failure, 2 a usage error.\n"
		   "\n");
	mesh_check_usage(f);
}

static void defaults(struct mesh_cli *c)
{
	static char host[MESH_NAME_LEN];

	*c = (struct mesh_cli){ .w = { .port = 18520, .window_s = 30, .timeout_ms = 500,
				       .pl = { .rate_switch = 10, .rate_cross = 1, .cross_peers = 16,
					       .max_peers = 256 },
				       .thr = { .max_loss = 0.02, .max_p99_us = 500 },
				       .at = { .min_agents = 2, .min_peers = 2, .min_links = 2 } } };
	if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "localhost");
	c->host = host;
}

/* 0: run; otherwise the exit status + 1. */
static int parse(int argc, char **argv, struct mesh_cli *c)
{
	int first, rc = opt_parse(&prog, "rb_mesh", argc, argv, 0, c, &first);

	if (rc == OPT_VERSION)
		printf("rb_mesh (rdmabench) %s (commit %s)\n", PACKAGE_VERSION, rb_commit());
	else if (rc == OPT_HELP)
		usage(stdout);
	if (rc)
		return rc > 0 ? 1 : 1 + 2;
	if (first < argc)
		return 1 - usage_error("unexpected argument", argv[first], "rb_mesh watch takes options only");
	if (!c->w.pinglist)
		return 1 - usage_error("--pinglist", "", "is required: the file of the hosts' NICs");
	if (c->w.timeout_ms / 1e3 >= c->w.window_s)
		return 1 - usage_error("--timeout", "", "must be shorter than --window");
	c->w.pl.host = c->host;
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int watch(int argc, char **argv)
{
	struct mesh_cli c;
	struct sigaction sa = { .sa_handler = on_signal };
	int r;

	defaults(&c);
	r = parse(argc, argv, &c);
	if (r)
		return r - 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return mesh_watch(&c.w, &stop);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	log_set_prog("rb_mesh");
	if (!strcmp(mode, "watch"))
		return watch(argc - 1, argv + 1);
	if (!strcmp(mode, "--help") || !strcmp(mode, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(mode, "--version") || !strcmp(mode, "-V")) {
		printf("rb_mesh (rdmabench) %s (commit %s)\n", PACKAGE_VERSION, rb_commit());
		return 0;
	}
	if (!strcmp(mode, "check"))
		return mesh_check(argc - 1, argv + 1);
	log_err("'%s': not a mode; rb_mesh watch --pinglist FILE or rb_mesh check (see rb_mesh --help)", mode);
	return 2;
}
