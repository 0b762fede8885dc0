#include "driver/threads.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/oob.h"
#include "lib/wire.h"

#define PUMP_TIMEOUT_MS 1000
#define PUMP_END 0xffffu        /* the THREAD frame that ends a size's traffic */
#define PUMP_BUF (WIRE_MAX_PAYLOAD + WIRE_THREAD_HDR)

static void thread_init(struct rb_thread *t, struct rb_threads *T, const struct rb_session *s,
			int i)
{
	t->all = T;
	t->sp[0] = t->sp[1] = -1;
	snprintf(t->label, sizeof(t->label), "%d", i);
	snprintf(t->name, sizeof(t->name), "thread %d", i);
	t->s = *s;
	t->s.team = NULL;
	t->s.thread = i;
	t->s.halt = &T->halt;
	t->s.conn.cm = NULL;
	memset(&t->s.conn.q, 0, sizeof(t->s.conn.q));
	memset(&t->s.conn.place, 0, sizeof(t->s.conn.place));
	t->s.conn.place.cpu = -1;
	cpuclaim_init(&t->s.conn.place.claim);
	t->w = &T->team.w[i];
	*t->w = (struct rb_worker){ .s = &t->s, .cpu_seen = -1, .label = t->label };
}

/* The team's arrays freed (threads_open's failure, threads_close). */
static void threads_free_arrays(struct rb_threads *T)
{
	free(T->t);
	free(T->team.w);
	free(T->buf);
	T->t = NULL;
	T->team.w = NULL;
	T->buf = NULL;
}

int threads_open(struct rb_threads *T, struct rb_session *s, int n)
{
	memset(T, 0, sizeof(*T));
	T->wake[0] = T->wake[1] = -1;
	T->team.run = T;
	T->t = calloc((size_t)n, sizeof(*T->t));
	T->team.w = calloc((size_t)n, sizeof(*T->team.w));
	T->buf = malloc(2 * PUMP_BUF);
	if (!T->t || !T->team.w || !T->buf) {
		threads_free_arrays(T);
		return -ENOMEM;
	}
	T->n = T->team.n = n;
	pthread_mutex_init(&T->lock, NULL);
	pthread_cond_init(&T->cond, NULL);
	for (int i = 0; i < n; i++)
		thread_init(&T->t[i], T, s, i);
	if (pipe2(T->wake, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	for (int i = 0; i < n; i++) {
		struct rb_thread *t = &T->t[i];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, t->sp))
			return -errno;
		oob_chan_tcp(&t->chan, t->sp[0]);
	}
	return 0;
}

int threads_place(struct rb_session *s, const cpu_set_t *avoid)
{
	const struct rb_options *o = s->opt;
	cpu_set_t mine;
	int err;

	if (sched_getaffinity(0, sizeof(mine), &mine))
		return -errno;
	err = placement_apply(s->conn.dev.numa_node, o->numa_node, o->no_numa, o->cpu_list,
			      s->is_client, avoid, &s->conn.place);
	if (sched_setaffinity(0, sizeof(mine), &mine) && !err)
		err = -errno;
	return err;
}

void threads_describe(struct rb_threads *T)
{
	size_t used = 0;

	char *cpus = T->team.cpus;
	size_t len = sizeof(T->team.cpus);

	for (int i = 0; i < T->n && used < len; i++) {
		const struct placement *p = &T->t[i].s.conn.place;

		if (p->cpu >= 0)
			used += (size_t)snprintf(cpus + used, len - used, "%s%d", i ? "," : "", p->cpu);
		else
			used += (size_t)snprintf(cpus + used, len - used, "%s(%s)", i ? "," : "", p->cpus);
	}
}

/* ---- the start gate: every thread pinned and waiting, then all at once ---- */

static int gate_wait(struct rb_threads *T)
{
	int go;

	pthread_mutex_lock(&T->lock);
	T->ready++;
	pthread_cond_broadcast(&T->cond);
	while (!T->go)
		pthread_cond_wait(&T->cond, &T->lock);
	go = T->go;
	pthread_mutex_unlock(&T->lock);
	return go;
}

static void gate_open(struct rb_threads *T, int started, int go)
{
	pthread_mutex_lock(&T->lock);
	while (T->ready < started)
		pthread_cond_wait(&T->cond, &T->lock);
	T->go = go;
	pthread_cond_broadcast(&T->cond);
	pthread_mutex_unlock(&T->lock);
}

