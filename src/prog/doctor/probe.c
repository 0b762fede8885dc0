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
	enum rb_transport transport;
	bool cm;                    /* -R */
};

static const struct step steps[] = {
	{ "RC send", "send_bw", TR_RC, false },
	{ "RC write", "write_bw", TR_RC, false },
	{ "RC read", "read_bw", TR_RC, false },
	{ "RC atomic", "atomic_bw", TR_RC, false },
	{ "UC write", "write_bw", TR_UC, false },
	{ "UD send", "send_bw", TR_UD, false },
	{ "rdma_cm", "write_bw", TR_RC, true },
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

/* The benchmark's options: few messages, small, short deadlines.  0, or
 * -EINVAL where the benchmark would refuse them. */
static int probe_options(const struct probe_run *p, const struct rb_bench *b, struct rb_options *o)
{
	options_init_defaults(b, o);
	snprintf(o->cmdline, sizeof(o->cmdline), "rb_doctor (probe: %s)", p->st->name);
	if (!p->st->cm) {
		if (p->f->port < 1 || p->f->port > 255 || p->f->gid_index < 0 || p->f->gid_index > 1023)
			return -EINVAL;
		o->ib_dev = p->f->dev;
		o->ib_port = p->f->port;
		o->gid_index = p->f->gid_index;
	} else {
		o->rdma_cm = true;
	}
	if (!p->host && p->st->cm && p->f->gid_ip[0])
		o->bind_addr = p->f->gid_ip;
	o->transport = p->st->transport;
	o->port = (uint16_t)(p->o->tcp_port + 1u);
	o->timeout_s = p->o->timeout_s;
	o->iters = 16;
	o->iters_given = true;
	o->format = OUT_CSV;
	o->out_file = "/dev/null";
	if (b->verb != VERB_ATOMIC) {
		o->size = 64;
		o->size_given = true;
	}
	o->server = p->host;
	if (options_env(o))
		return -EINVAL;
	return options_finish(b, o);
}

/* In the child: the options as the benchmark would take them, run it. */
static int probe_child(void *arg)
{
	const struct probe_run *p = arg;
	const struct rb_bench *b = bench_find(p->st->bench);
	struct rb_options o;

	if (!b)
		return RB_EXIT_USAGE;
	log_set_prog(b->name);
	if (probe_options(p, b, &o))
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
