/*
 * Attribution (src/prog/mesh/mesh_attrib.c) on constructed fabrics:
 * hosts of one or more NICs (rail k probes rail k of every other host),
 * on two switches.  Each rule on its own case (a peer down, a host down,
 * an agent that cannot send, a switch pair cut, one bad link), then
 * random fabrics with random faults where, whatever the verdicts, checks
 * that do not use the module's reasoning must hold: every bad link is
 * explained exactly once and by a verdict it fits (its far end for peer,
 * its far host for host, its near end for self, its switches for switch,
 * itself for link), no good link is blamed, each verdict's nlinks is the
 * links it explains, each verdict's premise holds on the input (every
 * link to a "peer" bad, ...), and the verdicts are the same, in the same
 * order, for shuffled inputs whose NICs are copies at other addresses.
 */
#include "prog/mesh/mesh_attrib.h"
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN 26

#define MAXH 10
#define MAXK 3
#define MAXL (MAXH * MAXK * MAXH)

struct fab {
	int hosts, nics, nsw;
	struct mesh_nic nic[MAXH][MAXK];
	struct attrib_link l[MAXL];
	int n;
};

/* hosts x nics NICs; host h on switch "L(h % nsw)" ("" when nsw is 0). */
static void fab_init(struct fab *f, int hosts, int nics, int nsw)
{
	memset(f, 0, sizeof(*f));
	f->hosts = hosts, f->nics = nics, f->nsw = nsw;
	for (int h = 0; h < hosts; h++)
		for (int k = 0; k < nics; k++) {
			struct mesh_nic *n = &f->nic[h][k];

			snprintf(n->host, sizeof(n->host), "h%d", h);
			snprintf(n->nic, sizeof(n->nic), "rxe%d", k);
			if (nsw)
				snprintf(n->sw, sizeof(n->sw), "L%d", h % nsw);
			n->rail = k;
		}
}

/* The rail-k mesh, every link good, none from the hosts in down (bits). */
static void fab_links(struct fab *f, unsigned down)
{
	f->n = 0;
	for (int a = 0; a < f->hosts; a++)
		for (int k = 0; k < f->nics; k++)
			for (int b = 0; b < f->hosts; b++)
				if (a != b && !(down >> a & 1))
					f->l[f->n++] = (struct attrib_link){ .src = &f->nic[a][k], .dst = &f->nic[b][k],
									     .loss = 0.001, .p99_us = 20 };
}

static void set_bad(struct attrib_link *l)
{
	l->bad = true;
	l->loss = 0.5;
	l->p99_us = 900;
}

static int same_nic(const struct mesh_nic *a, const struct mesh_nic *b)
{
	return a && b && !strcmp(a->host, b->host) && !strcmp(a->nic, b->nic);
}

/* Verdicts as one text: "kind:where/nlinks" words, for comparisons. */
static const char *verdicts_text(const struct attrib_verdict *v, int nv)
{
	static char buf[8192];
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < nv && n < sizeof(buf) - 300; i++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s:", i ? " " : "", attrib_kind_name(v[i].kind));
		if (v[i].kind == AT_SWITCH)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s-%s", v[i].sw_a, v[i].sw_b);
		else if (v[i].kind == AT_HOST)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", v[i].nic->host);
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s/%s", v[i].nic->host, v[i].nic->nic);
		if (v[i].kind == AT_LINK)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, ">%s/%s", v[i].dst->host, v[i].dst->nic);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "/%d", v[i].nlinks);
	}
	return buf;
}

static struct attrib_verdict vbuf[MAXL];

/* The verdicts of f's links as text (min_* 2). */
static const char *run(const struct fab *f)
{
	int nv = attrib_run(f->l, f->n, NULL, vbuf);

	return nv < 0 ? "(error)" : verdicts_text(vbuf, nv);
}

