/* The watch agent's loop: see mesh_agent.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "prog/mesh/mesh_agent.h"
#include "prog/mesh/mesh_peer.h"
#include "prog/mesh/mesh_sink.h"
#include "prog/mesh/mesh_ud.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define MAX_SINKS 3
#define TICK_NS 10000000ull             /* 10 ms */

struct agent {
	const struct mesh_watch_opts *o;
	struct pinglist pl;
	struct mesh_agent_info info;
	struct rdma_event_channel *ch;
	struct mesh_ud **ud;            /* one a local NIC (pl.local[i]) */
	struct mesh_peer *peers;        /* every local NIC's peers, in order */
	int npeers;
	struct mesh_sink sink[MAX_SINKS];
	int nsinks;
	uint64_t window_ns, tick_ns, win_start, win_no;
	double win_start_real;
	struct mesh_window_rec *recs;   /* one window's records (npeers) */
	struct attrib_link *links;
	struct attrib_verdict *verdicts;
};

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t new_epoch(void)
{
	uint64_t e = 0;

	while (!e)
		if (getrandom(&e, sizeof(e), 0) != sizeof(e))
			e = clock_monotonic_ns() ^ ((uint64_t)getpid() << 32);
	return e;
}

static int open_sinks(struct agent *a)
{
	const struct mesh_watch_opts *o = a->o;
	char why[256];
	int err = 0;

	if (!err && o->listen)
		err = mesh_http_open(&a->sink[a->nsinks++], o->listen, &a->info, why, sizeof(why));
	if (!err && o->textfile)
		err = mesh_textfile_open(&a->sink[a->nsinks++], o->textfile, &a->info, why, sizeof(why));
	if (!err && (o->jsonl || !a->nsinks))
		err = mesh_jsonl_open(&a->sink[a->nsinks++], o->jsonl ? o->jsonl : "-", &a->info, why,
				      sizeof(why));
	if (err) {
		a->nsinks--;
		log_err("%s", why);
	}
	return err;
}

static int open_nics(struct agent *a)
{
	char why[256];

	a->ud = calloc((size_t)a->pl.nlocal, sizeof(*a->ud));
	if (!a->ud)
		return -ENOMEM;
	for (int i = 0; i < a->pl.nlocal; i++) {
		const struct mesh_nic *n = &a->pl.local[i].nic;
		int err = mud_open(&a->ud[i], a->ch, n, n->port ? n->port : a->o->port, a->info.epoch,
				   2 * a->o->pl.max_peers + 16, why, sizeof(why));

		if (err) {
			log_err("%s", why);
			return err;
		}
	}
	return 0;
}

static double tier_rate(const struct mesh_watch_opts *o, enum mesh_tier t)
{
	return t == TIER_SWITCH ? o->pl.rate_switch : o->pl.rate_cross;
}

/* Peer k of local NIC l: its schedule spread over one period. */
static int init_peer(struct agent *a, struct mesh_peer *p, int l, int k, uint64_t now)
{
	const struct pl_peer *pp = &a->pl.local[l].peers[k];
	double rate = tier_rate(a->o, pp->tier);
	int cap = (int)ceil(rate * a->o->window_s * 1.25) + 8;

	*p = (struct mesh_peer){ .kind = MCM_RESOLVE, .ud = a->ud[l], .pp = pp,
				 .cookie = (uint32_t)(p - a->peers), .my_epoch = a->info.epoch,
				 .port = pp->nic.port ? pp->nic.port : a->o->port,
				 .period_ns = (uint64_t)(1e9 / rate), .active = pp->tier == TIER_SWITCH };
	p->next_send = now + p->period_ns * (uint64_t)k / (uint64_t)(a->pl.local[l].npeers + 1);
	return mw_init(&p->w, now, (uint64_t)(a->o->timeout_ms * 1e6), cap);
}

static int open_peers(struct agent *a, uint64_t now)
{
	int n = 0;

	for (int l = 0; l < a->pl.nlocal; l++)
		n += a->pl.local[l].npeers;
	a->peers = calloc((size_t)n ? (size_t)n : 1, sizeof(*a->peers));
	a->recs = calloc((size_t)n ? (size_t)n : 1, sizeof(*a->recs));
	a->links = calloc((size_t)n ? (size_t)n : 1, sizeof(*a->links));
	a->verdicts = calloc((size_t)n ? (size_t)n : 1, sizeof(*a->verdicts));
	if (!a->peers || !a->recs || !a->links || !a->verdicts)
		return -ENOMEM;
	for (int l = 0; l < a->pl.nlocal; l++)
		for (int k = 0; k < a->pl.local[l].npeers; k++)
			if (init_peer(a, &a->peers[a->npeers++], l, k, now))
				return -ENOMEM;
	return 0;
}

