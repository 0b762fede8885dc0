/*
 * The exposition of rb_mesh watch (src/prog/mesh/mesh_metrics.h): known
 * window records in, the text read back by an independent reader
 * (om_parse.c) and each series compared with what the test summed itself;
 * escaping, both forms, the link table's bound, alerts replaced at each
 * flush; promtool check metrics on both forms when promtool is installed.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "prog/mesh/mesh_metrics.h"
#include "tests/unit/om_parse.h"
#include "tests/unit/tap.h"

#define NLOCAL 2
#define NPEER 3
#define NWIN 7

static struct mesh_nic locals[NLOCAL], peers[NPEER];

static struct mesh_agent_info agent(void)
{
	struct mesh_agent_info ai = { .host = "gpu17", .epoch = 0xfedcba9876543210ull, .window_s = 30,
				      .version = "1.2.3", .thr = { .max_loss = 0.02, .max_p99_us = 500 } };
	return ai;
}

static void nics(void)
{
	for (int i = 0; i < NLOCAL; i++) {
		snprintf(locals[i].host, MESH_NAME_LEN, "gpu17");
		snprintf(locals[i].nic, MESH_NAME_LEN, "mlx5_%d", i);
		locals[i].rail = i;
	}
	for (int i = 0; i < NPEER; i++) {
		snprintf(peers[i].host, MESH_NAME_LEN, "gpu%d", 20 + i);
		snprintf(peers[i].nic, MESH_NAME_LEN, "mlx5_%d", i % 2);
	}
}

/* What the test expects of one link, summed here. */
struct want {
	uint64_t sent, answered, lost, restarted, late, epoch;
	double loss, rtt[4];
	int bad;
};

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
	uint64_t v = tap_xorshift(&rng_state);

	return v % n;
}

static void make_rec(struct mesh_window_rec *r, int l, int p, int w)
{
	memset(r, 0, sizeof(*r));
	r->local = &locals[l];
	r->peer = &peers[p];
	r->tier = p == 2 ? TIER_CROSS : TIER_SWITCH;
	r->peer_epoch = 1000 + (uint64_t)w / 3 + (uint64_t)p;
	r->start_s = 1.7e9 + 30.0 * w;
	r->end_s = r->start_s + 30;
	r->sent = 100 + rnd(300);
	r->answered = rnd(r->sent + 1);
	r->lost = r->sent - r->answered;
	r->restarted = rnd(3);
	r->late = rnd(2);
	r->loss = r->answered + r->lost ? (double)r->lost / (double)(r->answered + r->lost) : 0;
	if (r->answered && rnd(4)) {
		r->rtt_p50_us = 5 + (double)rnd(1000) / 7;
		r->rtt_p90_us = r->rtt_p50_us * 1.5;
		r->rtt_p99_us = r->rtt_p50_us * 3.3;
		r->rtt_max_us = r->rtt_p99_us + 0.1;
	} else {
		r->rtt_p50_us = r->rtt_p90_us = r->rtt_p99_us = r->rtt_max_us = NAN;
	}
}

static void expect(struct want *e, const struct mesh_window_rec *r)
{
	e->sent += r->sent;
	e->answered += r->answered;
	e->lost += r->lost;
	e->restarted += r->restarted;
	e->late += r->late;
	e->epoch = r->peer_epoch;
	e->loss = r->loss;
	e->rtt[0] = r->rtt_p50_us / 1e6;
	e->rtt[1] = r->rtt_p90_us / 1e6;
	e->rtt[2] = r->rtt_p99_us / 1e6;
	e->rtt[3] = r->rtt_max_us / 1e6;
	e->bad = r->loss > 0.02 || r->rtt_p99_us > 500;         /* NaN > 500 is false */
}

static int parse(const struct mesh_buf *b, struct om_sample **s, int *n)
{
	char err[256] = "";
	int rc = om_parse(b->p, s, n, err, sizeof(err));

	if (rc)
		printf("# parse: %s\n", err);
	return rc;
}

