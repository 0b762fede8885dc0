/*
 * The exposition of an agent's state (mesh_metrics.h): a table of links
 * found through a hash of their four names, the alerts' two sets, and
 * the families as rows of data rendered by one loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog/mesh/mesh_metrics.h"

struct mm_link {
	char local_host[MESH_NAME_LEN], local_nic[MESH_NAME_LEN];
	char peer_host[MESH_NAME_LEN], peer_nic[MESH_NAME_LEN];
	int rail;
	enum mesh_tier tier;
	uint64_t sent, answered, lost, restarted, late;         /* cumulative */
	double loss, rtt_us[4];                                 /* last window */
	double bad;                                             /* last window: 0 or 1 */
	uint64_t peer_epoch;
};

struct mm_alert {
	char *kind, *where;
};

struct mm_alerts {
	struct mm_alert *a;
	int n;
};

struct mesh_metrics {
	char host[MESH_NAME_LEN], version[64];
	uint64_t epoch;
	double window_s;
	bool hw_stamps;
	struct mesh_thresholds thr;
	struct mm_link *links;
	int nlinks, alloc, max_links;
	int *slots;                     /* link index + 1, 0 empty; nslots a power of 2 */
	int nslots;
	struct mm_alerts active, staged;
	int max_alerts;
	uint64_t windows, links_dropped, alerts_dropped;
};

/* --- the buffer --- */

