/*
 * rb_devices: list the RDMA devices, their ports and GIDs, NUMA nodes and
 * the GID index rdmabench would choose.
 *
 *   rb_devices [--json] [-d DEV] [--version] [--help]
 *
 * Exit status: 0 listed, 1 no device (or no device DEV; with --json the
 * document is still printed, listing none), 2 usage error.  Options have
 * the benchmarks' names, in both spellings (--ib-dev, --ib_dev).
 */
#ifdef HAVE_CONFIG_H
#include "lib/commit.h"
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>

#include "cli/optrow.h"
#include "verbs/devlist.h"
#include "lib/log.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define F(field) OPT_FIELD(struct devlist_opts, field)

enum { OPT_JSON = 256 };

/* The options, as rows of the benchmarks' parser (cli/optrow.h). */
static const struct opt_row rows[] = {
	{ "ib-dev", 'd', OT_STR, "DEV", F(dev), .help = "only the device DEV" },
	{ "device", 'd', OT_STR, "DEV", F(dev), .help = NULL },      /* before 0.2 */
	{ "json", OPT_JSON, OT_FLAG, NULL, F(json), .help = "one JSON document instead of text" },
	{ NULL, 'j', OT_FLAG, NULL, F(json), .help = NULL },          /* -j: --json */
	{ "version", 'V', OT_VERSION, NULL, 0, .help = "print the version and exit" },
	{ "help", 'h', OT_HELP, NULL, 0, .help = "print this help and exit" },
};

static int usage_error(const char *what, const char *opt)
{
	log_err("%s: %s", what, opt);
	log_info("try 'rb_devices --help'");
	return -2;
}

/* "-x" for a short option (argv may hold "-jx"), else the word itself. */
static int parse_error(const char *who, enum opt_err kind, const struct opt_row *r, const char *word,
		       int opt, const char *expect)
{
	static char s[3] = "-?";

	(void)who, (void)r, (void)expect;
	if (kind == OE_MISSING)
		return usage_error("option needs a value", word);
	if (opt && word[1] != '-') {
		s[1] = (char)opt;
		word = s;
	}
	return usage_error("unknown option", word);
}

static const struct opt_prog prog = {
	.name = "rb_devices", .rows = rows, .n = sizeof(rows) / sizeof(rows[0]),
	.both_spellings = true, .missing_apart = true, .error = parse_error,
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: rb_devices [--json] [-d DEV]\n\n"
		   "List the RDMA devices, their ports, GIDs and NUMA nodes.\n\n"
		   "Options:\n");
	opt_help_rows(f, &prog);
	fprintf(f, "\nLong options may be spelt with - or _ (--ib-dev, --ib_dev).\n"
		   "Exit status: 0 listed, 1 no device (or no device DEV; --json still prints\n"
		   "one document, with an empty device list), 2 usage error.\n");
}

/* 0: go on; otherwise the exit status + 1 (so 0 can mean "go on"). */
static int parse_args(int argc, char **argv, struct devlist_opts *o)
{
	int first, rc = opt_parse(&prog, "rb_devices", argc, argv, 0, o, &first);

	if (rc == OPT_VERSION)
		printf("rb_devices (rdmabench) %s (commit %s)\n", PACKAGE_VERSION, rb_commit());
	else if (rc == OPT_HELP)
		usage(stdout);
	if (rc)
		return rc > 0 ? 1 : 1 + 2;
	if (first < argc)
		return 1 + -usage_error("unexpected argument", argv[first]);
	return 0;
}

int main(int argc, char **argv)
{
	struct devlist_opts o = { .version = PACKAGE_VERSION };
	int r;

	log_set_prog("rb_devices");
	r = parse_args(argc, argv, &o);
	if (r)
		return r - 1;
	return devlist_print(stdout, &o) ? 1 : 0;
}
