/*
 * rb_mpi --check (rb_mesh check): a link's verdict from its two ends'
 * configuration and its measured figures, against the thresholds.  Pure:
 * no MPI, no verbs; unit-tested (tests/unit/test_verdict.c).
 */
#ifndef RB_MPI_VERDICT_H
#define RB_MPI_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/gid.h"

#define CHECK_DEV_LEN 32
#define CHECK_WHY_LEN 96

/* One rail's end: a device of a rank, as it opened (ok) or why not. */
struct check_end {
	char dev[CHECK_DEV_LEN];
	bool ok;                    /* opened, port ACTIVE */
	int active_mtu;             /* bytes */
	enum gid_type gid_type;     /* of the GID the benchmarks use */
	bool ib_link;
	char why[CHECK_WHY_LEN];    /* !ok: the reason */
};

/* Thresholds: 0 (or a NaN) is "none". */
struct check_thr {
	double min_bw_mibps;
	double max_p99_us;
	int mtu;                    /* every end's active MTU, bytes */
	int gid_type;               /* 0 none, else enum gid_type + 1 */
};

/* One benchmark's outcome on the link. */
struct check_run {
	bool ran, ok;               /* ran: a row came; ok: it measured */
	const char *cause;          /* !ok: the failure */
};

struct check_link {
	struct check_run lat, bw;
	double p50_us, p99_us, bw_mibps;
};

/*
 * The verdict: true (pass) or false, with every reason it failed in why,
 * "; "-separated ("" on a pass): the ends' configuration (unopened, MTU or
 * GID type unlike each other or the threshold, link layers apart), a
 * benchmark that failed or never ran, a figure past its threshold.
 */
bool check_verdict(const struct check_thr *t, const struct check_end *src,
		   const struct check_end *dst, const struct check_link *l, char *why, size_t n);

/*
 * A rail's odd ends: the n ends of one rail (one per rank), against what a
 * strict majority of them have (opened, active MTU, GID type, link layer).
 * Marks odd[i] for each end that differs and returns how many; 0 when
 * there is no strict majority (two hosts that differ: neither is "the"
 * odd one) or none differs.  common (may be NULL) gets the majority's end.
 */
int check_odd_ends(const struct check_end *ends, int n, bool *odd, struct check_end *common);
/* What end e has that the majority's end m has not: "active MTU 4096
 * (the others 1024)", "not opened: WHY", ...; into buf. */
void check_odd_why(const struct check_end *e, const struct check_end *m, char *buf, size_t n);

/* "RoCE v2" / "v2" / "2", "RoCE v1" / "v1" / "1", "IB": the threshold's
 * value (enum gid_type + 1), or -1. */
int check_gid_type_parse(const char *s);

#endif
