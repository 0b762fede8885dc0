#include "driver/loadrun.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/registry.h"
#include "lib/clock.h"
#include "cli/load.h"
#include "lib/log.h"
#include "lib/oob.h"

struct loadrun {
	const struct rb_bench *bench;
	loadrun_session_fn run;     /* the driver's: runs the load's session */
	struct rb_options opt;      /* the load's: its size and QPs, until halted */
	char name[16];              /* "write_bw" */
	struct oob_listener lis;    /* the server's, fd -1: none */
	uint16_t port;              /* the server's listening port, or the one it offered */
	/* the running repetition */
	int fd;
	struct oob_chan chan;
	struct rb_link link;
	cpu_set_t allowed;          /* the process's CPUs, before the latency loop was pinned */
	cpu_set_t avoid;
	pthread_t th;
	bool running, stuck;
	bool lost;                  /* an interval could not be kept (no memory) */
	volatile int halt, started, finished, rc;
	int cpu;
	struct load_ivl *iv;
	int niv, cap;
	struct load_figures fig;
};

static int load_timeout_ms(const struct rb_session *s)
{
	return (int)(s->opt->timeout_s * 1000);
}

/* ---- the load's options and hooks ---- */

/* BENCH at the load's size and QPs until halted, on the latency test's
 * device settings, its intervals every LOADRUN_INTERVAL_S.  Messages of
 * LOADRUN_EXACT_SIZE and up are counted as each completes (-Q 1): a
 * completion per message costs nothing next to their transfer, and the
 * bytes in a short latency window are not rounded to -Q batches. */
static int load_options(struct loadrun *L, const struct rb_options *o)
{
	struct rb_options *lo = &L->opt;

	options_init_defaults(L->bench, lo);
	snprintf(lo->cmdline, sizeof(lo->cmdline), "%s (--load)", L->bench->name);
	lo->size = o->load.size;
	lo->qps = (unsigned)o->load.qps;
	lo->run_infinitely = true;
	lo->interval_s = LOADRUN_INTERVAL_S;
	if (o->load.size >= LOADRUN_EXACT_SIZE)
		options_set_cq_mod(lo, 1);
	if (options_finish(L->bench, lo))
		return -EINVAL;
	options_inherit(lo, o);
	return 0;
}

static void load_started(void *arg)
{
	struct loadrun *L = arg;

	L->cpu = sched_getcpu();
	__atomic_store_n(&L->started, 1, __ATOMIC_SEQ_CST);
}

/* Each of the load's intervals: kept for the latency window's share. */
static void load_interval(void *arg, struct rb_session *s, const struct rb_measure *im,
			  uint64_t origin_ns)
{
	struct loadrun *L = arg;

	(void)s;
	(void)origin_ns;
	if (L->niv == L->cap) {
		int cap = L->cap ? 2 * L->cap : 1024;
		struct load_ivl *iv = realloc(L->iv, (size_t)cap * sizeof(*iv));

		if (!iv) {	/* the window's figures would fall short: none at all */
			__atomic_store_n(&L->lost, true, __ATOMIC_SEQ_CST);
			return;
		}
		L->iv = iv;
		L->cap = cap;
	}
	L->iv[L->niv] = (struct load_ivl){ im->start_ns, im->end_ns, im->bytes };
	/* load_await reads the count while this thread runs */
	__atomic_store_n(&L->niv, L->niv + 1, __ATOMIC_RELEASE);
}

/* The load's own row: its figures are the intervals'. */
static void load_row(void *arg, const union out_val *row, int ncols)
{
	(void)arg;
	(void)row;
	(void)ncols;
}

