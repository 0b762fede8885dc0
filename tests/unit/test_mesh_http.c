/*
 * /metrics (src/prog/mesh/mesh_http.c) through a plain socket client:
 * status, Content-Type by the Accept header, the body equal to what
 * mesh_metrics renders for the same records, 404 and 405, HEAD; flushes
 * swapped in under scrapes from four threads, each of which must get one
 * flush's whole text; "[ADDR]:PORT" parsing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "prog/mesh/mesh_metrics.h"
#include "prog/mesh/mesh_sink.h"
#include "tests/unit/om_parse.h"
#include "tests/unit/tap.h"

#define PLAN 36

static struct mesh_nic local = { .host = "gpu17", .nic = "mlx5_0", .rail = 0 };
static struct mesh_nic peer = { .host = "gpu20", .nic = "mlx5_0", .rail = 0 };
static const struct mesh_agent_info ai = { .host = "gpu17", .epoch = 42, .window_s = 30, .version = "9.9",
					   .thr = { .max_loss = 0.02, .max_p99_us = 500 } };
static int port;

struct reply {
	int status;
	char ctype[128];
	long clen;                      /* Content-Length, -1 none */
	char *body;                     /* malloc'd, NUL-terminated */
	size_t blen;
};

/* One request over a new connection (HTTP/1.0: the server closes). */
static int fetch(const char *method, const char *path, const char *accept, struct reply *r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char req[512], *all = NULL, *hdr_end, *h;
	size_t n = 0, cap = 0;
	ssize_t k;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(r, 0, sizeof(*r));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd >= 0 ? close(fd), -1 : -1;
	snprintf(req, sizeof(req), "%s %s HTTP/1.0\r\nHost: test\r\n%s%s%s\r\n", method, path,
		 accept ? "Accept: " : "", accept ? accept : "", accept ? "\r\n" : "");
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return close(fd), -1;
	do {
		if (n + 4096 + 1 > cap)
			all = realloc(all, cap = 2 * cap + 8192);
		k = read(fd, all + n, cap - n - 1);
		n += k > 0 ? (size_t)k : 0;
	} while (k > 0);
	close(fd);
	all[n] = '\0';
	hdr_end = strstr(all, "\r\n\r\n");
	if (!hdr_end || sscanf(all, "HTTP/1.%*d %d", &r->status) != 1)
		return free(all), -1;
	*hdr_end = '\0';
	r->clen = -1;
	for (h = strstr(all, "\r\n"); h; h = strstr(h + 2, "\r\n")) {
		if (!strncasecmp(h + 2, "Content-Type: ", 14))
			sscanf(h + 16, "%127[^\r]", r->ctype);
		if (!strncasecmp(h + 2, "Content-Length: ", 16))
			r->clen = atol(h + 18);
	}
	r->blen = n - (size_t)(hdr_end + 4 - all);
	r->body = malloc(r->blen + 1);
	memcpy(r->body, hdr_end + 4, r->blen);
	r->body[r->blen] = '\0';
	free(all);
	return 0;
}

static void rec(struct mesh_window_rec *r, uint64_t sent)
{
	*r = (struct mesh_window_rec){ .local = &local, .peer = &peer, .tier = TIER_SWITCH, .peer_epoch = 7,
				       .sent = sent, .answered = sent - 1, .lost = 1,
				       .loss = 1.0 / (double)sent, .rtt_p50_us = 12.5, .rtt_p90_us = 20,
				       .rtt_p99_us = 31, .rtt_max_us = 40 };
}

static char *render(const struct mesh_metrics *m, enum mm_format f)
{
	struct mesh_buf b = { 0 };

	mm_render(m, f, &b);
	return b.p;
}

