/*
 * /metrics over libmicrohttpd (mesh_sink.h).  Two threads: the agent's
 * loop feeds the table and, at each flush, renders both forms into new
 * buffers and swaps them in under the lock; libmicrohttpd's thread copies
 * the current buffer under the same lock into each response.  So a
 * scrape gets one flush's whole exposition, never a mix, and rendering
 * (the long part) holds no lock.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "prog/mesh/mesh_metrics.h"
#include "prog/mesh/mesh_sink.h"

struct http_sink {
	struct mesh_metrics *mm;
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	struct mesh_buf served[2];      /* [MM_PROMETHEUS], [MM_OPENMETRICS]: under lock */
	int port;
};

/* --- "[ADDR]:PORT" --- */

static int parse_port(const char *s, int *port)
{
	char *end;
	long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 65535)
		return -EINVAL;
	*port = (int)v;
	return 0;
}

static int resolve(const char *host, int port, struct sockaddr_storage *sa, socklen_t *salen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai;
	char ps[8];

	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &ai))
		return -EINVAL;
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	*salen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int mesh_listen_parse(const char *listen, struct sockaddr_storage *sa, socklen_t *salen,
		      int *any, char *why, size_t len)
{
	const char *colon = strrchr(listen, ':');
	char host[256];
	size_t hl;
	int port;

	memset(sa, 0, sizeof(*sa));
	*any = 0;
	if (!colon || parse_port(colon + 1, &port)) {
		snprintf(why, len, "--listen %s: want [ADDR]:PORT (e.g. :9890, 127.0.0.1:9890, [::1]:9890)", listen);
		return -EINVAL;
	}
	hl = (size_t)(colon - listen);
	if (hl >= 2 && listen[0] == '[' && listen[hl - 1] == ']')
		listen++, hl -= 2;
	else if (memchr(listen, ':', hl)) {     /* a bare IPv6 address: ambiguous */
		snprintf(why, len, "--listen %s: an IPv6 address goes in brackets, [ADDR]:PORT", listen);
		return -EINVAL;
	}
	if (hl >= sizeof(host)) {
		snprintf(why, len, "--listen: the address is too long");
		return -EINVAL;
	}
	memcpy(host, listen, hl);
	host[hl] = '\0';
	if (!hl) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons((uint16_t)port);
		*salen = sizeof(*s6);
		*any = 1;
		return 0;
	}
	if (resolve(host, port, sa, salen)) {
		snprintf(why, len, "--listen: cannot resolve the address '%s'", host);
		return -EINVAL;
	}
	return 0;
}

/* --- serving --- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *ctype,
			     const char *body, size_t n)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum mm_format negotiate(struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	return accept && strcasestr(accept, "application/openmetrics-text") ? MM_OPENMETRICS
									      : MM_PROMETHEUS;
}

static enum MHD_Result serve_metrics(struct http_sink *h, struct MHD_Connection *c)
{
	enum mm_format f = negotiate(c);
	const char *ctype = f == MM_OPENMETRICS ? MM_CTYPE_OPENMETRICS : MM_CTYPE_PROMETHEUS;
	enum MHD_Result ret;

	pthread_mutex_lock(&h->lock);
	ret = reply(c, MHD_HTTP_OK, ctype, h->served[f].p ? h->served[f].p : "", h->served[f].len);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static const char nf[] = "not found: the metrics are at /metrics\n";
	static const char na[] = "method not allowed\n";

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", na, sizeof(na) - 1);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", nf, sizeof(nf) - 1);
	return serve_metrics(cls, c);
}

/* Render both forms and swap them in: 0 or -ENOMEM (the old ones stay). */
static int publish(struct http_sink *h)
{
	struct mesh_buf nb[2] = { { 0 } };

	for (int f = 0; f < 2; f++)
		if (mm_render(h->mm, (enum mm_format)f, &nb[f])) {
			mbuf_free(&nb[0]);
			mbuf_free(&nb[1]);
			return -ENOMEM;
		}
	pthread_mutex_lock(&h->lock);
	for (int f = 0; f < 2; f++) {
		struct mesh_buf old = h->served[f];

		h->served[f] = nb[f];
		nb[f] = old;
	}
	pthread_mutex_unlock(&h->lock);
	mbuf_free(&nb[0]);
	mbuf_free(&nb[1]);
	return 0;
}

