/*
 * From the options to connected QPs, and back: the device (-R: rdma_cm's),
 * placement, buffers and QPs of the session or (-j) of each thread, the
 * outstanding reads agreed, the QPs connected; teardown in reverse order.
 */
#include "config.h"

#include "driver/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/loadrun.h"
#include "driver/threads.h"
#include "engine/loops.h"
#include "lib/log.h"
#include "session/cm.h"
#include "session/hello.h"
#include "verbs/mcast.h"

/* -W: the local port's counters, now. */
int counters_now(const struct rb_session *s, uint64_t *val)
{
	return counters_read("", s->conn.dev.name, s->conn.dev.port, &s->opt->counters, val);
}

void session_timing(struct rb_session *s)
{
	const struct rb_options *o = s->opt;

	bool timed = o->duration_s > 0 || o->run_infinitely;

	s->run.iters = timed ? 0 : o->iters;
	s->run.warmup_iters = timed ? 0 : o->warmup_iters;
	s->run.duration_ns = o->run_infinitely ? UINT64_MAX / 2 : (uint64_t)(o->duration_s * 1e9);
	s->run.warmup_ns = (uint64_t)(o->warmup_s * 1e9);
#ifdef RB_TEST_DELAY
	if (getenv("RB_TEST_DELAY_NS"))
		s->test.delay_ns = strtoull(getenv("RB_TEST_DELAY_NS"), NULL, 10);
	if (getenv("RB_TEST_START_DELAY_NS"))
		s->test.start_delay_ns = strtoull(getenv("RB_TEST_START_DELAY_NS"), NULL, 10);
	if (getenv("RB_TEST_REPOST_DELAY_NS"))
		s->test.repost_delay_ns = strtoull(getenv("RB_TEST_REPOST_DELAY_NS"), NULL, 10);
	if (getenv("RB_TEST_HEARTBEAT_DELAY_NS"))
		s->test.heartbeat_delay_ns = strtoull(getenv("RB_TEST_HEARTBEAT_DELAY_NS"), NULL, 10);
#endif
}

static struct wire_rd_offer rd_offer_mine(const struct rb_session *s)
{
	return (struct wire_rd_offer){ .asked = s->opt->outs,
				       .rd_atom = (uint64_t)s->conn.dev.attr.max_qp_rd_atom,
				       .init_rd_atom = (uint64_t)s->conn.dev.attr.max_qp_init_rd_atom };
}

/*
 * Outstanding reads/atomics: the smallest of both sides' -o and device
 * limits (under -R the peer's device is not known yet: rdma_cm's connect
 * request and reply carry the rest, see cm.c).  Nothing lowered in silence.
 */
static void session_outs(struct rb_session *s)
{
	const struct wire_rd_offer mine = rd_offer_mine(s), *peer = &s->conn.peer_rd;

	s->conn.q.outs = wire_rd_depth(&mine, peer);
	log_verbose("outstanding reads/atomics: %u (-o %llu/%llu, max_qp_rd_atom %llu/%llu, max_qp_init_rd_atom %llu/%llu: this side/the peer, 0: none or not known)",
		    s->conn.q.outs, (unsigned long long)mine.asked, (unsigned long long)peer->asked,
		    (unsigned long long)mine.rd_atom, (unsigned long long)peer->rd_atom,
		    (unsigned long long)mine.init_rd_atom, (unsigned long long)peer->init_rd_atom);
	if (s->opt->outs > s->conn.q.outs)
		log_warn("-o/--outs %u is more than both sides allow (this device: max_qp_rd_atom %llu, max_qp_init_rd_atom %llu; the peer: -o %llu, %llu, %llu); using %u",
			 s->opt->outs, (unsigned long long)mine.rd_atom, (unsigned long long)mine.init_rd_atom,
			 (unsigned long long)peer->asked, (unsigned long long)peer->rd_atom,
			 (unsigned long long)peer->init_rd_atom, s->conn.q.outs);
}

/* The CPU, buffers and QPs of a session that measures (a thread's: -j,
 * avoiding its siblings' CPUs). */