static void *load_main(void *arg)
{
	struct loadrun *L = arg;
	int rc = L->run(L->bench, &L->opt, &L->link);

	__atomic_store_n(&L->rc, rc, __ATOMIC_SEQ_CST);
	__atomic_store_n(&L->finished, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* ---- open and close ---- */

int loadrun_open(struct rb_session *s, loadrun_session_fn run)
{
	const struct rb_options *o = s->opt;
	struct loadrun *L;

	if (o->load_bench == LOAD_NONE)
		return 0;
	L = calloc(1, sizeof(*L));
	if (!L)
		return -ENOMEM;
	s->load = L;
	L->run = run;
	if (sched_getaffinity(0, sizeof(L->allowed), &L->allowed))
		return -errno;
	L->lis.fd = L->fd = -1;
	L->cpu = -1;
	snprintf(L->name, sizeof(L->name), "%s", load_bench_name(o->load_bench));
	L->bench = bench_find(L->name);
	if (!L->bench || load_options(L, o))
		return -EINVAL;
	if (s->is_client)
		return 0;
	if (oob_listen(&L->lis, o->bind_addr, 0))
		return -EADDRINUSE;
	L->port = oob_listener_port(&L->lis);
	log_verbose("--load: the load's channel listens on port %u", L->port);
	return L->port ? 0 : -EADDRNOTAVAIL;
}

uint16_t loadrun_port(const struct loadrun *L)
{
	return L && L->lis.fd >= 0 ? L->port : 0;
}

void loadrun_peer_port(struct loadrun *L, uint64_t port)
{
	if (L)
		L->port = (uint16_t)port;
}

const struct load_figures *loadrun_figures(const struct loadrun *L)
{
	return &L->fig;
}

void loadrun_close(struct rb_session *s)
{
	struct loadrun *L = s->load;

	if (!L)
		return;
	if (L->running)
		loadrun_stop(s, 0, 0);
	if (L->lis.fd >= 0)
		oob_close_listener(&L->lis);
	s->load = NULL;
	if (L->stuck)	/* its thread may still read it: the process ends soon */
		return;
	free(L->iv);
	free(L);
}

/* ---- one loaded repetition ---- */

static int load_connect(struct rb_session *s, struct loadrun *L)
{
	if (!s->is_client)
		L->fd = oob_accept(&L->lis, load_timeout_ms(s), NULL, 0);
	else if (!L->port)
		log_err("--load: the server offers no load channel (its version runs no load)");
	else
		L->fd = oob_connect(s->opt->server, L->port, load_timeout_ms(s));
	if (L->fd < 0) {
		log_err("--load: the load's channel to %s could not be opened", s->conn.peer);
		return -ENOTCONN;
	}
	oob_chan_tcp(&L->chan, L->fd);
	return 0;
}

static void load_link(struct rb_session *s, struct loadrun *L)
{
	CPU_ZERO(&L->avoid);
	if (s->conn.place.cpu >= 0)
		CPU_SET(s->conn.place.cpu, &L->avoid);
	L->link = (struct rb_link){ .chan = &L->chan, .peer = s->conn.peer, .is_client = s->is_client,
				    .row = load_row, .arg = L, .started = load_started,
				    .halt = &L->halt, .avoid = &L->avoid, .on_interval = load_interval };
	L->halt = L->started = L->finished = L->rc = 0;
	L->niv = 0;
	L->lost = false;
	L->cpu = -1;
}

/* The load running, within --timeout (its setup, HELLO and QPs): its
 * window opened and, on the client (whose load thread drives the traffic;
 * a write or read load's server only waits), its first interval closed, so
 * that it runs from before the first latency sample (its start callback
 * comes just before its loop opens the window: the latency loop could
 * otherwise start first, and the server's waits for the client's). */
static bool load_running(const struct rb_session *s, struct loadrun *L)
{
	if (!__atomic_load_n(&L->started, __ATOMIC_SEQ_CST))
		return false;
	return !s->is_client || __atomic_load_n(&L->niv, __ATOMIC_ACQUIRE) > 0 ||
	       __atomic_load_n(&L->lost, __ATOMIC_SEQ_CST);
}

static int load_await(struct rb_session *s, struct loadrun *L)
{
	uint64_t deadline = clock_now_ns() + (uint64_t)(s->opt->timeout_s * 1e9);

	while (!load_running(s, L)) {
		if (__atomic_load_n(&L->finished, __ATOMIC_SEQ_CST) || *s->stop ||
		    clock_now_ns() > deadline) {
			log_err("--load: the load (%s) did not start%s", L->name,
				L->finished ? " (its failure is above)" : *s->stop ? " (interrupted)" : " within --timeout");
			return -EIO;
		}
		usleep(1000);
	}
	if (L->cpu >= 0 && L->cpu == s->conn.place.cpu)
		log_warn("--load: the load shares CPU %d with the latency loop (no other CPU was free)", L->cpu);
	log_verbose("--load: %s runs on CPU %d, the latency loop on CPU %d", L->name, L->cpu,
		    s->conn.place.cpu);
	return 0;
}

/* The load's thread, free to run on any of the process's CPUs: its
 * placement picks one apart from the latency loop's (which is pinned). */
static int load_thread(struct loadrun *L)
{
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);

	if (err)
		return err;
	err = pthread_attr_setaffinity_np(&attr, sizeof(L->allowed), &L->allowed);
	if (!err)
		err = pthread_create(&L->th, &attr, load_main, L);
	pthread_attr_destroy(&attr);
	return err;
}

int loadrun_start(struct rb_session *s)
{
	struct loadrun *L = s->load;
	int err;

	L->fig = (struct load_figures){ .loaded = s->run.load_on, .bytes = NAN, .msgs = NAN,
					.bw_mibps = NAN, .run_s = NAN, .run_bytes = NAN,
					.cpu = -1 };
	if (!s->run.load_on)
		return 0;
	err = load_connect(s, L);
	if (err)
		return err;
	load_link(s, L);
	err = load_thread(L);
	if (err) {
		log_err("--load: no thread for the load: %s", strerror(err));
		close(L->fd);
		L->fd = -1;
		return -err;
	}
	L->running = true;
	return load_await(s, L);
}

/* Joined within the deadline; else the thread is left to the process's end. */
static int load_join(struct rb_session *s, struct loadrun *L)
{
	struct timespec ts;
	int err;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(2 * s->opt->timeout_s) + 2;
	err = pthread_timedjoin_np(L->th, NULL, &ts);
	L->running = false;
	if (!err)
		return 0;
	log_err("--load: the load (%s) did not stop within 2 x --timeout", L->name);
	L->stuck = true;
	return -ETIMEDOUT;
}

static void load_figures_set(struct loadrun *L, uint64_t start_ns, uint64_t end_ns)
{
	double bytes = load_window_bytes(L->iv, L->niv, start_ns, end_ns);

	L->fig.cpu = L->cpu;
	if (L->lost)
		log_warn("--load: out of memory for the load's intervals: its figures are not measured");
	if (end_ns <= start_ns || !L->niv || L->lost)
		return;
	L->fig.bytes = round(bytes);
	L->fig.msgs = round(bytes / (double)L->opt.size);
	L->fig.bw_mibps = bytes / ((double)(end_ns - start_ns) / 1e9) / 1048576.0;
	L->fig.run_s = (double)(L->iv[L->niv - 1].end_ns - L->iv[0].start_ns) / 1e9;
	L->fig.run_bytes = load_run_bytes(L->iv, L->niv);
}

int loadrun_stop(struct rb_session *s, uint64_t start_ns, uint64_t end_ns)
{
	struct loadrun *L = s->load;
	int err;

	if (!L || !L->running)
		return 0;
	__atomic_store_n(&L->halt, 1, __ATOMIC_SEQ_CST);
	err = load_join(s, L);
	if (L->fd >= 0 && !L->stuck) {
		close(L->fd);
		L->fd = -1;
	}
	if (!err && L->rc) {
		log_err("--load: the load (%s) failed (exit %d, named above): the latency was not measured under it throughout",
			L->name, L->rc);
		err = -EIO;
	}
	if (!err)
		load_figures_set(L, start_ns, end_ns);
	return err;
}