/* The cross peers of this window: pl_cross_sample's, the rest idle. */
static void sample_cross(struct agent *a)
{
	int *idx = calloc((size_t)a->o->pl.cross_peers + 1, sizeof(int));
	struct mesh_peer *p = a->peers;

	for (int l = 0; l < a->pl.nlocal; l++) {
		const struct pl_local *pl = &a->pl.local[l];
		int n = idx ? pl_cross_sample(pl, &a->o->pl, a->win_no, idx) : 0;

		for (int k = pl->nswitch; k < pl->npeers; k++)
			p[k].active = false;
		for (int i = 0; i < n; i++)
			p[idx[i]].active = true;
		p += pl->npeers;
	}
	free(idx);
}

static bool rec_bad(const struct mesh_thresholds *t, const struct mesh_window_rec *r)
{
	return r->loss > t->max_loss || (!isnan(r->rtt_p99_us) && r->rtt_p99_us > t->max_p99_us);
}

/* The window's records: one a peer that was probed or judged in it. */
static int collect(struct agent *a, uint64_t now, double now_real)
{
	int n = 0;

	for (int i = 0; i < a->npeers; i++) {
		struct mesh_peer *p = &a->peers[i];
		struct mesh_window_rec *r = &a->recs[n];

		mw_close(&p->w, now, r);
		if (!r->sent && !r->answered && !r->lost && !r->restarted && !r->late)
			continue;
		r->local = mud_nic(p->ud);
		r->peer = &p->pp->nic;
		r->tier = p->pp->tier;
		r->start_s = a->win_start_real;
		r->end_s = now_real;
		r->hw_stamps = false;
		a->links[n] = (struct attrib_link){ r->local, r->peer, rec_bad(&a->o->thr, r), r->loss,
						    r->rtt_p99_us };
		n++;
	}
	return n;
}

static void alert_where(const struct attrib_verdict *v, char *buf, size_t len)
{
	switch (v->kind) {
	case AT_SWITCH:
		snprintf(buf, len, "%s-%s", v->sw_a, v->sw_b);
		break;
	case AT_HOST:
		snprintf(buf, len, "%s", v->nic->host);
		break;
	case AT_LINK:
		snprintf(buf, len, "%s/%s-%s/%s", v->nic->host, v->nic->nic, v->dst->host, v->dst->nic);
		break;
	default:
		snprintf(buf, len, "%s/%s", v->nic->host, v->nic->nic);
	}
}

static void export_window(struct agent *a, int n, double now_real)
{
	char where[2 * MESH_NAME_LEN * 2 + 8];
	int nv = attrib_run(a->links, n, &a->o->at, a->verdicts);

	for (int s = 0; s < a->nsinks; s++)
		for (int i = 0; i < n; i++)
			a->sink[s].window(a->sink[s].ctx, &a->recs[i]);
	for (int i = 0; i < nv; i++) {
		alert_where(&a->verdicts[i], where, sizeof(where));
		log_warn("alert %s %s: %s", attrib_kind_name(a->verdicts[i].kind), where, a->verdicts[i].line);
		for (int s = 0; s < a->nsinks; s++)
			a->sink[s].alert(a->sink[s].ctx, attrib_kind_name(a->verdicts[i].kind), where,
					 a->verdicts[i].line);
	}
	for (int s = 0; s < a->nsinks; s++)
		a->sink[s].flush(a->sink[s].ctx, now_real);
}

static void close_window(struct agent *a, uint64_t now)
{
	double now_real = real_s();

	export_window(a, collect(a, now, now_real), now_real);
	a->win_start = now;
	a->win_start_real = now_real;
	a->win_no++;
	sample_cross(a);
}

static void on_cm_event(struct rdma_cm_event *ev, uint64_t now)
{
	struct rdma_cm_id *req = NULL;
	void *ctx = ev->listen_id ? ev->listen_id->context : ev->id->context;

	if (ctx && *(enum mesh_cm_kind *)ctx == MCM_LISTEN) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			mud_on_request(ctx, ev->id);
			req = ev->id;
		}
	} else if (ctx) {
		mp_on_event(ctx, ev, now);
	}
	rdma_ack_cm_event(ev);
	if (req)
		rdma_destroy_id(req);
}

static void cm_events(struct agent *a, uint64_t now)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(a->ch, &ev))
		on_cm_event(ev, now);
}

static void on_reply(void *ctx, const struct pw_frame *f, uint64_t now)
{
	struct agent *a = ctx;

	if (f->src_epoch != a->info.epoch || f->cookie >= (uint32_t)a->npeers)
		return;                 /* a reply to an earlier run of this agent */
	mp_on_reply(&a->peers[f->cookie], f, now);
}

static void tick(struct agent *a, uint64_t now)
{
	for (int i = 0; i < a->npeers; i++)
		mp_tick(&a->peers[i], a->ch, now);
}

/* Sleep until news on a channel or the next tick. */
static int wait_news(struct agent *a, struct pollfd *fds, uint64_t until)
{
	uint64_t now = clock_monotonic_ns();
	int ms = until > now ? (int)((until - now + 999999) / 1000000) : 0;
	int r = poll(fds, (nfds_t)a->pl.nlocal + 1, ms);

	return r < 0 && errno != EINTR ? -errno : 0;
}

