/*
 * rb_doctor: checks this host (local.c), compares it with a doctor server
 * over the out-of-band channel (peer.c) and runs a short probe of every
 * transport and verb (probe.c).  Each check ends in one line of a report
 * (report.c): ok, warn or fail, what was observed, what to do.
 */
#ifndef RB_DOCTOR_H
#define RB_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum dr_level { DR_OK, DR_WARN, DR_FAIL };

struct dr_check {
	char name[24];
	enum dr_level level;
	char observed[320];
	char advice[400];
};

#define DR_MAX_CHECKS 48

struct dr_report {
	struct dr_check c[DR_MAX_CHECKS];
	int n;
};

struct dr_opts {
	const char *dev;            /* -d; NULL: the first device */
	int port;                   /* -i */
	int gid_index;              /* -x; -1: as the benchmarks choose */
	bool json;
	bool hugepages;             /* --hugepages: check them */
	bool server;                /* --server */
	bool no_probe;              /* --no-probe */
	const char *host;           /* the doctor server to compare with */
	const char *bind;           /* --bind (server) */
	uint16_t tcp_port;          /* -p: the exchange; the probe uses the next one */
	double timeout_s;           /* per step */
};

/* What the local checks found: sent to the peer, used by the probe. */
struct dr_facts {
	char dev[64];
	int port;
	int gid_index;              /* -1: none usable */
	char gid_type[16];          /* "RoCE v2", "IB", ... */
	char gid_ip[64];            /* "" on IB */
	char gid_prefix[72];        /* the subnet: IPv4 /24 ... or the IB prefix */
	char link_layer[16];
	int active_mtu;             /* bytes */
	int netdev_mtu;             /* 0: none */
	char netdev[32];
	bool port_active;
	char version[32];           /* rdmabench's */
};

/* report.c */
void dr_add(struct dr_report *r, const char *name, enum dr_level l, const char *advice,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
enum dr_level dr_worst(const struct dr_report *r);
void dr_print(FILE *f, const struct dr_report *r, bool json, const char *title);

/* local.c: every local check into r; facts for the peer and the probe. */
void dr_local(const struct dr_opts *o, struct dr_report *r, struct dr_facts *f);

/* peer.c: the key=value encoding of facts, and the comparison. */
int dr_facts_encode(const struct dr_facts *f, char *buf, size_t len);
int dr_facts_decode(const char *buf, struct dr_facts *f);
void dr_compare(const struct dr_facts *mine, const struct dr_facts *peer, struct dr_report *r);
/* Client: connect, exchange facts, compare, probe.  Server: serve clients
 * until SIGINT/SIGTERM.  0, or -errno when the peer could not be reached. */
int dr_client(const struct dr_opts *o, const struct dr_facts *f, struct dr_report *r);
int dr_serve(const struct dr_opts *o, const struct dr_facts *f);

/* probe.c: the probe steps, by number, run on both sides in one order. */
int dr_probe_count(void);
const char *dr_probe_name(int i);
bool dr_probe_uses_cm(int i);           /* -R: the client gives the peer's GID address */
/* Run step i's client (host given) or server side in a child process, with
 * a deadline; 0 or -errno.  diag (may be NULL) gets the child's first error line. */
int dr_probe_run(const struct dr_opts *o, const struct dr_facts *f, int i, const char *host,
		 char *diag, size_t len);

#endif
