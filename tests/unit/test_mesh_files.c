/*
 * The file sinks (src/prog/mesh/mesh_textfile.c, mesh_jsonl.c): written,
 * read back, checked.  The textfile equals the text format rendered for
 * the same records, and a reader holding the old file keeps it whole
 * (rename); each JSON line is read by Python's json module, which says
 * back the values (names as hex, NaN as None) for the test to compare.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prog/mesh/mesh_metrics.h"
#include "prog/mesh/mesh_sink.h"
#include "tests/unit/tap.h"

#define PLAN 19

static struct mesh_nic local = { .host = "gpu17", .nic = "mlx5_0", .sw = "leaf1", .rail = 3 };
static struct mesh_nic peer = { .host = "gpu20", .nic = "mlx5_0", .sw = "leaf2", .rail = 3 };
static struct mesh_nic odd = { .host = "q\"b\\s\nn\x01", .nic = "mlx5_1", .rail = 3 };
static const struct mesh_agent_info ai = { .host = "gpu17", .epoch = 42, .window_s = 30, .version = "9.9",
					   .thr = { .max_loss = 0.02, .max_p99_us = 500 } };
static char dir[] = "/tmp/test_mesh_files.XXXXXX";

static void rec(struct mesh_window_rec *r, const struct mesh_nic *p, uint64_t sent, double p50)
{
	*r = (struct mesh_window_rec){ .local = &local, .peer = p, .tier = TIER_CROSS,
				       .peer_epoch = 18364758544493064720ull, .start_s = 1.7e9,
				       .end_s = 1.7e9 + 30, .sent = sent, .answered = sent - 5, .lost = 5,
				       .restarted = 1, .late = 2, .loss = 5.0 / (double)sent, .rtt_p50_us = p50,
				       .rtt_p90_us = p50, .rtt_p99_us = p50, .rtt_max_us = p50 };
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = '\0';
	fclose(f);
	return s;
}

static char *render(const struct mesh_metrics *m)
{
	struct mesh_buf b = { 0 };

	mm_render(m, MM_PROMETHEUS, &b);
	return b.p;
}

static void test_textfile(void)
{
	char path[128], tmp[160], why[256], *got, *want;
	struct mesh_metrics *m = mm_new(&ai, MESH_SINK_MAX_LINKS, MESH_SINK_MAX_ALERTS);
	struct mesh_window_rec r;
	struct mesh_sink s;
	int old;

	snprintf(path, sizeof(path), "%s/rb_mesh.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	ok(mesh_textfile_open(&s, "/nonexistent/dir/x.prom", &ai, why, sizeof(why)) < 0 && strstr(why, "/nonexistent"),
	   "a path that cannot be written is refused at open: %s", why);
	is_int(mesh_textfile_open(&s, path, &ai, why, sizeof(why)), 0, "open");
	ok(access(path, F_OK) && access(tmp, F_OK), "nothing written before the first flush");
	rec(&r, &peer, 100, 12.5);
	s.window(s.ctx, &r), mm_window(m, &r);
	s.alert(s.ctx, "peer", "gpu20/mlx5_0", "line"), mm_alert(m, "peer", "gpu20/mlx5_0");
	is_int(s.flush(s.ctx, 1), 0, "flush");
	mm_flush(m);
	got = slurp(path), want = render(m);
	is_str(got, want, "the file: the text format as rendered for the same records");
	ok(got && !strstr(got, "# EOF"), "no # EOF (the textfile collector's format)");
	ok(access(tmp, F_OK) != 0, "no PATH.tmp left");
	free(got), free(want);

	old = open(path, O_RDONLY);
	rec(&r, &peer, 50, NAN);
	s.window(s.ctx, &r), mm_window(m, &r);
	is_int(s.flush(s.ctx, 2), 0, "a second flush");
	mm_flush(m);
	got = slurp(path), want = render(m);
	is_str(got, want, "the file replaced by the new window's");
	free(got), free(want);
	{
		char buf[64] = "";
		ssize_t k = read(old, buf, sizeof(buf) - 1);

		ok(k > 0 && !strncmp(buf, "# HELP rb_mesh_probes_sent_total", 32),
		   "a reader of the old file keeps it whole (rename, not rewrite)");
		close(old);
	}
	mkdir(tmp, 0700);               /* PATH.tmp a folder: unwritable, even for root */
	ok(s.flush(s.ctx, 3) == -EISDIR, "a flush that cannot write says so (-EISDIR)");
	rmdir(tmp);
	s.close(s.ctx);
	mm_free(m);
	unlink(path);
}