/* One link's series against e; how many disagree (each said). */
static int check_link(const struct om_sample *s, int n, int l, int p, const struct want *e, int om)
{
	static const char *const q[4] = { "0.5", "0.9", "0.99", "1" };
	const char *want[8] = { NULL };
	char lh[80], ln[80], ph[80], pn[80], rail[16], qs[4][20];
	int bad = 0, c;
	double v;

	snprintf(lh, sizeof(lh), "local_host=%.63s", locals[l].host);
	snprintf(ln, sizeof(ln), "local_nic=%.63s", locals[l].nic);
	snprintf(ph, sizeof(ph), "peer_host=%.63s", peers[p].host);
	snprintf(pn, sizeof(pn), "peer_nic=%.63s", peers[p].nic);
	snprintf(rail, sizeof(rail), "rail=%d", locals[l].rail);
	want[0] = lh, want[1] = ln, want[2] = ph, want[3] = pn, want[4] = rail;
	want[5] = p == 2 ? "tier=cross" : "tier=switch";
#define SERIES(name, exp) do {                                                  \
	v = om_sum(s, n, name, want, &c);                                       \
	if (c != 1 || v != (double)(exp)) {                                     \
		printf("# %s %d->%d: %d series, %.17g, want %.17g\n", name, l, p, c, v, (double)(exp)); \
		bad++;                                                          \
	}                                                                       \
} while (0)
	SERIES("rb_mesh_probes_sent_total", e->sent);
	SERIES("rb_mesh_probes_answered_total", e->answered);
	SERIES("rb_mesh_probes_lost_total", e->lost);
	SERIES("rb_mesh_probes_restarted_total", e->restarted);
	SERIES("rb_mesh_probes_late_total", e->late);
	SERIES("rb_mesh_loss_ratio", e->loss);
	SERIES("rb_mesh_link_bad", e->bad);
	SERIES("rb_mesh_peer_epoch", e->epoch);
	for (int k = 0; k < 4; k++) {
		snprintf(qs[k], sizeof(qs[k]), "quantile=%s", q[k]);
		want[6] = qs[k];
		if (isnan(e->rtt[k])) {
			om_sum(s, n, "rb_mesh_rtt_seconds", want, &c);
			if (c) {
				printf("# rtt %d->%d q%s: present without answers\n", l, p, q[k]);
				bad++;
			}
		} else {
			SERIES("rb_mesh_rtt_seconds", e->rtt[k]);
		}
	}
#undef SERIES
	(void)om;
	return bad;
}

static int count(const struct om_sample *s, int n, const char *name)
{
	int c;

	om_sum(s, n, name, NULL, &c);
	return c;
}

static double value(const struct om_sample *s, int n, const char *name)
{
	int c;
	double v = om_sum(s, n, name, NULL, &c);

	return c == 1 ? v : NAN;
}

