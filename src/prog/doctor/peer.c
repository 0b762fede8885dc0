/*
 * rb_doctor against a server: the facts of both ends exchanged over the
 * out-of-band channel (a WIRE_DOCTOR frame of "key=value" lines), compared,
 * then the probe steps run in one order on both sides, each side reporting
 * its result.  Every wait has the --timeout deadline.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog/doctor/doctor.h"
#include "lib/explain.h"
#include "lib/log.h"
#include "lib/oob.h"
#include "driver/run.h"

#define MSG_MAX 2048

static int put(char *buf, size_t len, size_t *at, const char *key, const char *val)
{
	int n = snprintf(buf + *at, len - *at, "%s=%s\n", key, val);

	if (n < 0 || (size_t)n >= len - *at)
		return -EMSGSIZE;
	*at += (size_t)n;
	return 0;
}

int dr_facts_encode(const struct dr_facts *f, char *buf, size_t len)
{
	char port[16], gidx[16], mtu[16], nmtu[16];
	size_t at = 0;
	int err = 0;

	snprintf(port, sizeof(port), "%d", f->port);
	snprintf(gidx, sizeof(gidx), "%d", f->gid_index);
	snprintf(mtu, sizeof(mtu), "%d", f->active_mtu);
	snprintf(nmtu, sizeof(nmtu), "%d", f->netdev_mtu);
	err |= put(buf, len, &at, "doctor", "1") | put(buf, len, &at, "version", f->version);
	err |= put(buf, len, &at, "dev", f->dev) | put(buf, len, &at, "port", port);
	err |= put(buf, len, &at, "port_active", f->port_active ? "1" : "0");
	err |= put(buf, len, &at, "gid_index", gidx) | put(buf, len, &at, "gid_type", f->gid_type);
	err |= put(buf, len, &at, "gid_ip", f->gid_ip) | put(buf, len, &at, "gid_prefix", f->gid_prefix);
	err |= put(buf, len, &at, "link_layer", f->link_layer) | put(buf, len, &at, "active_mtu", mtu);
	err |= put(buf, len, &at, "netdev", f->netdev) | put(buf, len, &at, "netdev_mtu", nmtu);
	return err ? -EMSGSIZE : (int)at;
}

/* The value of key in "key=value\n" lines, into val; 0 or -ENOENT. */
static int get(const char *buf, const char *key, char *val, size_t len)
{
	size_t k = strlen(key);

	for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, k) == 0 && l[k] == '=') {
			const char *v = l + k + 1, *e = strchr(v, '\n');

			snprintf(val, len, "%.*s", (int)(e ? e - v : (long)strlen(v)), v);
			return 0;
		}
	}
	return -ENOENT;
}

static int get_int(const char *buf, const char *key, int dflt)
{
	char v[24];

	return get(buf, key, v, sizeof(v)) ? dflt : atoi(v);
}

int dr_facts_decode(const char *buf, struct dr_facts *f)
{
	char v[8];

	memset(f, 0, sizeof(*f));
	if (get(buf, "doctor", v, sizeof(v)) || strcmp(v, "1"))
		return -EPROTO;
	get(buf, "version", f->version, sizeof(f->version));
	get(buf, "dev", f->dev, sizeof(f->dev));
	get(buf, "gid_type", f->gid_type, sizeof(f->gid_type));
	get(buf, "gid_ip", f->gid_ip, sizeof(f->gid_ip));
	get(buf, "gid_prefix", f->gid_prefix, sizeof(f->gid_prefix));
	get(buf, "link_layer", f->link_layer, sizeof(f->link_layer));
	get(buf, "netdev", f->netdev, sizeof(f->netdev));
	f->port = get_int(buf, "port", 0);
	f->port_active = get_int(buf, "port_active", 0) == 1;
	f->gid_index = get_int(buf, "gid_index", -1);
	f->active_mtu = get_int(buf, "active_mtu", 0);
	f->netdev_mtu = get_int(buf, "netdev_mtu", 0);
	return 0;
}

static void compare_mtu(const struct dr_facts *m, const struct dr_facts *p, struct dr_report *r)
{
	int path = m->active_mtu < p->active_mtu ? m->active_mtu : p->active_mtu;

	if (m->netdev_mtu != p->netdev_mtu || m->active_mtu != p->active_mtu)
		dr_add(r, "peer MTU", DR_WARN, "set the same netdev MTU on both hosts (ip link set IF "
		       "mtu N) and on the switches between them", "netdev MTU %d here, %d there; "
		       "active MTU %d here, %d there: the benchmarks use %d B", m->netdev_mtu,
		       p->netdev_mtu, m->active_mtu, p->active_mtu, path);
	else
		dr_add(r, "peer MTU", DR_OK, NULL, "netdev %d B, active %d B on both", m->netdev_mtu,
		       m->active_mtu);
}

