/*
 * rb_doctor: diagnose before you measure.
 *
 *   rb_doctor [-d DEV] [-i PORT] [-x GID] [--json] [--hugepages] [HOST]
 *   rb_doctor --server [-d DEV] [-i PORT] [-x GID] [--bind ADDR]
 *
 * Exit status: 0 every check passed (warnings allowed), 1 a check failed
 * (or the server could not serve), 2 usage error.
 */
#ifdef HAVE_CONFIG_H
#include "lib/commit.h"
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/optrow.h"
#include "prog/doctor/doctor.h"
#include "lib/log.h"
#include "lib/oob.h"
#include "driver/run.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define F(field) OPT_FIELD(struct dr_opts, field)

enum { OPT_TIMEOUT = 256, OPT_SERVER, OPT_BIND, OPT_NO_PROBE, OPT_HUGE };

static int parse_timeout(const struct opt_row *r, const char *val, void *dst);

/* The options, as rows of the benchmarks' parser (cli/optrow.h). */
static const struct opt_row rows[] = {
	{ "ib-dev", 'd', OT_STR, "DEV", F(dev), .help = "the device (default: the first)" },
	{ "ib-port", 'i', OT_INT, "PORT", F(port), .min = 1, .max = 255, .help = "the port, 1..255 (default 1)" },
	{ "gid-index", 'x', OT_INT, "INDEX", F(gid_index), .min = 0, .max = 1023, .help = "the GID index, 0..1023 (default: as the benchmarks choose)" },
	{ "port", 'p', OT_U16, "PORT", F(tcp_port), .min = 1, .max = 65534, .help = "TCP port of the exchange, 1..65534 (default 18515; the probe uses PORT+1)" },
	{ "timeout", OPT_TIMEOUT, OT_SECONDS, "SECONDS", F(timeout_s), .min = 1, .max = 600, .parse = parse_timeout, .help = "deadline of each step, 1..600 (default 10)" },
	{ "server", OPT_SERVER, OT_FLAG, NULL, F(server), .help = "serve rb_doctor HOST until SIGINT or SIGTERM" },
	{ "bind", OPT_BIND, OT_STR, "ADDR", F(bind), .help = "server: listen on ADDR only" },
	{ "no-probe", OPT_NO_PROBE, OT_FLAG, NULL, F(no_probe), .help = "with HOST: compare only, run no probe" },
	{ "hugepages", OPT_HUGE, OT_FLAG, NULL, F(hugepages), .help = "check that huge pages are reserved" },
	{ "json", 'j', OT_FLAG, NULL, F(json), .help = "one JSON document instead of text" },
	{ "version", 'V', OT_VERSION, NULL, 0, .help = "print the version" },
	{ "help", 'h', OT_HELP, NULL, 0, .help = "this help" },
};

static int usage_error(const char *what, const char *opt)
{
	log_err("%s: %s (see rb_doctor --help)", what, opt);
	return -2;
}

/* A whole number in [lo, hi] (strtol: no suffixes). */
static int whole(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (!*s || *end || n < (long)lo || n > (long)hi)
		return -EINVAL;
	*v = (uint64_t)n;
	return 0;
}

static int parse_error(const char *who, enum opt_err kind, const struct opt_row *r, const char *word,
		       int opt, const char *expect)
{
	char lbl[48];

	(void)who, (void)opt, (void)expect;
	if (kind == OE_MISSING)
		return usage_error("option needs a value", word);
	if (kind != OE_VALUE)
		return usage_error("unknown option", word);
	log_err("%s must be a whole number in %ld..%ld, not '%s'", opt_label(r, lbl, sizeof(lbl)),
		(long)r->min, (long)r->max, word);
	return -2;
}

static const struct opt_prog prog = {
	.name = "rb_doctor", .rows = rows, .n = sizeof(rows) / sizeof(rows[0]),
	.missing_apart = true, .error = parse_error, .whole = whole, .help_head = 22, .help_nowrap = true,
};

/* --timeout: whole seconds. */
static int parse_timeout(const struct opt_row *r, const char *val, void *dst)
{
	uint64_t v;

	if (whole(val, (uint64_t)r->min, (uint64_t)r->max, &v))
		return parse_error("rb_doctor", OE_VALUE, r, val, 0, NULL);
	((struct dr_opts *)dst)->timeout_s = (double)v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rb_doctor [options] [HOST]    check this host (and against HOST's rb_doctor --server)\n"
		   "       rb_doctor --server [options]  answer rb_doctor HOST from other hosts\n");
	opt_help_rows(f, &prog);
}

/* 0: go on; otherwise the exit status + 1. */
static int parse_args(int argc, char **argv, struct dr_opts *o)
{
	int first, rc = opt_parse(&prog, "rb_doctor", argc, argv, 0, o, &first);

	if (rc == OPT_VERSION)
		printf("rb_doctor (rdmabench) %s (commit %s)\n", PACKAGE_VERSION, rb_commit());
	else if (rc == OPT_HELP)
		usage(stdout);
	if (rc)
		return rc > 0 ? 1 : 1 + 2;
	if (first < argc)
		o->host = argv[first++];
	if (first < argc)
		return 1 + -usage_error("unexpected argument", argv[first]);
	if (o->host && o->server)
		return 1 + -usage_error("--server takes no HOST", o->host);
	if (o->bind && !o->server)
		return 1 + -usage_error("--bind is for --server", o->bind);
	return 0;
}

int main(int argc, char **argv)
{
	struct dr_opts o = { .port = 1, .gid_index = -1, .tcp_port = OOB_DEFAULT_PORT,
			     .timeout_s = 10 };
	static struct dr_report r;
	struct dr_facts f;
	char title[256], host[64] = "";
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc - 1;
	log_set_prog("rb_doctor");
	run_init();
	dr_local(&o, &r, &f);
	snprintf(f.version, sizeof(f.version), "%s", PACKAGE_VERSION);
	if (o.server) {
		dr_print(stderr, &r, false, "rb_doctor --server: this host");
		return dr_serve(&o, &f) ? 1 : 0;
	}
	if (o.host)
		dr_client(&o, &f, &r);
	gethostname(host, sizeof(host) - 1);
	snprintf(title, sizeof(title), "rb_doctor (rdmabench) %s (commit %s) on %s: %s port %d%s%s",
		 PACKAGE_VERSION, rb_commit(),
		 host, f.dev[0] ? f.dev : "no device", f.port, o.host ? ", against " : "",
		 o.host ? o.host : "");
	dr_print(stdout, &r, o.json, title);
	return dr_worst(&r) == DR_FAIL ? 1 : 0;
}