static void test_rules(void)
{
	struct fab f;

	fab_init(&f, 6, 2, 2);
	fab_links(&f, 0);
	is_str(run(&f), "", "a healthy fabric: no verdict");

	fab_links(&f, 0);
	for (int i = 0; i < f.n; i++)
		if (same_nic(f.l[i].dst, &f.nic[4][1]))
			set_bad(&f.l[i]);
	is_str(run(&f), "peer:h4/rxe1/5", "a peer that answers no one: peer, its 5 links");
	ok(strstr(vbuf[0].line, "rxe1 of host h4") && strstr(vbuf[0].line, "5 agents"), "...%s", vbuf[0].line);

	fab_links(&f, 1u << 2);
	for (int i = 0; i < f.n; i++)
		if (!strcmp(f.l[i].dst->host, "h2"))
			set_bad(&f.l[i]);
	is_str(run(&f), "host:h2/10", "a host down (no agent, every NIC lost): host, its 10 links");
	ok(strstr(vbuf[0].line, "host h2") != NULL, "...%s", vbuf[0].line);

	fab_links(&f, 0);
	for (int i = 0; i < f.n; i++)
		if (same_nic(f.l[i].src, &f.nic[1][0]))
			set_bad(&f.l[i]);
	is_str(run(&f), "self:h1/rxe0/5", "an agent whose every probe fails: self");
	ok(strstr(vbuf[0].line, "rxe0 of host h1") && strstr(vbuf[0].line, "own"), "...%s", vbuf[0].line);

	fab_links(&f, 0);
	for (int i = 0; i < f.n; i++)
		if (same_nic(f.l[i].src, &f.nic[1][0]) || same_nic(f.l[i].dst, &f.nic[1][0]))
			set_bad(&f.l[i]);
	is_str(run(&f), "peer:h1/rxe0/5 self:h1/rxe0/5", "a NIC dead both ways: peer for its inbound, self for its outbound");

	fab_links(&f, 0);
	for (int i = 0; i < f.n; i++)
		if (strcmp(f.l[i].src->sw, f.l[i].dst->sw))
			set_bad(&f.l[i]);
	is_str(run(&f), "switch:L0-L1/36", "every link between L0 and L1 bad: the switch pair, 36 links");
	ok(strstr(vbuf[0].line, "L0 and L1") != NULL, "...%s", vbuf[0].line);

	fab_links(&f, 0);
	set_bad(&f.l[7]);
	is_str(run(&f), "link:h0/rxe1>h3/rxe1/1", "one bad link: link");
	ok(strstr(vbuf[0].line, "h0/rxe1 -> h3/rxe1") && strstr(vbuf[0].line, "loss 50.0%") &&
	   strstr(vbuf[0].line, "p99 900 us"), "...%s", vbuf[0].line);
}

static void test_thresholds(void)
{
	struct attrib_opts o = { .min_agents = 6 };
	struct attrib_verdict v[64];
	struct fab f;
	int nv;

	fab_init(&f, 3, 1, 0);
	fab_links(&f, 1u << 2);
	for (int i = 0; i < f.n; i++)
		if (!strcmp(f.l[i].dst->host, "h2"))
			set_bad(&f.l[i]);
	is_str(run(&f), "peer:h2/rxe0/2", "a host of one NIC down: the NIC (peer), not the host");
	fab_init(&f, 2, 1, 0);
	fab_links(&f, 1u << 1);
	set_bad(&f.l[0]);
	is_str(run(&f), "link:h0/rxe0>h1/rxe0/1", "a peer probed by one agent only (min_agents 2): link");
	fab_init(&f, 6, 2, 2);
	fab_links(&f, 0);
	for (int i = 0; i < f.n; i++)
		if (same_nic(f.l[i].dst, &f.nic[4][1]))
			set_bad(&f.l[i]);
	nv = attrib_run(f.l, f.n, &o, v);
	is_str(verdicts_text(v, nv), "link:h0/rxe1>h4/rxe1/1 link:h1/rxe1>h4/rxe1/1 link:h2/rxe1>h4/rxe1/1 "
	       "link:h3/rxe1>h4/rxe1/1 link:h5/rxe1>h4/rxe1/1",
	       "min_agents 6, a peer probed by 5: 5 links, in name order");
	o = (struct attrib_opts){ .min_peers = 6 };
	fab_links(&f, 0);
	for (int i = 0; i < f.n; i++)
		if (same_nic(f.l[i].src, &f.nic[1][0]))
			set_bad(&f.l[i]);
	nv = attrib_run(f.l, f.n, &o, v);
	ok(nv == 5 && v[0].kind == AT_LINK, "min_peers 6, an agent with 5 peers: %d links", nv);
	o = (struct attrib_opts){ .min_links = 37 };
	fab_links(&f, 0);
	for (int i = 0; i < f.n; i++)
		if (strcmp(f.l[i].src->sw, f.l[i].dst->sw))
			set_bad(&f.l[i]);
	nv = attrib_run(f.l, f.n, &o, v);
	ok(nv == 36, "min_links 37, a pair of 36: 36 links (%d)", nv);
	ok(attrib_run(f.l, 0, NULL, v) == 0, "no links: no verdict");
}