static int setup_measuring(struct rb_session *s, const cpu_set_t *avoid)
{
	const struct rb_options *o = s->opt;
	const cpu_set_t *link_avoid = s->link ? s->link->avoid : NULL;
	struct rb_conn *c = &s->conn;
	int err = s->halt ? threads_place(s, avoid) : placement_apply(c->dev.numa_node, o->numa_node,
				o->no_numa, o->cpu_list, s->is_client, link_avoid, &c->place);

	if (err)
		return err;
	if (s->halt)
		log_verbose("thread %d: placement: %s", s->thread, c->place.note);
	else
		log_verbose("placement: %s", c->place.note);
	err = qps_create(&c->q, c->dev.ctx, s->bench, o, session_last_size(o, 0), &c->place,
			 !o->rdma_cm);
	if (err)
		return err;
	c->q.mtu_ask = hello_mtu((uint64_t)o->mtu, c->peer_mtu);
	if (c->q.mtu_ask != (unsigned)o->mtu)
		log_verbose("-m/--mtu: the peer gives %u, this side %d: both use %u", (unsigned)c->peer_mtu,
			    o->mtu, c->q.mtu_ask);
	/* numa_maps lines start with this address: tests find the mapping by it */
	log_verbose("buffers: %zu bytes at %lx on node %d", c->q.buf.len,
		    (unsigned long)(uintptr_t)c->q.buf.addr, c->q.buf.node);
	session_outs(s);
	return 0;
}

/* -j: the main thread measures nothing; each thread's session is set up
 * here, one after another. */
static int setup_threads(struct rb_session *s)
{
	struct rb_threads *T = calloc(1, sizeof(*T));
	cpu_set_t taken;
	int err;

	CPU_ZERO(&taken);
	memset(&s->conn.place, 0, sizeof(s->conn.place));
	s->conn.place.cpu = -1;
	cpuclaim_init(&s->conn.place.claim);
	if (!T)
		return -ENOMEM;
	s->team = &T->team;
	err = threads_open(T, s, (int)s->opt->threads);
	for (int i = 0; !err && i < T->n; i++) {
		err = setup_measuring(&T->t[i].s, &taken);
		if (T->t[i].s.conn.place.cpu >= 0)
			CPU_SET(T->t[i].s.conn.place.cpu, &taken);
	}
	if (!err)
		threads_describe(T);
	return err;
}

/*
 * -L on RoCE: the kernel resolves a RoCE address vector through the IP
 * route to the peer and puts the route's hop limit in it
 * (ib_resolve_unicast_gid_dmac, for QPs and address handles alike),
 * whatever the verbs asked; so -L is InfiniBand's (the GRH), as perftest
 * takes -L on raw Ethernet only.
 */
static int check_hop_limit(const struct rb_options *o, const struct rb_device *d)
{
	if (!o->hop_limit_given || d->ib_link)
		return 0;
	log_err("-L/--hop_limit %d: on RoCE (%s port %d is Ethernet) the kernel takes the hop limit (the IP TTL) from the route to the peer, whatever the QP asks",
		o->hop_limit, d->name, d->port);
	log_info("set it on the route (ip route ... hoplimit N, or sysctl net.ipv4.ip_default_ttl) and drop -L");
	return -EINVAL;
}

int setup_device(struct rb_session *s)
{
	const struct rb_options *o = s->opt;
	uint64_t scratch[RB_MAX_COUNTERS];
	int err;

	err = o->rdma_cm ? cm_open(s) : 0;
	if (err)
		return err;
	log_verbose("device %s port %d GID index %d (%s)", s->conn.dev.name, s->conn.dev.port,
		    s->conn.dev.gid.index, s->conn.dev.gid_why);
	err = o->rdma_cm ? check_hop_limit(o, &s->conn.dev) : 0;
	if (err)
		return err;
	err = counters_now(s, scratch);
	if (err)
		return err;
	err = o->threads > 1 ? setup_threads(s) : setup_measuring(s, NULL);
	if (err)
		return err;
	return o->rdma_cm ? cm_connect(s) : 0;
}

int check_atomics(const struct rb_session *s)
{
	if (s->bench->verb != VERB_ATOMIC || s->conn.dev.attr.atomic_cap != IBV_ATOMIC_NONE)
		return 0;
	log_err("device %s does not support atomic operations (atomic_cap is NONE)", s->conn.dev.name);
	return -EOPNOTSUPP;
}