/* Many windows over every link; both forms read back. */
static void test_sums(void)
{
	struct mesh_agent_info ai = agent();
	struct mesh_metrics *m = mm_new(&ai, NLOCAL * NPEER, 16);
	struct want e[NLOCAL][NPEER];
	struct mesh_window_rec r;
	int rc = 0;

	memset(e, 0, sizeof(e));
	for (int w = 0; w < NWIN; w++) {
		for (int l = 0; l < NLOCAL; l++)
			for (int p = 0; p < NPEER; p++) {
				if (w > 0 && rnd(5) == 0)
					continue;       /* a link missing from a window keeps its state */
				make_rec(&r, l, p, w);
				rc |= mm_window(m, &r);
				expect(&e[l][p], &r);
			}
		mm_flush(m);
	}
	is_int(rc, 0, "every record taken");
	is_int(mm_links(m), NLOCAL * NPEER, "one entry per link");
	for (int om = 0; om < 2; om++) {
		struct mesh_buf b = { 0 };
		struct om_sample *s = NULL;
		int n = 0, bad = 0;

		is_int(mm_render(m, om ? MM_OPENMETRICS : MM_PROMETHEUS, &b), 0, om ? "render om" : "render prom");
		ok(parse(&b, &s, &n) == 0, "%s: read back", om ? "OpenMetrics" : "Prometheus text");
		for (int l = 0; l < NLOCAL; l++)
			for (int p = 0; p < NPEER; p++)
				bad += check_link(s, n, l, p, &e[l][p], om);
		is_int(bad, 0, "every link's series equal the records' sums and last values");
		is_int(count(s, n, "rb_mesh_probes_sent_total"), NLOCAL * NPEER, "one sent series per link");
		is_int(value(s, n, "rb_mesh_windows_total"), NWIN, "windows_total counts the flushes");
		ok(value(s, n, "rb_mesh_window_seconds") == 30, "window_seconds");
		ok(value(s, n, "rb_mesh_links_dropped_total") == 0, "nothing dropped");
		{
			const char *want[] = { "host=gpu17", "version=1.2.3", "epoch=18364758544493064720",
					       "timestamps=software", NULL };
			int c;

			ok(om_sum(s, n, "rb_mesh_agent_info", want, &c) == 1 && c == 1, "agent_info labels");
		}
		free(s);
		mbuf_free(&b);
	}
	mm_free(m);
}

/* The two forms differ where the formats do, and nowhere else. */
static void test_forms(void)
{
	struct mesh_agent_info ai = agent();
	struct mesh_metrics *m = mm_new(&ai, 8, 8);
	struct mesh_buf p = { 0 }, o = { 0 };
	struct mesh_window_rec r;

	make_rec(&r, 0, 0, 0);
	r.rtt_p50_us = 10, r.rtt_p90_us = 20, r.rtt_p99_us = 30, r.rtt_max_us = 40;
	mm_window(m, &r);
	mm_flush(m);
	mm_render(m, MM_PROMETHEUS, &p);
	mm_render(m, MM_OPENMETRICS, &o);
	ok(strstr(p.p, "# TYPE rb_mesh_probes_sent_total counter\n") != NULL, "prom: counter TYPE with _total");
	ok(strstr(o.p, "# TYPE rb_mesh_probes_sent counter\n") != NULL, "om: counter family without _total");
	ok(strstr(o.p, "\nrb_mesh_probes_sent_total{") != NULL, "om: counter samples with _total");
	ok(strstr(p.p, "# EOF") == NULL, "prom: no # EOF");
	ok(o.len > 6 && !strcmp(o.p + o.len - 6, "# EOF\n"), "om: # EOF last");
	ok(strstr(o.p, "# UNIT rb_mesh_rtt_seconds seconds\n") != NULL, "om: # UNIT of the seconds");
	ok(strstr(p.p, "# UNIT") == NULL, "prom: no # UNIT");
	ok(strstr(p.p, "# TYPE rb_mesh_rtt_seconds summary\n") != NULL, "rtt is a summary");
	ok(strstr(p.p, "quantile=\"0.99\"} 3e-05\n") != NULL, "rtt p99 in seconds, shortest text");
	mbuf_free(&p);
	mbuf_free(&o);
	mm_free(m);
}

