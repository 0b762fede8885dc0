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

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog/doctor/doctor.h"
#include "lib/log.h"
#include "lib/oob.h"
#include "driver/run.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const char usage_text[] =
	"usage: rb_doctor [options] [HOST]    check this host (and against HOST's rb_doctor --server)\n"
	"       rb_doctor --server [options]  answer rb_doctor HOST from other hosts\n"
	"  -d, --ib-dev=DEV       the device (default: the first)\n"
	"  -i, --ib-port=PORT     the port, 1..255 (default 1)\n"
	"  -x, --gid-index=INDEX  the GID index, 0..1023 (default: as the benchmarks choose)\n"
	"  -p, --port=PORT        TCP port of the exchange, 1..65534 (default 18515; the probe uses PORT+1)\n"
	"      --timeout=SECONDS  deadline of each step, 1..600 (default 10)\n"
	"      --server           serve rb_doctor HOST until SIGINT or SIGTERM\n"
	"      --bind=ADDR        server: listen on ADDR only\n"
	"      --no-probe         with HOST: compare only, run no probe\n"
	"      --hugepages        check that huge pages are reserved\n"
	"  -j, --json             one JSON document instead of text\n"
	"  -V, --version          print the version\n"
	"  -h, --help             this help\n";

enum { OPT_TIMEOUT = 256, OPT_SERVER, OPT_BIND, OPT_NO_PROBE, OPT_HUGE };

static int usage_error(const char *what, const char *opt)
{
	log_err("%s: %s (see rb_doctor --help)", what, opt);
	return 2;
}

/* A whole number in [lo, hi], or a usage error naming the option. */
static int parse_num(const char *opt, const char *s, long lo, long hi, long *v)
{
	char *end;

	*v = strtol(s, &end, 10);
	if (!*s || *end || *v < lo || *v > hi) {
		log_err("%s must be a whole number in %ld..%ld, not '%s'", opt, lo, hi, s);
		return 2;
	}
	return 0;
}

static int parse_one(int c, const char *arg, struct dr_opts *o)
{
	long v = 0;
	int e = 0;

	switch (c) {
	case 'd': o->dev = arg; break;
	case 'i': e = parse_num("-i/--ib-port", arg, 1, 255, &v); o->port = (int)v; break;
	case 'x': e = parse_num("-x/--gid-index", arg, 0, 1023, &v); o->gid_index = (int)v; break;
	case 'p': e = parse_num("-p/--port", arg, 1, 65534, &v); o->tcp_port = (uint16_t)v; break;
	case OPT_TIMEOUT: e = parse_num("--timeout", arg, 1, 600, &v); o->timeout_s = (double)v; break;
	case OPT_SERVER: o->server = true; break;
	case OPT_BIND: o->bind = arg; break;
	case OPT_NO_PROBE: o->no_probe = true; break;
	case OPT_HUGE: o->hugepages = true; break;
	case 'j': o->json = true; break;
	default: return 2;
	}
	return e;
}

/* 0: go on; otherwise the exit status + 1. */
static int parse_args(int argc, char **argv, struct dr_opts *o)
{
	static const struct option longopts[] = {
		{ "ib-dev", required_argument, NULL, 'd' }, { "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'x' }, { "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT }, { "server", no_argument, NULL, OPT_SERVER },
		{ "bind", required_argument, NULL, OPT_BIND }, { "no-probe", no_argument, NULL, OPT_NO_PROBE },
		{ "hugepages", no_argument, NULL, OPT_HUGE }, { "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, e;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:i:x:p:jVh", longopts, NULL)) != -1) {
		if (c == 'V' || c == 'h') {
			if (c == 'V')
				printf("rb_doctor (rdmabench) %s (commit %s)\n", PACKAGE_VERSION, rb_commit());
			else
				printf("%s", usage_text);
			return 1;
		}
		if (c == ':')
			return 1 + usage_error("option needs a value", argv[optind - 1]);
		if (c == '?')
			return 1 + usage_error("unknown option", argv[optind - 1]);
		if ((e = parse_one(c, optarg, o)) != 0)
			return 1 + e;
	}
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc)
		return 1 + usage_error("unexpected argument", argv[optind]);
	if (o->host && o->server)
		return 1 + usage_error("--server takes no HOST", o->host);
	if (o->bind && !o->server)
		return 1 + usage_error("--bind is for --server", o->bind);
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