static void *thread_main(void *arg)
{
	struct rb_thread *t = arg;
	struct rb_threads *T = t->all;
	char one = 1;

	log_set_thread(t->name);
	if (gate_wait(T) > 0)
		t->err = T->body(&t->s, &t->w->m);
	t->w->cpu_seen = sched_getcpu();
	if (t->err)
		__atomic_store_n(&T->halt, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&T->running, 1, __ATOMIC_SEQ_CST);
	(void)!write(T->wake[1], &one, 1);	/* else the pump looks within 100 ms */
	return NULL;
}

/* Created on its CPU (the attribute), so it never runs elsewhere. */
static int thread_start(struct rb_thread *t)
{
	pthread_attr_t attr;
	cpu_set_t one;
	int err = pthread_attr_init(&attr);

	if (err)
		return -err;
	if (t->s.conn.place.cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(t->s.conn.place.cpu, &one);
		err = pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	}
	if (!err)
		err = pthread_create(&t->tid, &attr, thread_main, t);
	pthread_attr_destroy(&attr);
	t->started = !err;
	if (err)
		log_err("thread %d: starting it on CPU %d failed: %s", t->s.thread,
			t->s.conn.place.cpu, strerror(err));
	return -err;
}

/* ---- the pump: the threads' frames to and from the peer ---- */

/* Thread i's next frame goes to the peer, wrapped. */
static int pump_up(struct rb_threads *T, int i, int tcp)
{
	uint8_t *in = T->buf, *out = T->buf + PUMP_BUF;
	uint16_t type;
	uint32_t len;
	int n, err = oob_recv(T->t[i].sp[1], &type, in, WIRE_MAX_PAYLOAD - WIRE_THREAD_HDR, &len,
			      PUMP_TIMEOUT_MS);

	if (err)
		return err;
	n = wire_thread_encode((uint16_t)i, type, in, len, out, PUMP_BUF);
	return n < 0 ? n : oob_send(tcp, WIRE_THREAD, out, (uint32_t)n, PUMP_TIMEOUT_MS);
}

/* The peer's next frame goes to its thread; 1 for the peer's end mark. */
static int pump_down(struct rb_threads *T, int tcp)
{
	const uint8_t *payload;
	uint16_t t, type;
	uint32_t len, plen;
	int err = oob_expect(tcp, WIRE_THREAD, T->buf, PUMP_BUF, &len, PUMP_TIMEOUT_MS);

	if (!err && wire_thread_decode(T->buf, len, &t, &type, &payload, &plen))
		err = -EPROTO;
	if (!err && t == PUMP_END)
		return 1;
	if (!err && t >= T->n)
		err = -EPROTO;
	if (err == -EPROTO)
		log_err("OOB: the peer sent a malformed THREAD frame");
	return err ? err : oob_send(T->t[t].sp[1], type, payload, plen, PUMP_TIMEOUT_MS);
}

/* The peer is gone: every thread's channel fails, their loops say so. */
static void pump_lost(struct rb_threads *T)
{
	T->peer_lost = true;
	__atomic_store_n(&T->halt, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < T->n; i++)
		shutdown(T->t[i].sp[1], SHUT_RDWR);
}

struct pump {
	int tcp;
	bool peer_ended;            /* the peer's end mark arrived */
	struct pollfd p[RB_MAX_THREADS + 2];
};

/* One poll: forward what is there.  0, or -errno once the peer is lost. */
static int pump_once(struct rb_threads *T, struct pump *pm, int timeout_ms)
{
	int n, err = 0;
	char junk[64];

	pm->p[0] = (struct pollfd){ .fd = T->wake[0], .events = POLLIN };
	pm->p[1] = (struct pollfd){ .fd = pm->peer_ended ? -1 : pm->tcp, .events = POLLIN };
	for (int i = 0; i < T->n; i++)
		pm->p[2 + i] = (struct pollfd){ .fd = T->t[i].sp[1], .events = POLLIN };
	n = poll(pm->p, (nfds_t)T->n + 2, timeout_ms);
	if (n <= 0)
		return n < 0 && errno != EINTR ? -errno : 0;
	while (pm->p[0].revents && read(T->wake[0], junk, sizeof(junk)) > 0)
		;
	for (int i = 0; i < T->n && !err; i++)
		if (pm->p[2 + i].revents)
			err = pump_up(T, i, pm->tcp);
	if (!err && pm->p[1].revents) {
		err = pump_down(T, pm->tcp);
		pm->peer_ended |= err == 1;
		err = err == 1 ? 0 : err;
	}
	return err;
}