void dr_compare(const struct dr_facts *m, const struct dr_facts *p, struct dr_report *r)
{
	dr_add(r, "peer version", strcmp(m->version, p->version) ? DR_WARN : DR_OK,
	       "install the same rdmabench on both hosts", "%s here, %s on %s", m->version,
	       p->version, p->dev);
	dr_add(r, "peer port", p->port_active && p->gid_index >= 0 ? DR_OK : DR_FAIL,
	       "run rb_doctor on the peer: its port or GID fails", "%s port %d %s, GID index %d",
	       p->dev, p->port, p->port_active ? "ACTIVE" : "not ACTIVE", p->gid_index);
	dr_add(r, "peer link", strcmp(m->link_layer, p->link_layer) ? DR_FAIL : DR_OK,
	       "InfiniBand and Ethernet ports cannot talk: use ports of one fabric",
	       "%s here, %s there", m->link_layer, p->link_layer);
	dr_add(r, "peer GID type", strcmp(m->gid_type, p->gid_type) ? DR_FAIL : DR_OK,
	       "both sides must use the same RoCE version: -x with a RoCE v2 index on both "
	       "(rb_devices lists them)", "%s (index %d) here, %s (index %d) there", m->gid_type,
	       m->gid_index, p->gid_type, p->gid_index);
	dr_add(r, "peer subnet", strcmp(m->gid_prefix, p->gid_prefix) ? DR_WARN : DR_OK,
	       "different subnets need IP routing between them (RoCE v2 only): check the routes, "
	       "or choose GIDs on one subnet with -x", "%s here, %s there", m->gid_prefix,
	       p->gid_prefix);
	compare_mtu(m, p, r);
}

/* ---- the exchange ------------------------------------------------------- */

static int timeout_ms(const struct dr_opts *o, int times)
{
	return (int)(o->timeout_s * 1000) * times;
}

static int msg_send(int fd, const char *text, int ms)
{
	return oob_send(fd, WIRE_DOCTOR, text, (uint32_t)strlen(text), ms);
}

static int msg_recv(int fd, char *buf, size_t cap, int ms)
{
	uint32_t n = 0;
	int err = oob_expect(fd, WIRE_DOCTOR, buf, (uint32_t)cap - 1, &n, ms);

	buf[err ? 0 : n] = '\0';
	return err;
}

/* Failures without a completion status: what the message says, what to do.
 * The exchange over TCP worked, so a silent RDMA side points at the path. */
static const struct { const char *says, *advice; } silent[] = {
	{ "nothing completed", "RDMA packets get no answer while TCP works: UDP 4791 blocked by a "
	  "firewall (nft list ruleset, iptables -L), a wrong GID or route (the peer checks above); "
	  "a longer --timeout may show the completion status" },
	{ "stopped early", "the other side gave up first: see its line (rb_doctor --server's stderr)" },
	{ "no event within", "rdma_cm got no answer: UDP 4791 blocked by a firewall, the address not "
	  "on the peer's RDMA netdev, or rdma_cm not loaded there" },
};

static const char *silent_advice(const char *diag)
{
	for (size_t i = 0; i < sizeof(silent) / sizeof(silent[0]); i++)
		if (strstr(diag, silent[i].says))
			return silent[i].advice;
	return "run the benchmark by hand with --verbose on both sides";
}

/* A step's result line: ok, or what failed where; a completion status
 * with its causes and check from the table. */
static void probe_report(struct dr_report *r, int i, int here, const char *dh, int there,
			 const char *dt)
{
	const char *diag = here ? dh : dt, *wc = strstr(diag, "IBV_WC_"), *cut;
	const struct explain *e = NULL;
	char name[24], word[40] = "", adv[320];

	snprintf(name, sizeof(name), "probe %s", dr_probe_name(i));
	if (!here && !there) {
		dr_add(r, name, DR_OK, NULL, "ok");
		return;
	}
	if (wc && sscanf(wc, "%39[A-Z_]", word) == 1)
		e = explain_wc_named(word);
	cut = e ? strstr(diag, ": likely ") : NULL;
	snprintf(adv, sizeof(adv), "likely %s; check %s", e ? e->causes : "", e ? e->check : "");
	dr_add(r, name, DR_FAIL, e ? adv : silent_advice(diag),
	       "failed %s: %.*s", here ? "here" : "on the server",
	       cut ? (int)(cut - diag) : (int)strlen(diag), diag[0] ? diag : "no message");
}