/* --- the sink's operations --- */

static int http_window(void *ctx, const struct mesh_window_rec *r)
{
	struct http_sink *h = ctx;

	return mesh_sink_feed(h->mm, r, "--listen");
}

static int http_alert(void *ctx, const char *kind, const char *where, const char *line)
{
	struct http_sink *h = ctx;

	return mesh_sink_alert(h->mm, kind, where, "--listen");
}

static int http_flush(void *ctx, double now_s)
{
	struct http_sink *h = ctx;

	mm_flush(h->mm);
	return publish(h);
}

static void http_close(void *ctx)
{
	struct http_sink *h = ctx;

	if (h->d)
		MHD_stop_daemon(h->d);
	mbuf_free(&h->served[0]);
	mbuf_free(&h->served[1]);
	pthread_mutex_destroy(&h->lock);
	mm_free(h->mm);
	free(h);
}

/* Few scrapers (Prometheus servers): a bound on connections and on a
 * silent one's life keeps memory fixed whoever connects. */
static struct MHD_Daemon *start_on(struct http_sink *h, unsigned flags, const void *sa)
{
	const struct sockaddr_in *s4 = sa;              /* sin_port and sin6_port: one place */
	uint16_t port = ntohs(s4->sin_port);            /* (for libmicrohttpd's messages) */

	return MHD_start_daemon(flags | MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
				port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, sa,
				MHD_OPTION_CONNECTION_LIMIT, 32u, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
				MHD_OPTION_END);
}

static struct MHD_Daemon *start(struct http_sink *h, const struct sockaddr_storage *sa, int any)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct MHD_Daemon *d;

	if (sa->ss_family != AF_INET6)
		return start_on(h, 0, sa);
	d = start_on(h, any ? MHD_USE_DUAL_STACK : MHD_USE_IPv6, sa);
	if (d || !any)
		return d;
	/* every address, on a host without IPv6 */
	v4.sin_port = ((const struct sockaddr_in6 *)sa)->sin6_port;
	v4.sin_addr.s_addr = htonl(INADDR_ANY);
	return start_on(h, 0, &v4);
}

static int bound_port(struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
	struct sockaddr_storage sa;
	socklen_t n = sizeof(sa);

	if (!i || getsockname(i->listen_fd, (struct sockaddr *)&sa, &n))
		return -1;
	return ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
					       : ((struct sockaddr_in *)&sa)->sin_port);
}

static struct http_sink *http_new(const struct mesh_agent_info *ai)
{
	struct http_sink *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->mm = mm_new(ai, MESH_SINK_MAX_LINKS, MESH_SINK_MAX_ALERTS);
	if (!h->mm) {
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->lock, NULL);
	return h;
}

int mesh_http_open(struct mesh_sink *s, const char *listen, const struct mesh_agent_info *ai,
		   char *why, size_t len)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	struct http_sink *h;
	int any, rc = mesh_listen_parse(listen, &sa, &salen, &any, why, len);

	if (rc)
		return rc;
	if (!(h = http_new(ai)) || publish(h)) {
		snprintf(why, len, "--listen: out of memory");
		if (h)
			http_close(h);
		return -ENOMEM;
	}
	h->d = start(h, &sa, any);
	if (!h->d) {
		snprintf(why, len, "--listen %s: cannot listen there (in use? an address of this host?)",
			 listen);
		http_close(h);
		return -EADDRNOTAVAIL;
	}
	h->port = bound_port(h->d);
	*s = (struct mesh_sink){ .name = "http", .window = http_window, .alert = http_alert,
				 .flush = http_flush, .close = http_close, .ctx = h };
	return 0;
}

int mesh_http_port(const struct mesh_sink *s)
{
	return ((const struct http_sink *)s->ctx)->port;
}