/* What the threads left (their last DONE), then this side's end mark. */
static int pump_finish(struct rb_threads *T, struct pump *pm)
{
	uint8_t end[WIRE_THREAD_HDR];
	int err = 0, n;

	for (bool more = true; more && !err;) {
		n = poll(pm->p + 2, (nfds_t)T->n, 0);
		more = n > 0;
		for (int i = 0; more && i < T->n && !err; i++)
			if (pm->p[2 + i].revents)
				err = pump_up(T, i, pm->tcp);
	}
	n = wire_thread_encode(PUMP_END, WIRE_DONE, NULL, 0, end, sizeof(end));
	return err ? err : oob_send(pm->tcp, WIRE_THREAD, end, (uint32_t)n, PUMP_TIMEOUT_MS);
}

/*
 * Until every thread has ended, then until the peer's end mark (so that
 * neither side's next frame, its RESULT, is read as a thread's): the end
 * mark comes once the peer's threads have all ended, each within its own
 * deadlines; this one's wait is bounded by --timeout.
 */
static void pump(struct rb_threads *T, int tcp)
{
	struct pump pm = { .tcp = tcp };
	uint64_t waited_ms = 0;
	int err = 0;

	while (!err && __atomic_load_n(&T->running, __ATOMIC_SEQ_CST) > 0)
		err = pump_once(T, &pm, 100);
	if (!err && T->halt)
		return;		/* a thread failed: the run ends, the peer sees the channel close */
	if (!err)
		err = pump_finish(T, &pm);
	while (!err && !pm.peer_ended && waited_ms < (uint64_t)(T->t[0].s.opt->timeout_s * 1000)) {
		err = pump_once(T, &pm, 100);
		waited_ms += 100;
	}
	if (!err && !pm.peer_ended)
		err = -ETIMEDOUT;
	if (err) {
		log_err("threads: the channel to the peer failed (%s): the peer is gone or stalled",
			strerror(-err));
		pump_lost(T);
		while (__atomic_load_n(&T->running, __ATOMIC_SEQ_CST) > 0)
			poll(NULL, 0, 10);
	}
}

/* 0, or the error of the first thread that failed, named. */
static int threads_verdict(const struct rb_threads *T)
{
	for (int i = 0; i < T->n; i++) {
		const struct rb_thread *t = &T->t[i];

		if (t->err && !T->peer_lost) {
			log_err("thread %d (CPU %d) failed at size %llu: all %d threads stopped",
				i, t->s.conn.place.cpu, (unsigned long long)t->s.run.size, T->n);
			return t->err;
		}
	}
	if (T->peer_lost)
		return -ECONNRESET;
	return 0;
}

int threads_run(struct rb_threads *T, struct oob_chan *chan, threads_body_fn body)
{
	int started = 0, err = 0;

	T->body = body;
	T->halt = 0;
	T->peer_lost = false;
	T->ready = T->go = 0;
	T->running = T->n;
	for (int i = 0; i < T->n && !err; i++) {
		T->t[i].err = 0;
		T->t[i].w->cpu_seen = -1;
		err = thread_start(&T->t[i]);
		started += !err;
	}
	T->running = started;
	gate_open(T, started, err ? -1 : 1);
	if (!err)
		pump(T, chan->fd);
	for (int i = 0; i < started; i++)
		pthread_join(T->t[i].tid, NULL);
	return err ? err : threads_verdict(T);
}

void threads_close(struct rb_threads *T)
{
	for (int i = 0; T->t && i < T->n; i++)
		for (int k = 0; k < 2; k++)
			if (T->t[i].sp[k] >= 0)
				close(T->t[i].sp[k]);
	for (int k = 0; k < 2; k++)
		if (T->wake[k] >= 0)
			close(T->wake[k]);
	if (T->t) {
		pthread_cond_destroy(&T->cond);
		pthread_mutex_destroy(&T->lock);
	}
	threads_free_arrays(T);
}