static void test_listen(void)
{
	struct sockaddr_storage sa;
	socklen_t n;
	int any;
	char why[256], a[64];
	static const char *const bad[] = { "9890", "::1:9890", ":70000", ":-1", "[::1]:", ":", "1.2.3.4:x", ":+80" };
	int refused = 0;

	ok(!mesh_listen_parse(":9890", &sa, &n, &any, why, sizeof(why)) && any && sa.ss_family == AF_INET6 &&
	   ntohs(((struct sockaddr_in6 *)&sa)->sin6_port) == 9890, ":9890: every address, port 9890");
	ok(!mesh_listen_parse("127.0.0.1:80", &sa, &n, &any, why, sizeof(why)) && !any &&
	   sa.ss_family == AF_INET && ntohs(((struct sockaddr_in *)&sa)->sin_port) == 80 &&
	   !strcmp(inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, a, sizeof(a)), "127.0.0.1"),
	   "127.0.0.1:80");
	ok(!mesh_listen_parse("[::1]:9890", &sa, &n, &any, why, sizeof(why)) && sa.ss_family == AF_INET6 &&
	   !strcmp(inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, a, sizeof(a)), "::1"),
	   "[::1]:9890");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (mesh_listen_parse(bad[i], &sa, &n, &any, why, sizeof(why)) == -EINVAL && why[0])
			refused++;
		else
			printf("# accepted: %s\n", bad[i]);
	}
	is_int(refused, (int)(sizeof(bad) / sizeof(bad[0])), "malformed listens refused, each with a reason");
}

/* Four threads scrape while the agent flushes: every body one whole flush. */
struct scraper {
	int fetched, whole, bad;
};

static atomic_int stop_scraping;

/* The body is one flush's: windows_total W, and the link's sent_total
 * the sum fed by then, 10 * W * (W + 1) / 2 (flush w fed 10 * w). */
static int one_flush(const char *body, int om)
{
	struct om_sample *s = NULL;
	int n = 0, c1, c2, good;
	char err[128];
	double w, sent;

	if (om_parse(body, &s, &n, err, sizeof(err)))
		return 0;
	w = om_sum(s, n, "rb_mesh_windows_total", NULL, &c1);
	sent = om_sum(s, n, "rb_mesh_probes_sent_total", NULL, &c2);
	good = c1 == 1 && (w == 0 ? c2 == 0 : c2 == 1 && sent == 10 * w * (w + 1) / 2);
	if (om)
		good = good && strlen(body) > 6 && !strcmp(body + strlen(body) - 6, "# EOF\n");
	free(s);
	return good;
}

static void *scrape(void *arg)
{
	struct scraper *sc = arg;

	for (int i = 0; !stop_scraping || i < 20; i++) {
		struct reply r;
		int om = i % 2;

		if (fetch("GET", "/metrics", om ? "application/openmetrics-text;version=1.0.0" : NULL, &r)) {
			sc->bad++;
			continue;
		}
		sc->fetched++;
		if (r.status == 200 && (long)r.blen == r.clen && one_flush(r.body, om))
			sc->whole++;
		free(r.body);
	}
	return NULL;
}

static void test_concurrent(void)
{
	struct scraper sc[4] = { { 0 } };
	pthread_t t[4];
	struct mesh_window_rec r;
	struct mesh_sink sink, *s = &sink;
	int fetched = 0, whole = 0, bad = 0, port0 = port;
	char why[256];

	if (mesh_http_open(s, "127.0.0.1:0", &ai, why, sizeof(why))) {
		printf("# %s\n", why);
		return;
	}
	port = mesh_http_port(s);

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, scrape, &sc[i]);
	for (int w = 1; w <= 300; w++) {
		rec(&r, 10 * (uint64_t)w);
		s->window(s->ctx, &r);
		s->flush(s->ctx, w);
		if (w % 50 == 0)
			usleep(1000);
	}
	stop_scraping = 1;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		fetched += sc[i].fetched, whole += sc[i].whole, bad += sc[i].bad;
	}
	s->close(s->ctx);
	port = port0;
	ok(fetched >= 80, "4 threads scraped during 300 flushes (%d scrapes)", fetched);
	is_int(whole, fetched, "every scrape got one flush's whole exposition");
	is_int(bad, 0, "no scrape failed");
}