/* Label values with \ " and newline come back as they went in. */
static void test_escaping(void)
{
	static const char *const names[] = { "a\\b", "q\"uote", "new\nline", "\\\"\n\\" };
	struct mesh_agent_info ai = agent();
	struct mesh_metrics *m;
	struct mesh_buf b = { 0 };
	struct om_sample *s = NULL;
	struct mesh_window_rec r;
	int n = 0, found = 0;

	snprintf(ai.host, sizeof(ai.host), "h\"o\\st\n");
	m = mm_new(&ai, 8, 8);
	for (int i = 0; i < 4; i++) {
		make_rec(&r, 0, 0, 0);
		struct mesh_nic peer = peers[0];

		snprintf(peer.host, sizeof(peer.host), "%s", names[i]);
		r.peer = &peer;
		mm_window(m, &r);
	}
	mm_alert(m, "link", "a\"b\\c\nd");
	mm_flush(m);
	mm_render(m, MM_OPENMETRICS, &b);
	ok(parse(&b, &s, &n) == 0, "escaped text reads back");
	for (int i = 0; i < 4; i++) {
		const char *want[] = { NULL, NULL };
		char kv[80];
		int c;

		snprintf(kv, sizeof(kv), "peer_host=%s", names[i]);
		want[0] = kv;
		om_sum(s, n, "rb_mesh_probes_sent_total", want, &c);
		found += c;
	}
	is_int(found, 4, "each name with \\ \" or newline found again, unescaped");
	{
		const char *w1[] = { "where=a\"b\\c\nd", NULL }, *w2[] = { "host=h\"o\\st\n", NULL };
		int c1, c2;

		om_sum(s, n, "rb_mesh_alert", w1, &c1);
		om_sum(s, n, "rb_mesh_agent_info", w2, &c2);
		ok(c1 == 1 && c2 == 1, "alert where and agent host unescaped");
	}
	ok(strstr(b.p, "peer_host=\"new\\nline\"") && strstr(b.p, "peer_host=\"q\\\"uote\"") &&
	   strstr(b.p, "peer_host=\"a\\\\b\""), "escapes as the format spells them");
	free(s);
	mbuf_free(&b);
	mm_free(m);
}

/* At most max_links links; the rest counted, the kept ones still fed. */
static void test_capacity(void)
{
	struct mesh_agent_info ai = agent();
	struct mesh_metrics *m = mm_new(&ai, 4, 8);
	struct mesh_buf b = { 0 };
	struct om_sample *s = NULL;
	struct mesh_window_rec r;
	int n = 0, enospc = 0, c;
	uint64_t sent0 = 0;

	for (int l = 0; l < NLOCAL; l++)
		for (int p = 0; p < NPEER; p++) {
			make_rec(&r, l, p, 0);
			if (l == 0 && p == 0)
				sent0 = r.sent;
			enospc += mm_window(m, &r) == -ENOSPC;
		}
	make_rec(&r, 0, 0, 1);
	sent0 += r.sent;
	is_int(mm_window(m, &r), 0, "a kept link is fed when the table is full");
	mm_flush(m);
	is_int(enospc, NLOCAL * NPEER - 4, "-ENOSPC for each link beyond 4");
	is_int(mm_links(m), 4, "4 links kept");
	is_int(mm_links_dropped(m), NLOCAL * NPEER - 4, "drops counted");
	mm_render(m, MM_PROMETHEUS, &b);
	parse(&b, &s, &n);
	is_int(count(s, n, "rb_mesh_probes_sent_total"), 4, "4 links exported");
	is_int(value(s, n, "rb_mesh_links_dropped_total"), NLOCAL * NPEER - 4, "rb_mesh_links_dropped_total");
	{
		const char *w[] = { "local_nic=mlx5_0", "peer_host=gpu20", NULL };

		ok(om_sum(s, n, "rb_mesh_probes_sent_total", w, &c) == (double)sent0 && c == 1,
		   "the kept link's sum includes the window after the table filled");
	}
	free(s);
	mbuf_free(&b);
	mm_free(m);
	ok(mm_new(&ai, 0, 1) == NULL && mm_new(&ai, 1, 0) == NULL, "limits below 1 refused");
}

static int alerts_now(struct mesh_metrics *m, const char *where)
{
	struct mesh_buf b = { 0 };
	struct om_sample *s = NULL;
	int n = 0, c;
	const char *w[] = { NULL, NULL };
	char kv[64];

	snprintf(kv, sizeof(kv), "where=%s", where ? where : "");
	w[0] = where ? kv : NULL;
	mm_render(m, MM_OPENMETRICS, &b);
	parse(&b, &s, &n);
	om_sum(s, n, "rb_mesh_alert", w, &c);
	free(s);
	mbuf_free(&b);
	return c;
}

