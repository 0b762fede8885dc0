/*
 * The pinglist: which peer NICs each local NIC probes, and how often.
 *
 * File format (one NIC a line, '#' comments, blank lines ignored):
 *     HOST  NIC  RAIL  ADDR  [SWITCH]
 * e.g. "gpu17 mlx5_3 3 10.3.0.17 leaf04".  ADDR is an IPv4 address,
 * optionally with ":PORT" (the agent's rdma_cm port; default: the
 * agent's --port), or an IPv6 address, "[v6]:PORT" with a port.  Several
 * agents may share one address on distinct ports (a test bed's many
 * "hosts" on one device).  A host's lines name its NICs;
 * the local host's lines are its own NICs (--host NAME, default the
 * hostname).  A local NIC of rail k probes the other hosts' NICs of rail k
 * (and, with intra, the other NICs of its own host).
 *
 * Tiers (R-Pingmesh's anchors as defaults): peers on the local NIC's
 * switch are all probed, each at rate_switch probes/s (10); peers across
 * switches are sampled: at most cross_peers of them (default 16) at a
 * time, each at rate_cross (1/s), the sample moving on every window so
 * that every cross peer is visited over ceil(ncross / cross_peers)
 * windows.  A NIC without a switch counts as its own switch.
 *
 * Bounded: at most max_peers (default 256) peers per local NIC are kept
 * (switch peers first, then cross peers, in file order; the rest are
 * counted in dropped_peers, for the caller to say on stderr, never
 * silently), so memory and probe traffic are fixed by the options,
 * whatever the list's length.  Where a NIC's sample starts depends on its
 * names (host, NIC), so that agents do not all probe the same cross
 * peers in the same window.
 *
 * Errors name the line and the field ("pinglist line 7: RAIL 'x' is not
 * a number 0..255"); syntax is checked first, then duplicates (a HOST
 * NIC pair on two lines: the later line is named), then that the local
 * host has a line.  Pure: no I/O but reading the file given.
 */
#ifndef RB_MESH_PINGLIST_H
#define RB_MESH_PINGLIST_H

#include <stddef.h>
#include "prog/mesh/mesh.h"

struct pl_opts {
	const char *host;               /* the local host's name in the list */
	double rate_switch, rate_cross; /* probes/s to each peer of the tier */
	int cross_peers;                /* cross peers probed at once */
	int max_peers;                  /* peers kept per local NIC */
	bool intra;                     /* also the other NICs of this host */
};

struct pl_peer {
	struct mesh_nic nic;
	enum mesh_tier tier;
};

struct pl_local {
	struct mesh_nic nic;            /* this host's NIC */
	struct pl_peer *peers;          /* switch peers first, then cross */
	int npeers, nswitch;            /* kept; of them, on the same switch */
	size_t dropped_peers;           /* over max_peers */
};

struct pinglist {
	struct pl_local *local;
	int nlocal;
	size_t lines;                   /* NIC lines read */
};

/* 0, -ENOMEM, or -EINVAL with the reason in why_buf (may be NULL) naming
 * the line; pl_load also -errno (-ENOENT, -EFBIG over 256 MiB, ...) with
 * the path.  On an error *pl is empty (nothing to free). */
int pl_load(struct pinglist *pl, const char *path, const struct pl_opts *o,
	    char *why_buf, size_t why_len);
int pl_parse(struct pinglist *pl, const char *text, const struct pl_opts *o,
	     char *why_buf, size_t why_len);
void pl_free(struct pinglist *pl);
/* Window w's cross sample of local NIC l: the indexes (into l->peers) of
 * the cross peers probed, into idx (room for o->cross_peers); how many:
 * all of them when they are cross_peers or fewer, else cross_peers
 * distinct ones, any ceil(ncross / cross_peers) consecutive windows
 * visiting every one (0 with cross_peers 0). */
int pl_cross_sample(const struct pl_local *l, const struct pl_opts *o, uint64_t w, int *idx);

#endif