static int drain_nics(struct agent *a)
{
	for (int i = 0; i < a->pl.nlocal; i++)
		if (mud_drain(a->ud[i], on_reply, a) < 0) {
			log_err("%s of %s: its completion queue failed", a->pl.local[i].nic.nic,
				a->pl.local[i].nic.host);
			return -EIO;
		}
	return 0;
}

static int loop(struct agent *a, volatile sig_atomic_t *stop, uint64_t end)
{
	struct pollfd fds[1 + a->pl.nlocal];
	uint64_t next_tick = clock_monotonic_ns();

	fds[0] = (struct pollfd){ .fd = a->ch->fd, .events = POLLIN };
	for (int i = 0; i < a->pl.nlocal; i++)
		fds[1 + i] = (struct pollfd){ .fd = mud_fd(a->ud[i]), .events = POLLIN };
	while (!*stop) {
		uint64_t now = clock_monotonic_ns();

		if (end && now >= end)
			break;
		if (now >= next_tick) {
			tick(a, now);
			next_tick = now + a->tick_ns;
		}
		if (now - a->win_start >= a->window_ns)
			close_window(a, now);
		if (wait_news(a, fds, next_tick) || drain_nics(a))
			return 1;
		cm_events(a, clock_monotonic_ns());
	}
	close_window(a, clock_monotonic_ns());  /* the last one, however short: its start and end say */
	return 0;
}

static uint64_t tick_of(const struct mesh_watch_opts *o)
{
	double fastest = o->pl.rate_switch > o->pl.rate_cross ? o->pl.rate_switch : o->pl.rate_cross;
	uint64_t quarter = (uint64_t)(1e9 / fastest / 4);

	return quarter < TICK_NS ? (quarter ? quarter : 1) : TICK_NS;
}

static int setup(struct agent *a, const struct mesh_watch_opts *o)
{
	char why[256] = "";
	uint64_t now;

	a->o = o;
	if (pl_load(&a->pl, o->pinglist, &o->pl, why, sizeof(why))) {
		log_err("%s", why[0] ? why : "the pinglist: out of memory");
		return -EINVAL;
	}
	a->info = (struct mesh_agent_info){ .epoch = new_epoch(), .window_s = o->window_s,
					    .version = PACKAGE_VERSION, .thr = o->thr };
	snprintf(a->info.host, sizeof(a->info.host), "%s", o->pl.host);
	a->window_ns = (uint64_t)(o->window_s * 1e9);
	a->tick_ns = tick_of(o);
	a->ch = rdma_create_event_channel();
	if (!a->ch || fcntl(a->ch->fd, F_SETFL, fcntl(a->ch->fd, F_GETFL) | O_NONBLOCK)) {
		log_err("rdma_create_event_channel failed: %s (is rdma_ucm loaded?)", strerror(errno));
		return -EIO;
	}
	for (int i = 0; i < a->pl.nlocal; i++)
		if (a->pl.local[i].dropped_peers)
			log_warn("%s of %s: %zu peers over --max-peers %d not probed (kept %d)",
				 a->pl.local[i].nic.nic, o->pl.host, a->pl.local[i].dropped_peers,
				 o->pl.max_peers, a->pl.local[i].npeers);
	if (open_nics(a) || open_sinks(a))
		return -EIO;
	now = clock_monotonic_ns();
	if (open_peers(a, now))
		return -ENOMEM;
	a->win_start = now;
	a->win_start_real = real_s();
	sample_cross(a);
	for (int i = 0; i < a->npeers; i++)      /* the first resolutions spread over 1 s */
		a->peers[i].next_resolve = now + (uint64_t)i * 1000000000ull / (uint64_t)a->npeers;
	return 0;
}

/* In reverse order of creation: peers (their AHs on the NICs' PDs), sinks, NICs, channel. */
static void teardown(struct agent *a)
{
	for (int i = a->npeers - 1; i >= 0; i--)
		mp_free(&a->peers[i]);
	for (int s = a->nsinks - 1; s >= 0; s--)
		a->sink[s].close(a->sink[s].ctx);
	for (int i = a->pl.nlocal - 1; a->ud && i >= 0; i--)
		mud_close(a->ud[i]);
	if (a->ch)
		rdma_destroy_event_channel(a->ch);
	free(a->peers);
	free(a->recs);
	free(a->links);
	free(a->verdicts);
	free(a->ud);
	pl_free(&a->pl);
}

int mesh_watch(const struct mesh_watch_opts *o, volatile sig_atomic_t *stop)
{
	struct agent a = { 0 };
	int rc = 1;

	if (!setup(&a, o)) {
		uint64_t end = o->duration_s > 0 ? a.win_start + (uint64_t)(o->duration_s * 1e9) : 0;

		log_info("watching %d peer NICs from %d local NICs of %s (epoch %016llx), windows of %g s",
			 a.npeers, a.pl.nlocal, a.info.host, (unsigned long long)a.info.epoch, o->window_s);
		rc = loop(&a, stop, end);
	}
	teardown(&a);
	return rc;
}