/* ---- random fabrics ---- */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	uint64_t v = tap_xorshift(&rng_state);

	return v % n;
}

/* A random fabric with random faults of every kind. */
static void random_fabric(struct fab *f)
{
	unsigned down = 0, dead = 0, mute = 0;
	int hosts = 2 + (int)rnd(MAXH - 1);

	fab_init(f, hosts, 1 + (int)rnd(MAXK), (int)rnd(4));
	for (int h = 0; h < hosts; h++) {
		down |= (rnd(8) == 0) << h;     /* no agent, its NICs lost */
		dead |= (rnd(8) == 0) << h;     /* its rxe0 lost both ways */
		mute |= (rnd(8) == 0) << h;     /* its agents cannot send */
	}
	fab_links(f, down);
	const char *cut = rnd(3) ? "" : f->nic[rnd((uint64_t)hosts)][0].sw;
	for (int i = 0; i < f->n; i++) {
		struct attrib_link *l = &f->l[i];
		int a = atoi(l->src->host + 1), b = atoi(l->dst->host + 1);

		if ((down >> b & 1) || (mute >> a & 1) || rnd(25) == 0 ||
		    (dead >> a & 1 && !strcmp(l->src->nic, "rxe0")) || (dead >> b & 1 && !strcmp(l->dst->nic, "rxe0")) ||
		    (cut[0] && (!strcmp(l->src->sw, cut) != !strcmp(l->dst->sw, cut))))
			set_bad(l);
	}
}

/* Does link l fit verdict v (v could explain it)? */
static int fits(const struct attrib_link *l, const struct attrib_verdict *v)
{
	switch (v->kind) {
	case AT_PEER:
		return same_nic(l->dst, v->nic);
	case AT_HOST:
		return !strcmp(l->dst->host, v->nic->host);
	case AT_SELF:
		return same_nic(l->src, v->nic);
	case AT_SWITCH:
		return (!strcmp(l->src->sw, v->sw_a) && !strcmp(l->dst->sw, v->sw_b)) ||
		       (!strcmp(l->src->sw, v->sw_b) && !strcmp(l->dst->sw, v->sw_a));
	case AT_LINK:
		return same_nic(l->src, v->nic) && same_nic(l->dst, v->dst);
	}
	return 0;
}

/* The premise of verdict v on all of f's links: every link it is about
 * (to the peer, to the host, from the agent, between the switches) bad,
 * and enough of them.  0 or why. */
static int premise(const struct fab *f, const struct attrib_verdict *v, char *why)
{
	int about = 0, good = 0;

	for (int i = 0; i < f->n; i++) {
		struct attrib_verdict as_link = *v;

		if (v->kind == AT_LINK)
			continue;
		if (!fits(&f->l[i], &as_link))
			continue;
		about++;
		good += !f->l[i].bad;
	}
	if (v->kind == AT_LINK)
		return 0;
	if (good || about < 2 || about < v->nlinks)
		return sprintf(why, "%s %s: %d links about it, %d good", attrib_kind_name(v->kind), v->line, about, good);
	return 0;
}

/* The checks that do not use the module's reasoning; 0 or why. */
static int check_explained(const struct fab *f, const struct attrib_verdict *v, int nv, const int *by, char *why)
{
	int count[MAXL] = { 0 };

	for (int i = 0; i < f->n; i++) {
		if (!f->l[i].bad != (by[i] < 0))
			return sprintf(why, "link %d: bad %d, explained by %d", i, f->l[i].bad, by[i]);
		if (by[i] >= nv)
			return sprintf(why, "link %d: verdict %d of %d", i, by[i], nv);
		if (by[i] >= 0 && !fits(&f->l[i], &v[by[i]]))
			return sprintf(why, "link %s/%s>%s/%s explained by \"%s\"", f->l[i].src->host,
				       f->l[i].src->nic, f->l[i].dst->host, f->l[i].dst->nic, v[by[i]].line);
		if (by[i] >= 0)
			count[by[i]]++;
	}
	for (int k = 0; k < nv; k++) {
		if (count[k] != v[k].nlinks || !v[k].nlinks)
			return sprintf(why, "\"%s\": nlinks %d, explains %d", v[k].line, v[k].nlinks, count[k]);
		if (k && v[k].kind < v[k - 1].kind)
			return sprintf(why, "verdict %d (%s) after a %s", k, attrib_kind_name(v[k].kind),
				       attrib_kind_name(v[k - 1].kind));
		if (premise(f, &v[k], why))
			return 1;
	}
	return 0;
}