/* Each flush replaces the active set by the alerts staged since. */
static void test_alerts(void)
{
	struct mesh_agent_info ai = agent();
	struct mesh_metrics *m = mm_new(&ai, 4, 3);

	mm_alert(m, "peer", "gpu20/mlx5_0");
	mm_alert(m, "self", "gpu17/mlx5_1");
	mm_alert(m, "peer", "gpu20/mlx5_0");
	is_int(alerts_now(m, NULL), 0, "staged alerts are not shown before the flush");
	mm_flush(m);
	is_int(alerts_now(m, NULL), 2, "two alerts after the flush (the repeat once)");
	mm_alert(m, "switch", "leaf1-leaf2");
	mm_flush(m);
	is_int(alerts_now(m, NULL), 1, "the next window's set replaces them");
	is_int(alerts_now(m, "leaf1-leaf2"), 1, "... by its own alert");
	mm_flush(m);
	is_int(alerts_now(m, NULL), 0, "a window without alerts clears them");
	for (int i = 0; i < 5; i++) {
		char w[16];

		snprintf(w, sizeof(w), "l%d", i);
		mm_alert(m, "link", w);
	}
	mm_flush(m);
	is_int(alerts_now(m, NULL), 3, "at most max_alerts a window");
	is_int(mm_alerts_dropped(m), 2, "the others counted");
	mm_free(m);
}

static void test_numbers(void)
{
	char s[40];

	is_str(mm_double_text(s, sizeof(s), 0.1), "0.1", "0.1 shortest");
	is_str(mm_double_text(s, sizeof(s), 1e-5), "1e-05", "1e-5 shortest");
	is_str(mm_double_text(s, sizeof(s), 0.1 + 0.2), "0.30000000000000004", "0.1 + 0.2: 17 digits");
	is_str(mm_double_text(s, sizeof(s), NAN), "NaN", "NaN");
	is_str(mm_double_text(s, sizeof(s), -INFINITY), "-Inf", "-Inf");
	ok(strtod(mm_double_text(s, sizeof(s), 1.0 / 3), NULL) == 1.0 / 3, "1/3 reads back");
	ok(strtod(mm_double_text(s, sizeof(s), 1e-6 * 123.456), NULL) == 1e-6 * 123.456, "an RTT reads back");
}

/* cmd <FILE with b's text> 2>&1: its exit status, its output into out. */
static int run_on(const char *cmd, const struct mesh_buf *b, char *out, size_t len)
{
	char in[] = "/tmp/test_mesh_metrics.XXXXXX", line[512];
	int fd = mkstemp(in), rc;
	FILE *f;
	size_t k;

	if (fd < 0 || write(fd, b->p, b->len) != (ssize_t)b->len)
		return -1;
	close(fd);
	snprintf(line, sizeof(line), "%s <%s 2>&1", cmd, in);
	f = popen(line, "r");
	k = fread(out, 1, len - 1, f);
	out[k] = '\0';
	rc = pclose(f);
	unlink(in);
	return rc;
}

/* promtool 2.x reads the text format 0.0.4 only: on OpenMetrics its one
 * complaint can be that a counter's samples (NAME_total) are not its
 * family (NAME): "NAME_total no help text".  True when every line of out
 * is that, for a family the text types as a counter. */
static int only_om_counter_names(const char *out, const char *text)
{
	char name[128], want[160];
	const char *p = out;

	while (*p) {
		size_t ll = strcspn(p, "\n"), nl;

		if (sscanf(p, "%127s", name) != 1 || (nl = strlen(name)) < 7 ||
		    strcmp(name + nl - 6, "_total") || strncmp(p + nl, " no help text", 13) ||
		    ll != nl + 13)
			return 0;
		snprintf(want, sizeof(want), "# TYPE %.*s counter\n", (int)(nl - 6), name);
		if (!strstr(text, want))
			return 0;
		p += ll + (p[ll] == '\n');
	}
	return 1;
}

static int have(const char *test)
{
	return system(test) == 0;
}

