/*
 * Attribution: from many links' verdicts, where the fault is.  Pure.
 *
 * Input: the links seen in one window (or one check), each from an agent
 * NIC to a peer NIC with whether it is bad (loss or p99 over the
 * thresholds).  Rules, applied in this order, each link explained once:
 *
 *   peer     every agent that probes NIC P (at least min_agents of them)
 *            finds it bad: P's fault ("rxe1 of host b: lost by all 3
 *            agents that probe it")
 *   self     agent NIC A finds every peer it probes bad (at least
 *            min_peers): A's own host or NIC
 *   switch   every link from switch S to switch T is bad (at least
 *            min_links, and no other rule explained them): the path
 *            between S and T
 *   link     what is left: that one link
 *
 * A host whose every NIC is "peer" is reported once as the host ("host
 * b: every NIC lost by every agent") rather than per NIC (with two NICs
 * or more known: a host seen through one NIC is that NIC).
 *
 * Each rule weighs what the earlier ones left: self, the agent's links
 * to peers not already explained (a down peer says nothing of the agent
 * probing it), none of its links good; switch likewise.  A good link is
 * never blamed: only bad links are explained.  NICs are told apart by
 * their names (host, NIC), not by their addresses in memory; links by
 * their ends' names, sorted, so the input's order does not matter.
 * Verdicts come by kind (peer, host, self, switch, link), then by name.
 */
#ifndef RB_MESH_ATTRIB_H
#define RB_MESH_ATTRIB_H

#include <stddef.h>
#include "prog/mesh/mesh.h"

struct attrib_link {
	const struct mesh_nic *src, *dst;
	bool bad;
	double loss, p99_us;            /* for the line */
};

enum attrib_kind { AT_PEER, AT_HOST, AT_SELF, AT_SWITCH, AT_LINK };

struct attrib_verdict {
	enum attrib_kind kind;
	const struct mesh_nic *nic;     /* AT_PEER, AT_SELF: the NIC; AT_HOST: one of its NICs */
	const struct mesh_nic *dst;     /* AT_LINK: the far end */
	char sw_a[MESH_NAME_LEN], sw_b[MESH_NAME_LEN];  /* AT_SWITCH */
	int nlinks;                     /* links this verdict explains */
	char line[256];                 /* what a human reads */
};

struct attrib_opts {
	int min_agents;                 /* peer: default 2 */
	int min_peers;                  /* self: default 2 */
	int min_links;                  /* switch: default 2 */
};                                      /* (NULL, or a field under 1: its default) */

const char *attrib_kind_name(enum attrib_kind k);     /* "peer", "host", ... */
/* Verdicts into v (room for n links' worth: at most n verdicts); how many,
 * or -ENOMEM.  Deterministic: the same links in any order give the same
 * verdicts in the same order. */
int attrib_run(const struct attrib_link *l, int n, const struct attrib_opts *o,
	       struct attrib_verdict *v);
/* attrib_run, and which verdict explains each link: by[i] the index in v
 * of link i's, -1 for a good link (by: room for n; NULL: not said). */
int attrib_explain(const struct attrib_link *l, int n, const struct attrib_opts *o,
		   struct attrib_verdict *v, int *by);

#endif
