/*
 * The probe: one short run of each transport and verb, the benchmarks'
 * own code with a few messages, each side in a child process with a
 * deadline so that no failure can hang the doctor.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"
#include "lib/child.h"
#include "prog/doctor/doctor.h"
#include "lib/log.h"
#include "bench/registry.h"
#include "cli/options.h"
#include "driver/run.h"

struct step {
	const char *name;
	const char *bench;          /* as bench_find knows it */
	const char *transport;
	bool cm;                    /* -R */
};

static const struct step steps[] = {
	{ "RC send", "send_bw", "RC", false },
	{ "RC write", "write_bw", "RC", false },
	{ "RC read", "read_bw", "RC", false },
	{ "RC atomic", "atomic_bw", "RC", false },
	{ "UC write", "write_bw", "UC", false },
	{ "UD send", "send_bw", "UD", false },
	{ "rdma_cm", "write_bw", "RC", true },
};

#define N_STEPS ((int)(sizeof(steps) / sizeof(steps[0])))

int dr_probe_count(void)
{
	return N_STEPS;
}

const char *dr_probe_name(int i)
{
	return i >= 0 && i < N_STEPS ? steps[i].name : "?";
}

bool dr_probe_uses_cm(int i)
{
	return i >= 0 && i < N_STEPS && steps[i].cm;
}

struct probe_run {
	const struct step *st;
	const struct dr_opts *o;
	const struct dr_facts *f;
	const char *host;           /* NULL: the server side */
};

#define ARGV_MAX 32

/* The benchmark's command line: few messages, small, short deadlines. */
static int probe_argv(const struct probe_run *p, const struct rb_bench *b, char **av,
		      char bufs[][24])
{
	int n = 0;

	av[n++] = (char *)b->name;
	if (!p->st->cm) {
		snprintf(bufs[0], 24, "%d", p->f->port);
		snprintf(bufs[1], 24, "%d", p->f->gid_index);
		av[n++] = "-d", av[n++] = (char *)p->f->dev, av[n++] = "-i", av[n++] = bufs[0];
		av[n++] = "-x", av[n++] = bufs[1];
	} else {
		av[n++] = "-R";
	}
	if (!p->host && p->st->cm && p->f->gid_ip[0])
		av[n++] = "--bind", av[n++] = (char *)p->f->gid_ip;
	snprintf(bufs[2], 24, "%u", p->o->tcp_port + 1u);
	snprintf(bufs[3], 24, "%g", p->o->timeout_s);
	av[n++] = "-c", av[n++] = (char *)p->st->transport, av[n++] = "-p", av[n++] = bufs[2];
	av[n++] = "--timeout", av[n++] = bufs[3], av[n++] = "-n", av[n++] = "16";
	av[n++] = "--csv=/dev/null";
	if (strcmp(p->st->bench, "atomic_bw") != 0)
		av[n++] = "-s", av[n++] = "64";
	if (p->host)
		av[n++] = (char *)p->host;
	av[n] = NULL;
	return n;
}

/* In the child: parse the command line as the benchmark would, run it. */
static int probe_child(void *arg)
{
	const struct probe_run *p = arg;
	const struct rb_bench *b = bench_find(p->st->bench);
	char *av[ARGV_MAX], bufs[4][24];
	struct rb_options o;
	int ac, rc;

	if (!b)
		return RB_EXIT_USAGE;
	ac = probe_argv(p, b, av, bufs);
	log_set_prog(b->name);
	rc = options_parse(ac, av, b, &o);
	if (rc)
		return RB_EXIT_USAGE;
	return run_bench(b, &o);
}

/* The first line of text that says "error:" (else the last line). */
static void first_error(const char *text, char *diag, size_t len)
{
	const char *e = strstr(text, "error: "), *start, *end;

	if (!e) {
		end = text + strlen(text);
		while (end > text && end[-1] == '\n')
			end--;
		for (start = end; start > text && start[-1] != '\n'; start--)
			;
	} else {
		for (start = e; start > text && start[-1] != '\n'; start--)
			;
		end = strchr(e, '\n') ? strchr(e, '\n') : e + strlen(e);
	}
	snprintf(diag, len, "%.*s", (int)(end - start), start);
}

int dr_probe_run(const struct dr_opts *o, const struct dr_facts *f, int i, const char *host,
		 char *diag, size_t len)
{
	struct probe_run p = { .st = &steps[i], .o = o, .f = f, .host = host };
	/* connect retries, the exchanges, the run: each bounded by --timeout */
	int deadline_ms = (int)(o->timeout_s * 3000) + (host ? 2000 : 5000);
	static char text[16384];
	struct child c;
	int rc;

	if (diag && len)
		diag[0] = '\0';
	if (i < 0 || i >= N_STEPS)
		return -EINVAL;
	rc = child_start(&c, probe_child, &p, CHILD_QUIET | CHILD_CAPTURE);
	if (rc)
		return rc;
	rc = child_wait(&c, deadline_ms, text, sizeof(text));
	if (diag && rc)
		first_error(text, diag, len);
	if (diag && rc == -ETIMEDOUT)
		snprintf(diag, len, "no result within %d ms: stopped", deadline_ms);
	return rc > 0 ? -EIO : rc;
}
