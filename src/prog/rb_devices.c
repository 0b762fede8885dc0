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

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "verbs/devlist.h"
#include "lib/log.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const char usage_text[] =
	"Usage: rb_devices [--json] [-d DEV]\n\n"
	"List the RDMA devices, their ports, GIDs and NUMA nodes.\n\n"
	"Options:\n"
	"  -d, --ib-dev=DEV         only the device DEV\n"
	"      --json               one JSON document instead of text\n"
	"  -V, --version            print the version and exit\n"
	"  -h, --help               print this help and exit\n\n"
	"Long options may be spelt with - or _ (--ib-dev, --ib_dev).\n"
	"Exit status: 0 listed, 1 no device (or no device DEV; --json still prints\n"
	"one document, with an empty device list), 2 usage error.\n";

static int usage_error(const char *what, const char *opt)
{
	log_err("%s: %s", what, opt);
	log_info("try 'rb_devices --help'");
	return 2;
}

/* "-x" for a short option (argv may hold "-jx"), else the word itself. */
static const char *bad_option(const char *word)
{
	static char s[3] = "-?";

	if (optopt && word[1] != '-') {
		s[1] = (char)optopt;
		return s;
	}
	return word;
}

/* 0: go on; otherwise the exit status + 1 (so 0 can mean "go on"). */
static int parse_args(int argc, char **argv, struct devlist_opts *o)
{
	static const struct option longopts[] = {
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "ib_dev", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL, 'd' },     /* before 0.2 */
		{ "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:jVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'V':
			printf("rb_devices (rdmabench) %s (commit %s)\n", PACKAGE_VERSION, rb_commit());
			return 1;
		case 'h':
			printf("%s", usage_text);
			return 1;
		case ':':
			return 1 + usage_error("option needs a value", argv[optind - 1]);
		default:
			return 1 + usage_error("unknown option", bad_option(argv[optind - 1]));
		}
	}
	if (optind < argc)
		return 1 + usage_error("unexpected argument", argv[optind]);
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
