/*
 * Attribution (mesh_attrib.h).  The NICs are numbered in name order (one
 * number per (host, NIC), whatever pointers the links hold), each link
 * becomes (src, dst) numbers, and each rule walks the NICs, or the links
 * sorted by what the rule groups them by, in name order: so the verdicts
 * are the same, in the same order, for any order of the input.
 */
#include "prog/mesh/mesh_attrib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct at {
	const struct attrib_link *l;
	int n;
	struct attrib_opts o;
	const struct mesh_nic **nic;    /* the NICs, by name, once each */
	int nnic;
	int *src, *dst;                 /* each link's ends: indexes into nic */
	int *ord;                       /* the links, by (src, dst) names */
	int *by;                        /* each link's verdict, -1 none */
	int *in_bad, *in_all;           /* per NIC: links to it */
	int *in_first, *in_link;        /* NIC d's links: in_link[in_first[d]..in_first[d+1]) */
	unsigned char *peer;            /* per NIC: 1 peer, 2 its host */
	struct attrib_verdict *v;
	int nv;
};

const char *attrib_kind_name(enum attrib_kind k)
{
	static const char *const name[] = { "peer", "host", "self", "switch", "link" };

	return (unsigned)k < sizeof(name) / sizeof(name[0]) ? name[k] : "?";
}

static int nic_cmp(const struct mesh_nic *x, const struct mesh_nic *y)
{
	int c = strcmp(x->host, y->host);

	return c ? c : strcmp(x->nic, y->nic);
}

static int nicp_cmp(const void *a, const void *b)
{
	return nic_cmp(*(const struct mesh_nic *const *)a, *(const struct mesh_nic *const *)b);
}

/* The index of n among the sorted NICs (it is there). */
static int nic_index(const struct at *a, const struct mesh_nic *n)
{
	const struct mesh_nic **p = bsearch(&n, a->nic, (size_t)a->nnic, sizeof(*a->nic), nicp_cmp);

	return (int)(p - a->nic);
}

/* The NICs of every link, sorted and unique; each link's ends numbered. */
static void number_nics(struct at *a)
{
	int k = 0;

	for (int i = 0; i < a->n; i++) {
		a->nic[2 * i] = a->l[i].src;
		a->nic[2 * i + 1] = a->l[i].dst;
	}
	qsort(a->nic, (size_t)(2 * a->n), sizeof(*a->nic), nicp_cmp);
	for (int i = 0; i < 2 * a->n; i++)
		if (!k || nic_cmp(a->nic[k - 1], a->nic[i]))
			a->nic[k++] = a->nic[i];
	a->nnic = k;
	for (int i = 0; i < a->n; i++) {
		a->src[i] = nic_index(a, a->l[i].src);
		a->dst[i] = nic_index(a, a->l[i].dst);
	}
}