/* f's links shuffled, onto copies of its NICs (other addresses). */
static void shuffled(const struct fab *f, struct fab *g)
{
	*g = *f;
	for (int i = 0; i < g->n; i++) {
		const struct mesh_nic *s = f->l[i].src, *d = f->l[i].dst;

		g->l[i].src = &g->nic[0][0] + (s - &f->nic[0][0]);
		g->l[i].dst = &g->nic[0][0] + (d - &f->nic[0][0]);
	}
	for (int i = g->n - 1; i > 0; i--) {
		int j = (int)rnd((uint64_t)i + 1);
		struct attrib_link t = g->l[i];

		g->l[i] = g->l[j];
		g->l[j] = t;
	}
}

struct tally {
	long fabrics, verdicts, bad, kinds[5];
	int failed, unordered;
	char why[512];
};

/* One random fabric: explained, and the same whatever the order. */
static void one_fabric(struct tally *t)
{
	static struct fab f, g;
	static struct attrib_verdict v[MAXL], w[MAXL];
	static int by[MAXL], byg[MAXL];
	char text[8192];
	int nv, ng;

	random_fabric(&f);
	nv = attrib_explain(f.l, f.n, NULL, v, by);
	t->fabrics++;
	if (nv < 0 || check_explained(&f, v, nv, by, t->why)) {
		t->failed += !t->failed ? 1 : 0;
		return;
	}
	t->verdicts += nv;
	for (int i = 0; i < f.n; i++)
		t->bad += f.l[i].bad;
	for (int k = 0; k < nv; k++)
		t->kinds[v[k].kind]++;
	snprintf(text, sizeof(text), "%s", verdicts_text(v, nv));
	for (int s = 0; s < 4; s++) {
		shuffled(&f, &g);
		ng = s & 1 ? attrib_run(g.l, g.n, NULL, w) : attrib_explain(g.l, g.n, NULL, w, byg);
		if (ng != nv || strcmp(text, verdicts_text(w, ng)) ||
		    (nv && strcmp(v[nv - 1].line, w[ng - 1].line)))
			t->unordered++;
		if (!(s & 1) && ng >= 0 && check_explained(&g, w, ng, byg, t->why))
			t->failed++;
	}
}

static void test_random(void)
{
	struct tally t = { 0 };

	for (int i = 0; i < 3000 && !t.failed; i++)
		one_fabric(&t);
	ok(!t.failed, "%ld random fabrics (%ld bad links, %ld verdicts): each bad link explained once, by a "
	   "verdict it fits, none good; nlinks right; premises hold%s%s", t.fabrics, t.bad, t.verdicts,
	   t.failed ? ": " : "", t.why);
	ok(!t.unordered, "...the same verdicts in the same order for 4 shuffles each, NICs copied (%d differ)",
	   t.unordered);
	ok(t.kinds[AT_PEER] > 50 && t.kinds[AT_HOST] > 50 && t.kinds[AT_SELF] > 50 && t.kinds[AT_SWITCH] > 50 &&
	   t.kinds[AT_LINK] > 50, "...every kind was given: peer %ld, host %ld, self %ld, switch %ld, link %ld",
	   t.kinds[AT_PEER], t.kinds[AT_HOST], t.kinds[AT_SELF], t.kinds[AT_SWITCH], t.kinds[AT_LINK]);
}

static void test_names(void)
{
	is_str(attrib_kind_name(AT_PEER), "peer", "kind names: peer");
	is_str(attrib_kind_name(AT_HOST), "host", "...host");
	is_str(attrib_kind_name(AT_SELF), "self", "...self");
	is_str(attrib_kind_name(AT_SWITCH), "switch", "...switch");
	is_str(attrib_kind_name(AT_LINK), "link", "...link");
}

int main(void)
{
	printf("1..%d\n", PLAN);
	test_rules();
	test_thresholds();
	test_random();
	test_names();
	if (tap_n != PLAN)
		printf("# planned %d checks, ran %d\n", PLAN, tap_n);
	return tap_failed || tap_n != PLAN;
}