/* A link made to fail, for tests (rb_mpi_faults): its first work request
 * completes in error (flushed), as after a fault on the path. */
static void qps_break(struct rb_session *s)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	for (int i = 0; i < s->conn.q.n; i++)
		ibv_modify_qp(s->conn.q.qp[i], &attr, IBV_QP_STATE);
}

/* -j: each thread's QPs over the session's channel, thread by thread; then
 * each thread talks through its own channel (threads.h). */
static int connect_threads(struct rb_session *s)
{
	struct rb_threads *T = s->team->run;
	int err = 0;

	for (int i = 0; i < T->n && !err; i++) {
		err = connect_qps(&T->t[i].s);
		T->t[i].s.conn.chan = &T->t[i].chan;
	}
	return err;
}

/* -g: the side whose QPs join the group: send_bw's server, both sides
 * of send_lat (verbs/mcast.h). */
static bool mcast_receives(const struct rb_session *s)
{
	return s->bench->metric == METRIC_LAT || !s->is_client;
}

int connect_qps(struct rb_session *s)
{
	int err;

	if (s->team)
		return connect_threads(s);
	err = s->opt->mcg ? mcast_open(&s->conn.q, &s->conn.dev, s->opt, mcast_receives(s),
				       s->is_client && s->bench->metric == METRIC_LAT) : 0;
	if (err)
		return err;
	qps_describe(&s->conn.q, &s->conn.dev);
	err = exchange_qps(s);
	if (!err && !s->opt->rdma_cm)
		err = qps_connect(&s->conn.q, &s->conn.dev, s->opt, s->bench);
	if (!err)
		err = qps_rate_limit(&s->conn.q, &s->conn.dev, s->opt);
	if (!err)
		err = qps_read_attrs(&s->conn.q, s->opt);
	if (!err && s->link && s->link->test_break_qp)
		qps_break(s);
	return err;
}

/* -j: the threads' verbs objects, the last thread's first. */
static void threads_teardown(struct rb_session *s)
{
	struct rb_threads *T = s->team->run;

	for (int i = T->t ? T->n - 1 : -1; i >= 0; i--) {
		qps_destroy(&T->t[i].s.conn.q);
		placement_release(&T->t[i].s.conn.place);
	}
	threads_close(T);
	free(T);
	s->team = NULL;
}

/*
 * --wait_destroy: perftest's wait before its teardown (destroy_ctx), so
 * that the QPs, CQs and MRs can be looked at (rdma resource show) after
 * the results; SIGINT/SIGTERM end it.  The session a program runs, not
 * those it embeds (a load, rb_mpi's links).
 */
static void teardown_wait(const struct rb_session *s)
{
	double left = s->opt->wait_destroy_s;

	if (left <= 0 || s->link || (!s->conn.q.qp && !s->team) || *s->stop)
		return;
	log_info("--wait_destroy: waiting %g s before destroying the resources", left);
	for (; left > 0 && !*s->stop; left -= 0.1)
		usleep((useconds_t)((left < 0.1 ? left : 0.1) * 1e6));
}

void session_teardown(struct rb_session *s)
{
	teardown_wait(s);
	if (s->team)
		threads_teardown(s);
	loadrun_close(s);
	if (s->conn.cm)
		cm_close(s);
	validate_free(s);
	qps_destroy(&s->conn.q);
	device_close(&s->conn.dev);
	placement_release(&s->conn.place);
}

/*
 * What can fail without the peer fails before it is reached: the -H and
 * --raw files, the device, port and GID index, the -W counters (-R:
 * rdma_cm picks the device later).  The device stays open in d.
 */
int check_local(const struct rb_session *s, struct rb_device *d)
{
	const struct rb_options *o = s->opt;
	uint64_t scratch[RB_MAX_COUNTERS];
	int err = report_check_files(s);

	if (err || o->rdma_cm)
		return err;
	err = device_open(o->ib_dev, o->ib_port, o->gid_index, d);
	if (!err)
		err = check_hop_limit(o, d);
	if (!err)
		err = counters_read("", d->name, d->port, &o->counters, scratch);
	if (!err)
		err = device_check_pacing(d, o);
	return err;
}
