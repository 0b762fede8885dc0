/*
 * The stand-in's CUDA streams and events, and the one asynchronous call on
 * them that rdmabench makes (--gpu_touch: cuMemsetD2D8Async).  See
 * fakegpu.c for what the stand-in is.  The work is done at once, but the
 * stand-in keeps what the driver would leave pending: each stream's last
 * memset is pending until an event recorded after it is synchronized, and
 * these are refused as errors (logged, counted): a call with no context
 * current in its thread, a stream or event not live or of another
 * context, flags other than the ones named, a memset whose rows leave
 * one allocation (or a freed one), an event synchronized that was never
 * recorded, a stream destroyed with its work never waited for, and
 * cuMemFree of memory that pending work still writes (fakegpu.c asks
 * stream_pending_on).  Every slot holds g.lock while it is read or written.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fakegpu.h"

#define MAX_STREAMS 64

struct stream {
	int live, ctx;                  /* ctx: 1 + its context's device */
	uintptr_t p;                    /* pending work's range, len 0: none */
	size_t len;
};

struct event {
	int live, ctx;
	struct stream *on;              /* recorded on, NULL: never */
};

static struct stream streams[MAX_STREAMS];
static struct event events[MAX_STREAMS];

/* The live slot that handle h names, of the current context; NULL and
 * counted as an error otherwise. */
static void *slot(void *base, size_t size, void *h, int live, int ctx)
{
	uintptr_t u = (uintptr_t)h, b = (uintptr_t)base;

	if (u < b || u >= b + size * MAX_STREAMS || (u - b) % size || !live || ctx != cu_ctx())
		return NULL;
	return h;
}

static struct stream *stream_of(void *h)
{
	struct stream *s = h;
	uintptr_t u = (uintptr_t)h;

	if (u < (uintptr_t)streams || u >= (uintptr_t)(streams + MAX_STREAMS))
		return NULL;
	return slot(streams, sizeof(*s), h, s->live, s->ctx);
}

static struct event *event_of(void *h)
{
	struct event *e = h;
	uintptr_t u = (uintptr_t)h;

	if (u < (uintptr_t)events || u >= (uintptr_t)(events + MAX_STREAMS))
		return NULL;
	return slot(events, sizeof(*e), h, e->live, e->ctx);
}

int stream_pending_on(uintptr_t p)
{
	for (int i = 0; i < MAX_STREAMS; i++)
		if (streams[i].live && streams[i].len && streams[i].p == p)
			return 1;
	return 0;
}

EXPORT int cuStreamCreate(void **out, unsigned flags)
{
	CU_CTX("cuStreamCreate");
	if (flags > 1)
		return fail(E_VALUE, "cuStreamCreate", "flags other than CU_STREAM_NON_BLOCKING");
	pthread_mutex_lock(&g.lock);
	for (int i = 0; i < MAX_STREAMS; i++)
		if (!streams[i].live) {
			streams[i] = (struct stream){ 1, cu_ctx(), 0, 0 };
			g.streams++;
			pthread_mutex_unlock(&g.lock);
			*out = &streams[i];
			say("stream %d", i);
			return OK;
		}
	pthread_mutex_unlock(&g.lock);
	return fail(2, "cuStreamCreate", "too many streams");
}

EXPORT int cuStreamDestroy_v2(void *h)
{
	struct stream *s;
	int r = OK;

	CU_CTX("cuStreamDestroy");
	pthread_mutex_lock(&g.lock);
	s = stream_of(h);
	if (!s)
		r = E_VALUE;
	else if (s->len)
		r = E_NOT_READY;
	else {
		s->live = 0;
		g.streams--;
	}
	pthread_mutex_unlock(&g.lock);
	if (r == E_VALUE)
		return fail(r, "cuStreamDestroy", "not a live stream of this context");
	if (r)
		return fail(r, "cuStreamDestroy", "its work was never waited for");
	return OK;
}

EXPORT int cuEventCreate(void **out, unsigned flags)
{
	CU_CTX("cuEventCreate");
	if (flags & ~3u)
		return fail(E_VALUE, "cuEventCreate", "flags other than BLOCKING_SYNC, DISABLE_TIMING");
	pthread_mutex_lock(&g.lock);
	for (int i = 0; i < MAX_STREAMS; i++)
		if (!events[i].live) {
			events[i] = (struct event){ 1, cu_ctx(), NULL };
			g.events++;
			pthread_mutex_unlock(&g.lock);
			*out = &events[i];
			return OK;
		}
	pthread_mutex_unlock(&g.lock);
	return fail(2, "cuEventCreate", "too many events");
}

EXPORT int cuEventDestroy_v2(void *h)
{
	struct event *e;

	CU_CTX("cuEventDestroy");
	pthread_mutex_lock(&g.lock);
	e = event_of(h);
	if (e) {
		e->live = 0;
		g.events--;
	}
	pthread_mutex_unlock(&g.lock);
	return e ? OK : fail(E_VALUE, "cuEventDestroy", "not a live event of this context");
}

EXPORT int cuEventRecord(void *ev, void *st)
{
	struct event *e;
	struct stream *s;

	CU_CTX("cuEventRecord");
	pthread_mutex_lock(&g.lock);
	e = event_of(ev);
	s = stream_of(st);
	if (e && s)
		e->on = s;
	pthread_mutex_unlock(&g.lock);
	return e && s ? OK : fail(E_VALUE, "cuEventRecord", "not a live event and stream of this context");
}

EXPORT int cuEventSynchronize(void *ev)
{
	struct event *e;
	int r = OK;

	CU_CTX("cuEventSynchronize");
	pthread_mutex_lock(&g.lock);
	e = event_of(ev);
	if (!e)
		r = E_VALUE;
	else if (!e->on)
		r = E_NOT_READY;
	else
		e->on->len = 0;         /* what was recorded is done */
	pthread_mutex_unlock(&g.lock);
	if (r == E_VALUE)
		return fail(r, "cuEventSynchronize", "not a live event of this context");
	return r ? fail(r, "cuEventSynchronize", "the event was never recorded") : OK;
}

/* Rows of w bytes, pitch apart, all inside one allocation: set to v. */
EXPORT int cuMemsetD2D8Async(unsigned long long p, size_t pitch, unsigned char v, size_t w, size_t h,
			     void *st)
{
	struct stream *s;
	struct alloc *a;
	size_t span = h ? pitch * (h - 1) + w : 0;

	CU_CTX("cuMemsetD2D8Async");
	if (!w || !h || (h > 1 && w > pitch))
		return fail(E_VALUE, "cuMemsetD2D8Async", "width 0, height 0, or width over the pitch");
	pthread_mutex_lock(&g.lock);
	s = stream_of(st);
	a = s ? mem_find((uintptr_t)p, span) : NULL;
	if (a) {
		for (size_t r = 0; r < h; r++)
			memset((char *)(uintptr_t)p + r * pitch, v, w);
		s->p = a->p;
		s->len = span;
		g.touches++;
	}
	pthread_mutex_unlock(&g.lock);
	if (!s)
		return fail(E_VALUE, "cuMemsetD2D8Async", "not a live stream of this context");
	return a ? OK : fail(E_VALUE, "cuMemsetD2D8Async", "rows outside any allocation");
}
