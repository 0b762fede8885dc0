#include "prog/mpi/mpi_verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The reasons so far: their text (cut to n bytes) and whether there is one. */
struct why {
	char *buf;
	size_t n;
	bool any;
};

/* Append one reason ("; " between them); never overflows, and counts even
 * when no byte of it fits. */
static void reason(struct why *w, const char *fmt, ...)
{
	char *why = w->buf;
	size_t n = w->n, used = strlen(why);
	va_list ap;

	w->any = true;
	if (used + 3 >= n)
		return;
	if (used)
		used += (size_t)snprintf(why + used, n - used, "; ");
	va_start(ap, fmt);
	vsnprintf(why + used, n - used, fmt, ap);
	va_end(ap);
}

static bool set(double x)
{
	return x > 0 && !isnan(x);
}

/* The ends: opened, alike, and as the thresholds ask. */
static void ends_check(const struct check_thr *t, const struct check_end *s,
		       const struct check_end *d, struct why *w)
{
	const struct check_end *e[2] = { s, d };

	for (int i = 0; i < 2; i++)
		if (!e[i]->ok)
			reason(w, "%s %s: %s", i ? "dst" : "src", e[i]->dev, e[i]->why);
	if (!s->ok || !d->ok)
		return;
	if (s->active_mtu != d->active_mtu)
		reason(w, "active MTU %d (src %s) vs %d (dst %s)", s->active_mtu, s->dev,
		       d->active_mtu, d->dev);
	for (int i = 0; i < 2 && t->mtu; i++)
		if (e[i]->active_mtu != t->mtu)
			reason(w, "%s %s: active MTU %d, not %d", i ? "dst" : "src", e[i]->dev,
			       e[i]->active_mtu, t->mtu);
	if (s->ib_link != d->ib_link)
		reason(w, "link layer %s (src) vs %s (dst)", s->ib_link ? "InfiniBand" : "Ethernet",
		       d->ib_link ? "InfiniBand" : "Ethernet");
	else if (s->gid_type != d->gid_type)
		reason(w, "GID type %s (src %s) vs %s (dst %s)", gid_type_name(s->gid_type), s->dev,
		       gid_type_name(d->gid_type), d->dev);
	for (int i = 0; i < 2 && t->gid_type; i++)
		if ((int)e[i]->gid_type + 1 != t->gid_type)
			reason(w, "%s %s: GID type %s, not %s", i ? "dst" : "src", e[i]->dev,
			       gid_type_name(e[i]->gid_type), gid_type_name((enum gid_type)(t->gid_type - 1)));
}

static void run_check(const struct check_run *r, const char *what, struct why *w)
{
	if (!r->ran)
		reason(w, "%s: not measured", what);
	else if (!r->ok)
		reason(w, "%s failed: %s", what, r->cause && *r->cause ? r->cause : "no cause given");
}

bool check_verdict(const struct check_thr *t, const struct check_end *src,
		   const struct check_end *dst, const struct check_link *l, char *why, size_t n)
{
	struct why w = { why, n, false };

	if (!n)
		return false;
	why[0] = '\0';
	ends_check(t, src, dst, &w);
	run_check(&l->lat, "latency", &w);
	run_check(&l->bw, "bandwidth", &w);
	if (l->lat.ok && set(t->max_p99_us) && !(l->p99_us <= t->max_p99_us))
		reason(&w, "p99 latency %.2f us > %.2f", l->p99_us, t->max_p99_us);
	if (l->bw.ok && set(t->min_bw_mibps) && !(l->bw_mibps >= t->min_bw_mibps))
		reason(&w, "bandwidth %.1f MiB/s < %.1f", l->bw_mibps, t->min_bw_mibps);
	return !w.any;
}

int check_gid_type_parse(const char *s)
{
	static const struct { const char *name; enum gid_type t; } names[] = {
		{ "RoCE v2", GID_TYPE_ROCE_V2 }, { "v2", GID_TYPE_ROCE_V2 }, { "2", GID_TYPE_ROCE_V2 },
		{ "RoCE v1", GID_TYPE_ROCE_V1 }, { "v1", GID_TYPE_ROCE_V1 }, { "1", GID_TYPE_ROCE_V1 },
		{ "IB", GID_TYPE_IB },
	};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name))
			return (int)names[i].t + 1;
	return -1;
}

/* Two ends alike in what a rail's ends must share. */
static bool same_config(const struct check_end *a, const struct check_end *b)
{
	if (!a->ok || !b->ok)
		return a->ok == b->ok;
	return a->active_mtu == b->active_mtu && a->gid_type == b->gid_type && a->ib_link == b->ib_link;
}

int check_odd_ends(const struct check_end *ends, int n, bool *odd, struct check_end *common)
{
	int best = -1, best_count = 0, nodd = 0;

	/* Boyer-Moore's vote, then a count: the only candidate for a strict majority */
	for (int i = 0, votes = 0; i < n; i++) {
		if (votes == 0)
			best = i;
		votes += same_config(&ends[i], &ends[best]) ? 1 : -1;
	}
	for (int i = 0; i < n && best >= 0; i++)
		best_count += same_config(&ends[i], &ends[best]);
	for (int i = 0; i < n; i++)
		odd[i] = false;
	if (best < 0 || 2 * best_count <= n)
		return 0;
	for (int i = 0; i < n; i++)
		nodd += odd[i] = !same_config(&ends[i], &ends[best]);
	if (common)
		*common = ends[best];
	return nodd;
}

void check_odd_why(const struct check_end *e, const struct check_end *m, char *buf, size_t n)
{
	struct why w = { buf, n, false };

	if (!n)
		return;
	buf[0] = '\0';
	if (!e->ok) {
		reason(&w, "not opened: %s", e->why);
		return;
	}
	if (!m->ok) {
		reason(&w, "opened where the others could not be");
		return;
	}
	if (e->active_mtu != m->active_mtu)
		reason(&w, "active MTU %d (the others %d)", e->active_mtu, m->active_mtu);
	if (e->gid_type != m->gid_type)
		reason(&w, "GID type %s (the others %s)", gid_type_name(e->gid_type), gid_type_name(m->gid_type));
	if (e->ib_link != m->ib_link)
		reason(&w, "link layer %s (the others %s)", e->ib_link ? "InfiniBand" : "Ethernet",
		       m->ib_link ? "InfiniBand" : "Ethernet");
}