static int dbl_cmp(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

/* qsort_r's comparison of links i and j: by (src, dst), then their figures. */
static int link_cmp(const void *pi, const void *pj, void *arg)
{
	const struct at *a = arg;
	int i = *(const int *)pi, j = *(const int *)pj, c;

	c = a->src[i] != a->src[j] ? a->src[i] - a->src[j] : a->dst[i] - a->dst[j];
	if (!c)
		c = (int)a->l[i].bad - (int)a->l[j].bad;
	if (!c)
		c = dbl_cmp(a->l[i].loss, a->l[j].loss);
	return c ? c : dbl_cmp(a->l[i].p99_us, a->l[j].p99_us);
}

static struct attrib_verdict *verdict(struct at *a, enum attrib_kind k, const struct mesh_nic *nic)
{
	struct attrib_verdict *v = &a->v[a->nv++];

	memset(v, 0, sizeof(*v));
	v->kind = k;
	v->nic = nic;
	return v;
}

/* Links to each NIC: how many, how many bad, and which (a counting
 * sort of ord by far end). */
static void count_inbound(struct at *a)
{
	for (int i = 0; i < a->n; i++) {
		a->in_all[a->dst[i]]++;
		a->in_bad[a->dst[i]] += a->l[i].bad;
	}
	a->in_first[0] = 0;
	for (int d = 0; d < a->nnic; d++)
		a->in_first[d + 1] = a->in_first[d] + a->in_all[d];
	for (int k = 0; k < a->n; k++)          /* in_first[d] moves to d + 1's start */
		a->in_link[a->in_first[a->dst[a->ord[k]]]++] = a->ord[k];
	for (int d = a->nnic; d > 0; d--)
		a->in_first[d] = a->in_first[d - 1];
	a->in_first[0] = 0;
}

/* The links to NIC d not yet explained, given to verdict vi: how many. */
static int explain_to(struct at *a, int d, int vi)
{
	int k = 0;

	for (int j = a->in_first[d]; j < a->in_first[d + 1]; j++)
		if (a->by[a->in_link[j]] < 0)
			a->by[a->in_link[j]] = vi, k++;
	return k;
}

/* Peer: every link to the NIC bad, from min_agents agents at least. */
static void mark_peers(struct at *a)
{
	for (int d = 0; d < a->nnic; d++)
		a->peer[d] = a->in_all[d] >= a->o.min_agents && a->in_bad[d] == a->in_all[d];
}

/* Host: two NICs or more, each a peer: marked 2. */
static void mark_hosts(struct at *a)
{
	for (int s = 0, e; s < a->nnic; s = e) {
		int all = 1;

		for (e = s; e < a->nnic && !strcmp(a->nic[e]->host, a->nic[s]->host); e++)
			all &= a->peer[e] == 1;
		for (int d = s; all && e - s >= 2 && d < e; d++)
			a->peer[d] = 2;
	}
}

static void rule_peer(struct at *a)
{
	for (int d = 0; d < a->nnic; d++) {
		struct attrib_verdict *v;

		if (a->peer[d] != 1)
			continue;
		v = verdict(a, AT_PEER, a->nic[d]);
		v->nlinks = explain_to(a, d, a->nv - 1);
		snprintf(v->line, sizeof(v->line), "%s of host %s: lost by all %d agents that probe it",
			 a->nic[d]->nic, a->nic[d]->host, a->in_all[d]);
	}
}

static void rule_host(struct at *a)
{
	for (int s = 0, e; s < a->nnic; s = e) {
		struct attrib_verdict *v;

		for (e = s; e < a->nnic && !strcmp(a->nic[e]->host, a->nic[s]->host); e++)
			;
		if (a->peer[s] != 2)
			continue;
		v = verdict(a, AT_HOST, a->nic[s]);
		for (int d = s; d < e; d++)
			v->nlinks += explain_to(a, d, a->nv - 1);
		snprintf(v->line, sizeof(v->line),
			 "host %s: every NIC (%d) lost by every agent that probes it (%d links)",
			 a->nic[s]->host, e - s, v->nlinks);
	}
}

/* Self: none of the agent's links good, min_peers of them unexplained.
 * The links are in ord: an agent's links are consecutive. */
static void rule_self(struct at *a)
{
	for (int s = 0, e; s < a->n; s = e) {
		int src = a->src[a->ord[s]], good = 0, open = 0;
		struct attrib_verdict *v;

		for (e = s; e < a->n && a->src[a->ord[e]] == src; e++) {
			good += !a->l[a->ord[e]].bad;
			open += a->by[a->ord[e]] < 0;
		}
		if (good || open < a->o.min_peers)
			continue;
		v = verdict(a, AT_SELF, a->nic[src]);
		for (int i = s; i < e; i++)
			if (a->by[a->ord[i]] < 0)
				a->by[a->ord[i]] = a->nv - 1, v->nlinks++;
		snprintf(v->line, sizeof(v->line),
			 "%s of host %s: every peer it probes is bad (%d links): its own NIC or host",
			 a->nic[src]->nic, a->nic[src]->host, v->nlinks);
	}
}

/* A link's switch pair, the smaller name first; 0 when an end has none. */
static int switch_pair(const struct at *a, int i, const char **lo, const char **hi)
{
	const char *s = a->l[i].src->sw, *d = a->l[i].dst->sw;

	if (!s[0] || !d[0])
		return 0;
	*lo = strcmp(s, d) <= 0 ? s : d;
	*hi = *lo == s ? d : s;
	return 1;
}

static int pair_cmp(const struct at *a, int i, int j)
{
	const char *il, *ih, *jl, *jh;
	int c;

	switch_pair(a, i, &il, &ih);
	switch_pair(a, j, &jl, &jh);
	c = strcmp(il, jl);
	return c ? c : strcmp(ih, jh);
}

/* qsort_r: the links with a switch pair first, by pair, then as ord. */
static int by_pair_cmp(const void *pi, const void *pj, void *arg)
{
	const struct at *a = arg;
	int i = *(const int *)pi, j = *(const int *)pj;
	const char *lo, *hi;
	int hasi = switch_pair(a, i, &lo, &hi), hasj = switch_pair(a, j, &lo, &hi), c;

	if (hasi != hasj)
		return hasj - hasi;
	c = hasi ? pair_cmp(a, i, j) : 0;
	return c ? c : link_cmp(pi, pj, arg);
}

static void switch_verdict(struct at *a, const int *g, int k)
{
	struct attrib_verdict *v;
	const char *lo, *hi;

	switch_pair(a, g[0], &lo, &hi);
	v = verdict(a, AT_SWITCH, NULL);
	snprintf(v->sw_a, sizeof(v->sw_a), "%s", lo);
	snprintf(v->sw_b, sizeof(v->sw_b), "%s", hi);
	for (int i = 0; i < k; i++)
		if (a->by[g[i]] < 0)
			a->by[g[i]] = a->nv - 1, v->nlinks++;
	if (strcmp(lo, hi))
		snprintf(v->line, sizeof(v->line), "switches %s and %s: every link between them is bad (%d links)",
			 lo, hi, v->nlinks);
	else
		snprintf(v->line, sizeof(v->line), "switch %s: every link within it is bad (%d links)",
			 lo, v->nlinks);
}

/* Switch: none of the pair's links good, min_links of them unexplained.
 * g: the links sorted by pair (by_pair_cmp). */
static void rule_switch(struct at *a, int *g)
{
	const char *lo, *hi;
	int n = 0;

	for (int i = 0; i < a->n; i++)
		g[n++] = a->ord[i];
	qsort_r(g, (size_t)n, sizeof(*g), by_pair_cmp, a);
	for (int s = 0, e; s < n && switch_pair(a, g[s], &lo, &hi); s = e) {
		int good = 0, open = 0;

		for (e = s; e < n && switch_pair(a, g[e], &lo, &hi) && !pair_cmp(a, g[s], g[e]); e++) {
			good += !a->l[g[e]].bad;
			open += a->by[g[e]] < 0;
		}
		if (!good && open >= a->o.min_links)
			switch_verdict(a, g + s, e - s);
	}
}

static void rule_link(struct at *a)
{
	for (int k = 0; k < a->n; k++) {
		int i = a->ord[k];
		const struct attrib_link *l = &a->l[i];
		struct attrib_verdict *v;
		char p99[32] = "no answers";

		if (!l->bad || a->by[i] >= 0)
			continue;
		v = verdict(a, AT_LINK, l->src);
		v->dst = l->dst;
		v->nlinks = 1;
		a->by[i] = a->nv - 1;
		if (!isnan(l->p99_us))
			snprintf(p99, sizeof(p99), "p99 %.0f us", l->p99_us);
		snprintf(v->line, sizeof(v->line), "link %.40s/%.40s -> %.40s/%.40s: loss %.1f%%, %s",
			 l->src->host, l->src->nic, l->dst->host, l->dst->nic, 100 * l->loss, p99);
	}
}

static void set_opts(struct at *a, const struct attrib_opts *o)
{
	a->o = o ? *o : (struct attrib_opts){ 0 };
	if (a->o.min_agents < 1)
		a->o.min_agents = 2;
	if (a->o.min_peers < 1)
		a->o.min_peers = 2;
	if (a->o.min_links < 1)
		a->o.min_links = 2;
}

static void at_free(struct at *a)
{
	free(a->nic);
	free(a->src);
	free(a->dst);
	free(a->ord);
	free(a->in_bad);
	free(a->in_all);
	free(a->peer);
	free(a->in_first);
	free(a->in_link);
}

/* Everything sized by n; -ENOMEM. */
static int at_alloc(struct at *a, int n, int *by)
{
	size_t m = (size_t)(n ? n : 1);

	a->nic = malloc(2 * m * sizeof(*a->nic));
	a->src = malloc(m * sizeof(int));
	a->dst = malloc(m * sizeof(int));
	a->ord = malloc(2 * m * sizeof(int));   /* and rule_switch's copy */
	a->in_bad = calloc(2 * m, sizeof(int));
	a->in_all = calloc(2 * m, sizeof(int));
	a->peer = calloc(2 * m, 1);
	a->in_first = malloc((2 * m + 1) * sizeof(int));
	a->in_link = malloc(m * sizeof(int));
	a->by = by;
	if (!a->nic || !a->src || !a->dst || !a->ord || !a->in_bad || !a->in_all || !a->peer ||
	    !a->in_first || !a->in_link)
		return -ENOMEM;
	return 0;
}

static void run_rules(struct at *a)
{
	for (int i = 0; i < a->n; i++) {
		a->ord[i] = i;
		a->by[i] = -1;
	}
	number_nics(a);
	qsort_r(a->ord, (size_t)a->n, sizeof(*a->ord), link_cmp, a);
	count_inbound(a);
	mark_peers(a);
	mark_hosts(a);
	rule_peer(a);
	rule_host(a);
	rule_self(a);
	rule_switch(a, a->ord + a->n);
	rule_link(a);
}

int attrib_explain(const struct attrib_link *l, int n, const struct attrib_opts *o,
		   struct attrib_verdict *v, int *by)
{
	struct at a = { .l = l, .n = n > 0 ? n : 0, .v = v };
	int *own = by ? NULL : malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
	int err;

	set_opts(&a, o);
	err = by || own ? at_alloc(&a, a.n, by ? by : own) : -ENOMEM;
	if (!err)
		run_rules(&a);
	at_free(&a);
	free(own);
	return err ? err : a.nv;
}

int attrib_run(const struct attrib_link *l, int n, const struct attrib_opts *o,
	       struct attrib_verdict *v)
{
	return attrib_explain(l, n, o, v, NULL);
}