static int mbuf_grow(struct mesh_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	while (cap < need)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = realloc(b->p, cap);
	if (!p)
		return b->err = -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

void mbuf_printf(struct mesh_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || mbuf_grow(b, b->len + (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void mbuf_reset(struct mesh_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->p)
		b->p[0] = '\0';
}

void mbuf_free(struct mesh_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* sep name="v", v's \ " and newline escaped (both formats). */
static void mbuf_label(struct mesh_buf *b, const char *sep, const char *name, const char *v)
{
	mbuf_printf(b, "%s%s=\"", sep, name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			mbuf_printf(b, "\\%c", *v);
		else if (*v == '\n')
			mbuf_printf(b, "\\n");
		else
			mbuf_printf(b, "%c", *v);
	}
	mbuf_printf(b, "\"");
}

const char *mm_double_text(char *s, size_t n, double v)
{
	int prec;

	if (isnan(v) || isinf(v)) {
		snprintf(s, n, "%s", isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
		return s;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(s, n, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			return s;
	}
	snprintf(s, n, "%.17g", v);
	return s;
}

static void mbuf_double(struct mesh_buf *b, double v)
{
	char s[40];

	mbuf_printf(b, "%s", mm_double_text(s, sizeof(s), v));
}

/* --- the state --- */

bool mm_rec_bad(const struct mesh_window_rec *r, const struct mesh_thresholds *t)
{
	return r->loss > t->max_loss || (!isnan(r->rtt_p99_us) && r->rtt_p99_us > t->max_p99_us);
}

const char *mm_tier_name(enum mesh_tier t)
{
	return t == TIER_SWITCH ? "switch" : "cross";
}

static void copy_name(char *dst, const char *src, size_t n)
{
	snprintf(dst, n, "%s", src ? src : "");
}

struct mesh_metrics *mm_new(const struct mesh_agent_info *ai, int max_links, int max_alerts)
{
	struct mesh_metrics *m;

	if (max_links < 1 || max_alerts < 1)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	copy_name(m->host, ai->host, sizeof(m->host));
	copy_name(m->version, ai->version, sizeof(m->version));
	m->epoch = ai->epoch;
	m->window_s = ai->window_s;
	m->hw_stamps = ai->hw_stamps;
	m->thr = ai->thr;
	m->max_links = max_links;
	m->max_alerts = max_alerts;
	return m;
}

static void alerts_clear(struct mm_alerts *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->a[i].kind);
		free(s->a[i].where);
	}
	free(s->a);
	s->a = NULL;
	s->n = 0;
}

void mm_free(struct mesh_metrics *m)
{
	if (!m)
		return;
	alerts_clear(&m->active);
	alerts_clear(&m->staged);
	free(m->links);
	free(m->slots);
	free(m);
}

static uint32_t fnv(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ 0xff) * 16777619u;          /* a separator: "ab","c" != "a","bc" */
}

static uint32_t key_hash(const char *lh, const char *ln, const char *ph, const char *pn)
{
	return fnv(fnv(fnv(fnv(2166136261u, lh), ln), ph), pn);
}

static bool key_is(const struct mm_link *l, const struct mesh_window_rec *r)
{
	return !strcmp(l->local_host, r->local->host) && !strcmp(l->local_nic, r->local->nic) &&
	       !strcmp(l->peer_host, r->peer->host) && !strcmp(l->peer_nic, r->peer->nic);
}

/* The slot of r's link, or of the empty slot where it would go. */
static int *slot_of(const struct mesh_metrics *m, const struct mesh_window_rec *r)
{
	uint32_t i = key_hash(r->local->host, r->local->nic, r->peer->host, r->peer->nic);

	for (;; i++) {
		int *s = &m->slots[i & (uint32_t)(m->nslots - 1)];

		if (!*s || key_is(&m->links[*s - 1], r))
			return s;
	}
}

static void slot_put(struct mesh_metrics *m, int idx)
{
	const struct mm_link *l = &m->links[idx];
	uint32_t i = key_hash(l->local_host, l->local_nic, l->peer_host, l->peer_nic);

	while (m->slots[i & (uint32_t)(m->nslots - 1)])
		i++;
	m->slots[i & (uint32_t)(m->nslots - 1)] = idx + 1;
}

/* Room for one more link: the table doubles (up to max_links), the hash
 * keeps at least half its slots empty. */
static int links_grow(struct mesh_metrics *m)
{
	int alloc = m->alloc ? m->alloc * 2 : 64, nslots = 1;
	struct mm_link *l;
	int *s;

	if (alloc > m->max_links)
		alloc = m->max_links;
	while (nslots < 2 * alloc)
		nslots *= 2;
	l = realloc(m->links, (size_t)alloc * sizeof(*l));
	if (!l)
		return -ENOMEM;
	m->links = l;
	s = calloc((size_t)nslots, sizeof(*s));
	if (!s)
		return -ENOMEM;
	free(m->slots);
	m->slots = s;
	m->nslots = nslots;
	m->alloc = alloc;
	for (int i = 0; i < m->nlinks; i++)
		slot_put(m, i);
	return 0;
}

static struct mm_link *link_add(struct mesh_metrics *m, const struct mesh_window_rec *r)
{
	struct mm_link *l;

	if (m->nlinks == m->alloc && links_grow(m))
		return NULL;
	l = &m->links[m->nlinks];
	memset(l, 0, sizeof(*l));
	copy_name(l->local_host, r->local->host, sizeof(l->local_host));
	copy_name(l->local_nic, r->local->nic, sizeof(l->local_nic));
	copy_name(l->peer_host, r->peer->host, sizeof(l->peer_host));
	copy_name(l->peer_nic, r->peer->nic, sizeof(l->peer_nic));
	l->rail = r->local->rail;
	slot_put(m, m->nlinks++);
	return l;
}

int mm_window(struct mesh_metrics *m, const struct mesh_window_rec *r)
{
	struct mm_link *l = NULL;
	int *s = m->nslots ? slot_of(m, r) : NULL;

	if (s && *s)
		l = &m->links[*s - 1];
	else if (m->nlinks == m->max_links)
		return m->links_dropped++, -ENOSPC;
	else if (!(l = link_add(m, r)))
		return -ENOMEM;
	l->tier = r->tier;
	l->sent += r->sent;
	l->answered += r->answered;
	l->lost += r->lost;
	l->restarted += r->restarted;
	l->late += r->late;
	l->loss = r->loss;
	l->rtt_us[0] = r->rtt_p50_us;
	l->rtt_us[1] = r->rtt_p90_us;
	l->rtt_us[2] = r->rtt_p99_us;
	l->rtt_us[3] = r->rtt_max_us;
	l->bad = mm_rec_bad(r, &m->thr);
	l->peer_epoch = r->peer_epoch;
	return 0;
}

int mm_alert(struct mesh_metrics *m, const char *kind, const char *where)
{
	struct mm_alerts *s = &m->staged;
	struct mm_alert *a;

	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->a[i].kind, kind) && !strcmp(s->a[i].where, where))
			return 0;
	if (s->n == m->max_alerts)
		return m->alerts_dropped++, -ENOSPC;
	a = realloc(s->a, (size_t)(s->n + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	s->a = a;
	a[s->n].kind = strdup(kind);
	a[s->n].where = strdup(where);
	if (!a[s->n].kind || !a[s->n].where) {
		free(a[s->n].kind);
		free(a[s->n].where);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

void mm_flush(struct mesh_metrics *m)
{
	alerts_clear(&m->active);
	m->active = m->staged;
	m->staged.a = NULL;
	m->staged.n = 0;
	m->windows++;
}

uint64_t mm_links_dropped(const struct mesh_metrics *m)
{
	return m->links_dropped;
}

uint64_t mm_alerts_dropped(const struct mesh_metrics *m)
{
	return m->alerts_dropped;
}

int mm_links(const struct mesh_metrics *m)
{
	return m->nlinks;
}

/* --- rendering: one row per family --- */

struct mm_family;
typedef void mm_emit_fn(struct mesh_buf *b, const struct mesh_metrics *m,
			const struct mm_family *f, const char *sample);

struct mm_family {
	const char *name;               /* without _total */
	const char *type, *unit, *help;
	mm_emit_fn *emit;
	size_t off;                     /* in struct mm_link (the per-link emitters) */
};

/* "sample{labels" of a link's series (the caller closes the brace) */
static void link_series(struct mesh_buf *b, const char *sample, const struct mm_link *l)
{
	mbuf_label(b, sample, "{local_host", l->local_host);
	mbuf_label(b, ",", "local_nic", l->local_nic);
	mbuf_label(b, ",", "peer_host", l->peer_host);
	mbuf_label(b, ",", "peer_nic", l->peer_nic);
	mbuf_printf(b, ",rail=\"%d\",tier=\"%s\"", l->rail, mm_tier_name(l->tier));
}

static void emit_link_u64(struct mesh_buf *b, const struct mesh_metrics *m,
			  const struct mm_family *f, const char *sample)
{
	for (int i = 0; i < m->nlinks; i++) {
		const struct mm_link *l = &m->links[i];

		link_series(b, sample, l);
		mbuf_printf(b, "} %" PRIu64 "\n", *(const uint64_t *)((const char *)l + f->off));
	}
}

static void emit_link_double(struct mesh_buf *b, const struct mesh_metrics *m,
			     const struct mm_family *f, const char *sample)
{
	for (int i = 0; i < m->nlinks; i++) {
		const struct mm_link *l = &m->links[i];

		link_series(b, sample, l);
		mbuf_printf(b, "} ");
		mbuf_double(b, *(const double *)((const char *)l + f->off));
		mbuf_printf(b, "\n");
	}
}

static void emit_rtt(struct mesh_buf *b, const struct mesh_metrics *m,
		     const struct mm_family *f, const char *sample)
{
	static const char *const q[4] = { "0.5", "0.9", "0.99", "1" };

	for (int i = 0; i < m->nlinks; i++) {
		const struct mm_link *l = &m->links[i];

		for (int k = 0; k < 4 && !isnan(l->rtt_us[k]); k++) {
			link_series(b, sample, l);
			mbuf_printf(b, ",quantile=\"%s\"} ", q[k]);
			mbuf_double(b, l->rtt_us[k] / 1e6);    /* 30 us: 3e-05 exactly */
			mbuf_printf(b, "\n");
		}
	}
}

static void emit_alerts(struct mesh_buf *b, const struct mesh_metrics *m,
			const struct mm_family *f, const char *sample)
{
	for (int i = 0; i < m->active.n; i++) {
		mbuf_label(b, sample, "{kind", m->active.a[i].kind);
		mbuf_label(b, ",", "where", m->active.a[i].where);
		mbuf_printf(b, "} 1\n");
	}
}

static void emit_info(struct mesh_buf *b, const struct mesh_metrics *m,
		      const struct mm_family *f, const char *sample)
{
	mbuf_label(b, sample, "{host", m->host);
	mbuf_label(b, ",", "version", m->version);
	mbuf_printf(b, ",epoch=\"%" PRIu64 "\",timestamps=\"%s\"} 1\n", m->epoch,
		    m->hw_stamps ? "hardware" : "software");
}

/* The agent's own numbers: off is in struct mesh_metrics. */
static void emit_agent_u64(struct mesh_buf *b, const struct mesh_metrics *m,
			   const struct mm_family *f, const char *sample)
{
	mbuf_printf(b, "%s %" PRIu64 "\n", sample, *(const uint64_t *)((const char *)m + f->off));
}

static void emit_window_s(struct mesh_buf *b, const struct mesh_metrics *m,
			  const struct mm_family *f, const char *sample)
{
	mbuf_printf(b, "%s ", sample);
	mbuf_double(b, m->window_s);
	mbuf_printf(b, "\n");
}

#define LINK(field) emit_link_u64, offsetof(struct mm_link, field)
#define LINKD(field) emit_link_double, offsetof(struct mm_link, field)
#define AGENT(field) emit_agent_u64, offsetof(struct mesh_metrics, field)

static const struct mm_family families[] = {
	{ "rb_mesh_probes_sent", "counter", NULL, "Probes sent to the peer NIC.", LINK(sent) },
	{ "rb_mesh_probes_answered", "counter", NULL, "Probes answered by the peer NIC.", LINK(answered) },
	{ "rb_mesh_probes_lost", "counter", NULL, "Probes without a reply within the timeout.", LINK(lost) },
	{ "rb_mesh_probes_restarted", "counter", NULL,
	  "Probes sent to a peer agent that restarted (not loss).", LINK(restarted) },
	{ "rb_mesh_probes_late", "counter", NULL, "Replies after their probe was judged lost.", LINK(late) },
	{ "rb_mesh_loss_ratio", "gauge", NULL, "Lost over decided probes, last window.", LINKD(loss) },
	{ "rb_mesh_rtt_seconds", "summary", "seconds",
	  "Round-trip time of the answered probes, last window (quantile 1: the maximum).", emit_rtt, 0 },
	{ "rb_mesh_link_bad", "gauge", NULL, "1 when the last window broke a threshold (loss or p99).",
	  LINKD(bad) },
	{ "rb_mesh_peer_epoch", "gauge", NULL, "The peer agent's epoch (a change: it restarted).",
	  LINK(peer_epoch) },
	{ "rb_mesh_alert", "gauge", NULL, "1 per alert of the last window.", emit_alerts, 0 },
	{ "rb_mesh_agent_info", "gauge", NULL, "The agent: host, version, epoch, timestamps.", emit_info, 0 },
	{ "rb_mesh_windows", "counter", NULL, "Windows closed.", AGENT(windows) },
	{ "rb_mesh_window_seconds", "gauge", "seconds", "The window length.", emit_window_s, 0 },
	{ "rb_mesh_links_dropped", "counter", NULL,
	  "Window records of links beyond the table's capacity (not exported).", AGENT(links_dropped) },
	{ "rb_mesh_alerts_dropped", "counter", NULL,
	  "Alerts beyond the capacity of a window (not exported).", AGENT(alerts_dropped) },
};

static void render_family(const struct mesh_metrics *m, const struct mm_family *f, bool om,
			  struct mesh_buf *b)
{
	bool counter = !strcmp(f->type, "counter");
	char sample[96];

	snprintf(sample, sizeof(sample), "%s%s", f->name, counter ? "_total" : "");
	mbuf_printf(b, "# HELP %s %s\n", om ? f->name : sample, f->help);
	mbuf_printf(b, "# TYPE %s %s\n", om ? f->name : sample, f->type);
	if (om && f->unit)
		mbuf_printf(b, "# UNIT %s %s\n", f->name, f->unit);
	f->emit(b, m, f, sample);
}

int mm_render(const struct mesh_metrics *m, enum mm_format fmt, struct mesh_buf *b)
{
	bool om = fmt == MM_OPENMETRICS;

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		render_family(m, &families[i], om, b);
	if (om)
		mbuf_printf(b, "# EOF\n");
	return b->err;
}
