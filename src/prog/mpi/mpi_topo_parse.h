/*
 * rb_mpi --topology: which switch each host hangs off, from a file of
 * "HOST SWITCH" lines or from Slurm's `scontrol show topology` (its leaf
 * switches, Level=0).  Pure logic, no MPI: the caller runs scontrol.
 */
#ifndef RB_MPI_TOPO_PARSE_H
#define RB_MPI_TOPO_PARSE_H

#include <stdio.h>

#define TOPO_NAME_LEN 64

struct topo_line {
	char host[TOPO_NAME_LEN], sw[TOPO_NAME_LEN];
};

/* Hosts and their switches, in the order read. */
struct topo_map {
	struct topo_line *v;
	int n, cap;
};

/* Adds HOST (its domain dropped) on switch SW; 0 or -ENOMEM. */
int topo_map_add(struct topo_map *m, const char *host, const char *sw);
/* The switch of HOST (short name), or NULL when no line names it. */
const char *topo_map_switch(const struct topo_map *m, const char *host);
void topo_map_free(struct topo_map *m);

/* One line of a --topology file ('#' starts a comment): 1 and HOST SWITCH,
 * 0 for a blank line, -1 when it is not "HOST SWITCH". */
int topo_file_line(const char *line, char host[TOPO_NAME_LEN], char sw[TOPO_NAME_LEN]);

/* One line of `scontrol show topology` ("SwitchName=s0 Level=0
 * LinkSpeed=1 Nodes=node[1-4]"): 1 and the switch's name and its Nodes
 * hostlist for a leaf switch (Level=0), 0 for another level or another
 * line, -1 for a leaf switch without a name or nodes. */
int topo_slurm_leaf(const char *line, char sw[TOPO_NAME_LEN], char *nodes, size_t nodes_len);

/* Host names separated by blanks, newlines or commas (an expanded hostlist,
 * e.g. `scontrol show hostnames`), each added on switch SW: how many, or
 * -ENOMEM. */
int topo_map_add_hosts(struct topo_map *m, const char *sw, const char *hosts);

/* Expands a Slurm hostlist ("node[1-4]") into names: a malloc'd string, or
 * NULL after a message. */
typedef char *(*topo_expand_fn)(const char *hostlist, void *ctx);

/* `scontrol show topology`'s output in IN: every leaf switch's hosts into
 * M.  The number of leaf switches (0: Slurm has no tree topology), or
 * -EINVAL (a malformed leaf line, a hostlist not expanded), -ENOMEM. */
int topo_slurm_parse(FILE *in, struct topo_map *m, topo_expand_fn expand, void *ctx);

#endif