/* A python3 with prometheus_client (Debian's first: a per-user python3
 * may lack it), or NULL. */
static const char *python_with_client(void)
{
	if (have("/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null"))
		return "/usr/bin/python3";
	if (have("python3 -c 'import prometheus_client' 2>/dev/null"))
		return "python3";
	return NULL;
}

static void check_tools(const struct mesh_buf *b, int om, const char *what)
{
	char out[4096], cmd[512];
	const char *py;
	int rc;

	if (!have("command -v promtool >/dev/null 2>&1")) {
		if (tap_ci())
			ok(0, "promtool check metrics (%s): promtool missing under CI", what);
		else
			skip("promtool check metrics (%s): no promtool (Debian package prometheus)", what);
	} else if (!om) {
		rc = run_on("promtool check metrics", b, out, sizeof(out));
		ok(rc == 0 && !out[0], "promtool check metrics passes (%s)", what);
		if (rc || out[0])
			printf("# %s", out);
	} else {
		rc = run_on("promtool check metrics", b, out, sizeof(out));
		ok((rc == 0 || WEXITSTATUS(rc) == 3) && only_om_counter_names(out, b->p),
		   "promtool check metrics (%s): read, and nothing but its 0.0.4 reader's NAME_total", what);
		if (!only_om_counter_names(out, b->p))
			printf("# rc %d: %s", rc, out);
	}
	if (!(py = python_with_client())) {
		if (tap_ci())
			ok(0, "prometheus_client reads it (%s): missing under CI", what);
		else
			skip("prometheus_client reads it (%s): no python3 prometheus_client (Debian package python3-prometheus-client)", what);
		return;
	}
	/* its strict readers: each sample named, labelled, valued as the format says */
	snprintf(cmd, sizeof(cmd), "%s -c 'import sys; from prometheus_client%s import "
		 "text_string_to_metric_families as r; print(\"samples\", sum(len(f.samples) for f in r(sys.stdin.read())))'",
		 py, om ? ".openmetrics.parser" : ".parser");
	rc = run_on(cmd, b, out, sizeof(out));
	ok(rc == 0 && !strncmp(out, "samples ", 8), "prometheus_client's %s reader takes it (%s)",
	   om ? "OpenMetrics" : "text", what);
	if (rc || strncmp(out, "samples ", 8))
		printf("# rc %d: %s", rc, out);
}

static void test_tools(void)
{
	struct mesh_agent_info ai = agent();
	struct mesh_metrics *m = mm_new(&ai, 8, 8), *empty = mm_new(&ai, 8, 8);
	struct mesh_window_rec r;

	for (int p = 0; p < NPEER; p++) {
		make_rec(&r, 0, p, 0);
		mm_window(m, &r);
	}
	make_rec(&r, 1, 0, 0);
	r.rtt_p50_us = r.rtt_p90_us = r.rtt_p99_us = r.rtt_max_us = NAN;
	mm_window(m, &r);
	mm_alert(m, "peer", "gpu21/mlx5_1");
	mm_flush(m);
	for (int om = 0; om < 2; om++)
		for (int e = 0; e < 2; e++) {
			struct mesh_buf b = { 0 };
			char what[64];

			snprintf(what, sizeof(what), "%s%s", om ? "OpenMetrics" : "Prometheus text",
				 e ? ", no links" : "");
			mm_render(e ? empty : m, om ? MM_OPENMETRICS : MM_PROMETHEUS, &b);
			check_tools(&b, om, what);
			mbuf_free(&b);
		}
	mm_free(m);
	mm_free(empty);
}

#define PLAN 61

int main(void)
{
	printf("1..%d\n", PLAN);
	nics();
	test_sums();
	test_forms();
	test_escaping();
	test_capacity();
	test_alerts();
	test_numbers();
	test_tools();
	if (tap_n != PLAN)
		printf("# %d checks run, %d planned\n", tap_n, PLAN);
	return tap_failed || tap_n != PLAN;
}