int main(void)
{
	struct mesh_sink s, s2;
	struct mesh_metrics *m = mm_new(&ai, MESH_SINK_MAX_LINKS, MESH_SINK_MAX_ALERTS);
	struct mesh_window_rec r;
	struct reply rp;
	char why[256];
	char *want;

	printf("1..%d\n", PLAN);
	test_listen();
	is_int(mesh_http_open(&s, "127.0.0.1:0", &ai, why, sizeof(why)), 0, "open on 127.0.0.1:0");
	port = mesh_http_port(&s);
	ok(port > 0, "a port was chosen (%d)", port);
	ok(mesh_http_open(&s2, "127.0.0.1:0:", &ai, why, sizeof(why)) == -EINVAL && why[0], "a bad listen refused");
	{
		char l[32];

		snprintf(l, sizeof(l), "127.0.0.1:%d", port);
		ok(mesh_http_open(&s2, l, &ai, why, sizeof(why)) < 0 && why[0], "a port in use refused: %s", why);
	}

	/* before any flush: the empty families */
	want = render(m, MM_PROMETHEUS);
	ok(!fetch("GET", "/metrics", NULL, &rp) && rp.status == 200, "GET /metrics before a flush: 200");
	is_str(rp.body, want, "... the empty exposition");
	free(rp.body);
	free(want);

	/* the same records into the sink and into a table of the test's */
	rec(&r, 100);
	ok(!s.window(s.ctx, &r) && !mm_window(m, &r), "a window fed");
	ok(!s.alert(s.ctx, "peer", "gpu20/mlx5_0", "a line") && !mm_alert(m, "peer", "gpu20/mlx5_0"), "an alert");
	ok(!s.flush(s.ctx, 1.0), "flush");
	mm_flush(m);

	want = render(m, MM_PROMETHEUS);
	ok(!fetch("GET", "/metrics", NULL, &rp), "GET without Accept");
	is_int(rp.status, 200, "200");
	is_str(rp.ctype, "text/plain; version=0.0.4; charset=utf-8", "text format's Content-Type");
	is_str(rp.body, want, "body: the text format as rendered");
	is_int(rp.clen, (long)strlen(want), "Content-Length");
	free(rp.body);
	ok(!fetch("GET", "/metrics", "text/plain", &rp) && rp.body && !strcmp(rp.body, want),
	   "Accept: text/plain: the text format");
	free(rp.body);
	free(want);

	want = render(m, MM_OPENMETRICS);
	ok(!fetch("GET", "/metrics", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1", &rp), "GET with Prometheus' Accept");
	is_int(rp.status, 200, "200");
	is_str(rp.ctype, "application/openmetrics-text; version=1.0.0; charset=utf-8", "OpenMetrics Content-Type");
	is_str(rp.body, want, "body: OpenMetrics as rendered");
	ok(strstr(rp.body, "rb_mesh_alert{kind=\"peer\",where=\"gpu20/mlx5_0\"} 1\n") != NULL, "the alert in it");
	free(rp.body);
	free(want);

	ok(!fetch("GET", "/", NULL, &rp) && rp.status == 404, "GET / : 404");
	free(rp.body);
	ok(!fetch("GET", "/metricsx", NULL, &rp) && rp.status == 404, "GET /metricsx : 404");
	free(rp.body);
	ok(!fetch("POST", "/metrics", NULL, &rp) && rp.status == 405, "POST /metrics : 405");
	free(rp.body);
	ok(!fetch("HEAD", "/metrics", NULL, &rp) && rp.status == 200 && rp.blen == 0, "HEAD /metrics: 200, no body");
	free(rp.body);

	/* every flush replaces the alerts */
	ok(!s.flush(s.ctx, 2.0), "a flush without alerts");
	ok(!fetch("GET", "/metrics", NULL, &rp) && !strstr(rp.body, "rb_mesh_alert{"), "... clears them");
	free(rp.body);

	s.close(s.ctx);
	test_concurrent();

	/* ":PORT": every address, IPv4 too (dual stack, or IPv4 alone) */
	ok(!mesh_http_open(&s, ":0", &ai, why, sizeof(why)) && (port = mesh_http_port(&s)) > 0,
	   "open on :0 (port %d)", port);
	ok(!fetch("GET", "/metrics", NULL, &rp) && rp.status == 200, "... reached on 127.0.0.1");
	free(rp.body);
	s.close(s.ctx);
	ok(fetch("GET", "/metrics", NULL, &rp) < 0, "closed: nothing listens");
	mm_free(m);
	if (tap_n != PLAN)
		printf("# %d checks run, %d planned\n", tap_n, PLAN);
	return tap_failed || tap_n != PLAN;
}
