/* rb_mpi --topology's parsing (src/prog/mpi/mpi_topo_parse.c): "HOST SWITCH"
 * file lines, and Slurm's `scontrol show topology` with its hostlists
 * expanded by a stand-in for `scontrol show hostnames`. */
#include <errno.h>
#include <stdlib.h>

#include "prog/mpi/mpi_topo_parse.h"
#include "tap.h"

/* A stand-in for scontrol show hostnames: "nodeA[1-3]" -> "nodeA1\nnodeA2\nnodeA3\n";
 * a list without brackets comes back as it is; "bad" fails. */
static char *fake_hostnames(const char *hostlist, void *ctx)
{
	char pre[64], *out = calloc(1, 4096);
	int lo, hi;

	(*(int *)ctx)++;
	if (!strcmp(hostlist, "bad")) {
		free(out);
		return NULL;
	}
	if (sscanf(hostlist, "%63[^[][%d-%d]", pre, &lo, &hi) != 3) {
		snprintf(out, 4096, "%s\n", hostlist);
		return out;
	}
	for (int i = lo; i <= hi; i++)
		snprintf(out + strlen(out), 4096 - strlen(out), "%s%d\n", pre, i);
	return out;
}

static int parse_text(const char *text, struct topo_map *m, int *calls)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int k = topo_slurm_parse(in, m, fake_hostnames, calls);

	fclose(in);
	return k;
}

static void test_file_lines(void)
{
	char h[TOPO_NAME_LEN], s[TOPO_NAME_LEN];

	ok(topo_file_line("node1.example.org  leaf3 # rack 3\n", h, s) == 1 &&
	   !strcmp(h, "node1.example.org") && !strcmp(s, "leaf3"), "a file line: HOST SWITCH, comment dropped");
	is_int(topo_file_line("   # only a comment\n", h, s), 0, "a file line: a comment is blank");
	is_int(topo_file_line("node1\n", h, s), -1, "a file line: HOST alone is malformed");
	is_int(topo_file_line("node1 leaf leaf2\n", h, s), -1, "a file line: three words are malformed");
}

static void test_leaf_lines(void)
{
	char sw[TOPO_NAME_LEN], nodes[256];

	ok(topo_slurm_leaf("SwitchName=s0 Level=0 LinkSpeed=1 Nodes=node[1-4]\n", sw, nodes, sizeof(nodes)) == 1 &&
	   !strcmp(sw, "s0") && !strcmp(nodes, "node[1-4]"), "scontrol line: a leaf switch, its name and hostlist");
	is_int(topo_slurm_leaf("SwitchName=top Level=1 LinkSpeed=1 Nodes=node[1-8] Switches=s[0-1]\n", sw, nodes, sizeof(nodes)),
	       0, "scontrol line: Level=1 gives no group");
	is_int(topo_slurm_leaf("No topology information available\n", sw, nodes, sizeof(nodes)), 0,
	       "scontrol line: a message is no switch");
	is_int(topo_slurm_leaf("SwitchName=s0 Level=0 LinkSpeed=1\n", sw, nodes, sizeof(nodes)), -1,
	       "scontrol line: a leaf switch without Nodes is malformed");
	is_int(topo_slurm_leaf("SwitchName=s0 Level=10 Nodes=a\n", sw, nodes, sizeof(nodes)), 0,
	       "scontrol line: Level=10 is not Level=0");
}

static void test_slurm_switches(void)
{
	struct topo_map m = { 0 };
	int calls = 0, k = parse_text("SwitchName=s0 Level=0 LinkSpeed=1 Nodes=node[1-4]\n"
				      "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=gpu[7-9]\n"
				      "SwitchName=s2 Level=0 LinkSpeed=1 Nodes=big.example.org,small\n"
				      "SwitchName=top Level=1 LinkSpeed=1 Nodes=node[1-4],gpu[7-9] Switches=s[0-2]\n",
				      &m, &calls);

	is_int(k, 3, "scontrol text: three leaf switches");
	is_int(calls, 3, "scontrol text: one hostlist expansion per leaf, none for Level=1");
	is_int(m.n, 9, "scontrol text: 4 + 3 + 2 hosts");
	is_str(topo_map_switch(&m, "node3"), "s0", "node[1-4] expanded: node3 on s0");
	is_str(topo_map_switch(&m, "gpu9"), "s1", "gpu[7-9] expanded: gpu9 on s1");
	is_str(topo_map_switch(&m, "big"), "s2", "an expanded list (commas): big (domain dropped) on s2");
	is_str(topo_map_switch(&m, "small"), "s2", "an expanded list (commas): small on s2");
	ok(topo_map_switch(&m, "node5") == NULL, "a host on no leaf switch: NULL (the caller names it)");
	ok(topo_map_switch(&m, "top") == NULL, "a switch is no host");
	topo_map_free(&m);
}

static void test_slurm_none(void)
{
	struct topo_map m = { 0 };
	int calls = 0;

	is_int(parse_text("", &m, &calls), 0, "scontrol text: empty, no leaf switch (no tree topology)");
	is_int(parse_text("SwitchName=top Level=1 LinkSpeed=1 Nodes=a Switches=s0\n", &m, &calls), 0,
	       "scontrol text: only an upper switch, no leaf");
	is_int(parse_text("SwitchName=s0 Level=0 Nodes=a\nSwitchName=s1 Level=0 LinkSpeed=1\n", &m, &calls), -EINVAL,
	       "scontrol text: a malformed leaf line is -EINVAL");
	topo_map_free(&m);
	is_int(parse_text("SwitchName=s0 Level=0 Nodes=bad\n", &m, &calls), -EINVAL,
	       "scontrol text: a hostlist not expanded is -EINVAL");
	topo_map_free(&m);
}

static void test_many_hosts(void)
{
	struct topo_map m = { 0 };
	char names[64 * 1100] = "";

	for (int i = 0; i < 1024; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "n%d\n", i);
	is_int(topo_map_add_hosts(&m, "leaf", names), 1024, "1024 expanded names, one a line");
	is_str(topo_map_switch(&m, "n1023"), "leaf", "the last of 1024 found");
	topo_map_free(&m);
}

int main(void)
{
	test_file_lines();
	test_leaf_lines();
	test_slurm_switches();
	test_slurm_none();
	test_many_hosts();
	return tap_done();
}
