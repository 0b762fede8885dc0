#include "prog/mpi/mpi_topo_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int topo_map_add(struct topo_map *m, const char *host, const char *sw)
{
	struct topo_line *t;

	if (m->n == m->cap) {
		int cap = m->cap ? 2 * m->cap : 64;
		struct topo_line *v = realloc(m->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	t = &m->v[m->n++];
	snprintf(t->host, sizeof(t->host), "%.*s", (int)strcspn(host, "."), host);
	snprintf(t->sw, sizeof(t->sw), "%s", sw);
	return 0;
}

const char *topo_map_switch(const struct topo_map *m, const char *host)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].host, host))
			return m->v[i].sw;
	return NULL;
}

void topo_map_free(struct topo_map *m)
{
	free(m->v);
	*m = (struct topo_map){ 0 };
}

int topo_file_line(const char *line, char host[TOPO_NAME_LEN], char sw[TOPO_NAME_LEN])
{
	char buf[512], extra[2];
	int k;

	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "#\n")] = '\0';
	k = sscanf(buf, "%63s %63s %1s", host, sw, extra);
	return k <= 0 ? 0 : k == 2 ? 1 : -1;
}

/* The value of KEY= among LINE's blank-separated words into VAL; 0 or -1. */
static int key_value(const char *line, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = line; *p; ) {
		size_t wl;

		p += strspn(p, " \t\n");
		wl = strcspn(p, " \t\n");
		if (wl > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(val, len, "%.*s", (int)(wl - kl - 1), p + kl + 1);
			return 0;
		}
		p += wl;
	}
	return -1;
}

int topo_slurm_leaf(const char *line, char sw[TOPO_NAME_LEN], char *nodes, size_t nodes_len)
{
	char level[16];

	if (key_value(line, "Level", level, sizeof(level)) || strcmp(level, "0"))
		return 0;
	if (key_value(line, "SwitchName", sw, TOPO_NAME_LEN) ||
	    key_value(line, "Nodes", nodes, nodes_len) || !*sw || !*nodes)
		return -1;
	return 1;
}

int topo_map_add_hosts(struct topo_map *m, const char *sw, const char *hosts)
{
	const char *sep = " \t\n,";
	int n = 0;

	for (const char *p = hosts + strspn(hosts, sep); *p; p += strspn(p, sep)) {
		char host[TOPO_NAME_LEN];
		size_t l = strcspn(p, sep);

		snprintf(host, sizeof(host), "%.*s", (int)l, p);
		if (topo_map_add(m, host, sw))
			return -ENOMEM;
		n++;
		p += l;
	}
	return n;
}

/* One leaf switch's line: its hosts into M; 1, or -EINVAL, -ENOMEM. */
static int slurm_leaf_hosts(const char *line, struct topo_map *m, topo_expand_fn expand, void *ctx)
{
	char sw[TOPO_NAME_LEN], nodes[4096], *names;
	int k = topo_slurm_leaf(line, sw, nodes, sizeof(nodes));

	if (k <= 0)
		return k ? -EINVAL : 0;
	names = expand(nodes, ctx);
	if (!names)
		return -EINVAL;
	k = topo_map_add_hosts(m, sw, names);
	free(names);
	return k < 0 ? k : 1;
}

int topo_slurm_parse(FILE *in, struct topo_map *m, topo_expand_fn expand, void *ctx)
{
	char *line = NULL;
	size_t cap = 0;
	int leaves = 0, k = 0;

	while (k >= 0 && getline(&line, &cap, in) >= 0)
		if ((k = slurm_leaf_hosts(line, m, expand, ctx)) > 0)
			leaves++;
	free(line);
	return k < 0 ? k : leaves;
}