/* Python reads each line; what it says back, one line per object. */
#define PY "import json, sys\n" \
	"for l in open(sys.argv[1]):\n" \
	"  o = json.loads(l)\n" \
	"  if o['type'] == 'window':\n" \
	"    print('W', o['host'], o['peer_host'].encode().hex(), o['local_switch'], o['rail'], o['tier'], o['sent'], " \
	"o['answered'], o['lost'], o['restarted'], o['late'], o['loss'], o['rtt_p50_us'], o['rtt_max_us'], " \
	"o['peer_epoch'], o['start_s'], o['hw_stamps'], o['bad'])\n" \
	"  else:\n" \
	"    print('A', o['kind'], o['where'].encode().hex(), o['line'].encode().hex(), abs(o['time'] - float(sys.argv[2])) < 60)\n"

static char *python_reads(const char *path)
{
	char cmd[1024], *out = calloc(1, 4096);
	FILE *f;

	snprintf(cmd, sizeof(cmd), "python3 -c \"$RB_PY\" %s %ld 2>&1", path, (long)time(NULL));
	setenv("RB_PY", PY, 1);
	f = popen(cmd, "r");
	if (fread(out, 1, 4095, f) == 0)
		strcpy(out, "(nothing)");
	pclose(f);
	return out;
}

static void test_jsonl(void)
{
	char path[128], why[256], *got;
	struct mesh_window_rec r;
	struct mesh_sink s;
	const char *want =
		"W gpu17 6770753230 leaf1 3 cross 200 195 5 1 2 0.025 12.5 12.5 18364758544493064720 1700000000 False True\n"
		"W gpu17 7122625c730a6e01 leaf1 3 cross 40 35 5 1 2 0.125 None None 18364758544493064720 1700000000 False True\n"
		"A peer 7122625c730a6e01 6c6f73742062792033206167656e74733a20225c220a True\n";

	snprintf(path, sizeof(path), "%s/rb_mesh.jsonl", dir);
	ok(mesh_jsonl_open(&s, "/nonexistent/x.jsonl", &ai, why, sizeof(why)) < 0 && why[0], "a bad path refused: %s", why);
	is_int(mesh_jsonl_open(&s, path, &ai, why, sizeof(why)), 0, "open");
	rec(&r, &peer, 200, 12.5);
	ok(!s.window(s.ctx, &r), "a window");
	rec(&r, &odd, 40, NAN);
	ok(!s.window(s.ctx, &r), "a window without answers, a name to escape");
	ok(!s.alert(s.ctx, "peer", odd.host, "lost by 3 agents: \"\\\"\n"), "an alert");
	is_int(s.flush(s.ctx, 1), 0, "flush");
	got = python_reads(path);
	is_str(got, want, "json.loads takes every line; values, NaN as null, escapes round-trip");
	free(got);
	s.close(s.ctx);
	unlink(path);

	/* "-": stdout */
	{
		int saved, fd;

		fflush(stdout);
		saved = dup(1);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		close(fd);
		if (!mesh_jsonl_open(&s, "-", &ai, why, sizeof(why))) {
			rec(&r, &peer, 200, 12.5);
			s.window(s.ctx, &r);
			s.flush(s.ctx, 1);
			s.close(s.ctx);
		}
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
	}
	got = python_reads(path);
	ok(!strncmp(got, want, strcspn(want, "\n") + 1) && strlen(got) == strcspn(want, "\n") + 1,
	   "\"-\" writes to stdout");
	free(got);
	unlink(path);
}

int main(void)
{
	printf("1..%d\n", PLAN);
	if (!mkdtemp(dir))
		return 1;
	test_textfile();
	test_jsonl();
	rmdir(dir);
	if (tap_n != PLAN)
		printf("# %d checks run, %d planned\n", tap_n, PLAN);
	return tap_failed || tap_n != PLAN;
}
