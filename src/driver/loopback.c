#include "driver/loopback.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/child.h"
#include "verbs/device.h"
#include "lib/gid.h"
#include "lib/log.h"

struct loopback_side {
	const struct rb_bench *b;
	struct rb_options o;
	int (*run)(const struct rb_bench *, const struct rb_options *);
};

static int loopback_server(void *arg)
{
	struct loopback_side *s = arg;
	static char prog[80];

	snprintf(prog, sizeof(prog), "%s (server)", s->b->name);
	log_set_prog(prog);
	return s->run(s->b, &s->o);
}

/* Where the client connects: --bind, else with -R the address of the
 * device's GID (rdma_cm resolves the device from it), else this host. */
static int loopback_host(const struct rb_options *o, char *host, size_t len)
{
	struct rb_device d;
	int err;

	if (o->bind_addr) {
		snprintf(host, len, "%s", o->bind_addr);
		return 0;
	}
	if (!o->rdma_cm) {
		snprintf(host, len, "localhost");
		return 0;
	}
	err = device_open(o->ib_dev, o->ib_port, o->gid_index, &d);
	if (err)
		return err;
	gid_ip(d.gid.raw, host, len);
	device_close(&d);
	if (!host[0]) {
		log_err("--loopback with -R: the GID of %s has no IP address; give --bind ADDR", d.name);
		return -EINVAL;
	}
	return 0;
}

/* The server's end: it should finish soon after a client that succeeded;
 * after a failed client it may wait for nobody, and is stopped. */
static int loopback_reap(struct child *c, const struct rb_options *o, int client_rc)
{
	int ms = client_rc == RB_EXIT_OK ? (int)(o->timeout_s * 1000) + 2000 : 2000;
	int rc = child_wait(c, ms, NULL, 0);

	if (client_rc != RB_EXIT_OK)
		return client_rc;
	if (rc == -ETIMEDOUT)
		log_err("--loopback: the server side did not finish within %d ms after the client; stopped it", ms);
	else if (rc)
		log_err("--loopback: the server side failed (exit status %d); see its messages above", rc);
	return rc ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

int loopback_run(const struct rb_bench *b, const struct rb_options *o,
		 int (*run)(const struct rb_bench *, const struct rb_options *))
{
	struct loopback_side srv = { .b = b, .o = *o, .run = run };
	struct rb_options cli = *o;
	char host[64];
	struct child c;
	int err, rc;

	srv.o.loopback = cli.loopback = false;
	srv.o.server = NULL;
	srv.o.out_file = srv.o.histogram_file = srv.o.raw_file = NULL;
	err = child_start(&c, loopback_server, &srv, CHILD_QUIET);
	if (err) {
		log_err("--loopback: fork failed: %s", strerror(-err));
		return RB_EXIT_RUNTIME;
	}
	err = loopback_host(o, host, sizeof(host));
	cli.server = host;
	rc = err ? (err == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_RUNTIME) : run(b, &cli);
	return loopback_reap(&c, o, rc);
}