/* One step on both sides; -errno when the channel to the server failed. */
static int client_step(const struct dr_opts *o, const struct dr_facts *f,
		       const struct dr_facts *peer, int fd, int i, struct dr_report *r)
{
	char msg[MSG_MAX], dh[512], dt[512];
	const char *host = dr_probe_uses_cm(i) ? peer->gid_ip : o->host;
	int here, err;

	snprintf(msg, sizeof(msg), "step=%d\n", i);
	err = msg_send(fd, msg, timeout_ms(o, 1));
	if (!err)
		err = msg_recv(fd, msg, sizeof(msg), timeout_ms(o, 1));
	if (err || get_int(msg, "ready", -1) != i)
		return err ? err : -EPROTO;
	here = dr_probe_run(o, f, i, host, dh, sizeof(dh));
	err = msg_recv(fd, msg, sizeof(msg), timeout_ms(o, 4) + 10000);
	if (err || get_int(msg, "done", -1) != i)
		return err ? err : -EPROTO;
	if (get(msg, "diag", dt, sizeof(dt)))
		dt[0] = '\0';
	probe_report(r, i, here, dh, get_int(msg, "rc", -1), dt);
	return 0;
}

static int client_facts(const struct dr_opts *o, const struct dr_facts *f, int fd,
			struct dr_facts *peer)
{
	char msg[MSG_MAX];
	int err = dr_facts_encode(f, msg, sizeof(msg));

	if (err < 0)
		return err;
	err = msg_send(fd, msg, timeout_ms(o, 1));
	if (!err)
		err = msg_recv(fd, msg, sizeof(msg), timeout_ms(o, 1));
	return err ? err : dr_facts_decode(msg, peer);
}

int dr_client(const struct dr_opts *o, const struct dr_facts *f, struct dr_report *r)
{
	struct dr_facts peer;
	int fd = oob_connect(o->host, o->tcp_port, timeout_ms(o, 1)), err;

	if (fd < 0) {
		dr_add(r, "peer", DR_FAIL, "start rb_doctor --server there; a firewall must let "
		       "TCP ports -p and -p+1 through", "%s port %u: %s", o->host, o->tcp_port,
		       strerror(-fd));
		return fd;
	}
	err = client_facts(o, f, fd, &peer);
	if (!err) {
		dr_compare(f, &peer, r);
		for (int i = 0; !err && !o->no_probe && i < dr_probe_count(); i++)
			err = client_step(o, f, &peer, fd, i, r);
		if (!err)
			msg_send(fd, "bye=1\n", timeout_ms(o, 1));
	}
	if (err)
		dr_add(r, "peer", DR_FAIL, "the server's stderr; is it an rb_doctor --server of this "
		       "version?", "the exchange with %s failed: %s", o->host, strerror(-err));
	close(fd);
	return err;
}

/* ---- the server ----------------------------------------------------------- */

static int serve_step(const struct dr_opts *o, const struct dr_facts *f, int fd, int i)
{
	char msg[MSG_MAX], diag[512];
	int rc;

	snprintf(msg, sizeof(msg), "ready=%d\n", i);
	if (msg_send(fd, msg, timeout_ms(o, 1)))
		return -EIO;
	rc = dr_probe_run(o, f, i, NULL, diag, sizeof(diag));
	for (char *c = diag; *c; c++)
		if (*c == '\n' || (unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = ' ';
	log_info("probe %s: %s%s", dr_probe_name(i), rc ? "failed: " : "ok", rc ? diag : "");
	snprintf(msg, sizeof(msg), "done=%d\nrc=%d\ndiag=%s\n", i, rc ? 1 : 0, diag);
	return msg_send(fd, msg, timeout_ms(o, 1));
}

static void serve_one(const struct dr_opts *o, const struct dr_facts *f, int fd)
{
	static struct dr_report r;
	struct dr_facts peer;
	char msg[MSG_MAX];
	int i;

	if (msg_recv(fd, msg, sizeof(msg), timeout_ms(o, 1)) || dr_facts_decode(msg, &peer) ||
	    dr_facts_encode(f, msg, sizeof(msg)) < 0 || msg_send(fd, msg, timeout_ms(o, 1)))
		return;
	r.n = 0;
	dr_compare(f, &peer, &r);
	dr_print(stderr, &r, false, "rb_doctor --server: against the client");
	while (!rb_stop && !msg_recv(fd, msg, sizeof(msg), timeout_ms(o, 4) + 10000)) {
		i = get_int(msg, "step", -1);
		if (i < 0 || i >= dr_probe_count() || serve_step(o, f, fd, i))
			return;
	}
}

int dr_serve(const struct dr_opts *o, const struct dr_facts *f)
{
	struct oob_listener l;
	char who[128];
	int fd, err = oob_listen(&l, o->bind, o->tcp_port);

	if (err)
		return err;
	log_info("serving rb_doctor HOST on TCP port %u (the probe on %u) until SIGINT or SIGTERM",
		 o->tcp_port, o->tcp_port + 1u);
	while (!rb_stop) {
		fd = oob_accept(&l, -1, who, sizeof(who));
		if (fd < 0 && fd != -EINTR)
			log_warn("accept failed: %s", strerror(-fd));
		if (fd < 0)
			continue;
		log_info("client %s", who);
		serve_one(o, f, fd);
		close(fd);
	}
	oob_close_listener(&l);
	return 0;
}
