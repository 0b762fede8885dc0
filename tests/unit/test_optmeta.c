/*
 * The metadata the options give (options_meta, the META rows of
 * src/cli/rows.c) against what src/report/report.c wrote before the rows
 * (the oracle below: its option-derived keys, copied as they were, the
 * session's keys left out): the same keys, labels, order and values, in
 * JSON (keys, values, types) and in the human header (labels), for many
 * command lines of every benchmark.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "bench/registry.h"
#include "lib/log.h"
#include "lib/output.h"
#include "tap.h"

/* ---- the oracle: report.c's meta_test, meta_load and completion_text
 * before options_meta (keys of the session, verbs and engine omitted) ---- */

static const char *old_completion_text(const struct rb_options *o)
{
	if (o->events)
		return o->poll_pause ? "events, pause between empty polls" : "events";
	return o->poll_pause ? "busy poll, pause between empty polls" : "busy poll";
}

static void old_meta_load(struct out *out, const struct rb_options *o)
{
	if (o->load_bench == LOAD_NONE)
		return;
	out_meta_str(out, "load", "Load", load_bench_name(o->load_bench));
	out_meta_u64(out, "load_size", "Load size[B]", o->load.size);
	out_meta_u64(out, "load_qps", "Load QPs", o->load.qps);
	out_meta_str(out, "load_placement", "Load CPU",
		     "a thread of its own, its CPU chosen apart from the latency loop's (column load_cpu)");
	if (o->load.compare)
		out_meta_u64(out, "load_compare_reps", "Idle/loaded reps", LOAD_COMPARE_REPS);
}

static void old_meta_test(struct out *out, const struct rb_options *o, const struct rb_bench *b)
{
	out_meta_str(out, "transport", "Connection type", options_transport_name(o->transport));
	out_meta_u64(out, "qps", "Number of qps", o->qps);
	out_meta_u64(out, "tx_depth", "TX depth", o->tx_depth);
	if (b->verb == VERB_SEND)
		out_meta_u64(out, "rx_depth", "RX depth", o->rx_depth);
	if (b->metric == METRIC_BW)
		out_meta_u64(out, "cq_mod", "CQ Moderation", o->cq_mod);
	/* #36: --mr_per_qp, --payload_file_path */
	out_meta_str(out, "mr_per_qp", "MR per QP", o->mr_per_qp ? "yes" : "no");
	if (b->metric == METRIC_BW) {
		/* meta_cq_mod: the report's */
		out_meta_u64(out, "post_list", "Post list", o->post_list);
		out_meta_str(out, "bidirectional", "Bidirectional", o->bidir ? "yes" : "no");
	}
	/* outstanding: the session's */
	if (b->verb == VERB_ATOMIC)
		out_meta_str(out, "atomic_op", "Atomic op", options_atomic_name(o->atomic_op));
	/* addresses, checks, inline, relaxed ordering: the session's */
	out_meta_str(out, "connect", "Connection setup", o->rdma_cm ? "rdma_cm" : "manual (TCP exchange)");
	out_meta_str(out, "completion", "Completions", old_completion_text(o));
	if (o->run_infinitely) {
		out_meta_str(out, "run_infinitely", "Duration", "until stopped (--run_infinitely)");
		out_meta_double(out, "warmup_s", "Warm-up[s]", o->warmup_s, 3);
	} else if (o->duration_s > 0) {
		out_meta_double(out, "duration_s", "Duration[s]", o->duration_s, 3);
		out_meta_double(out, "warmup_s", "Warm-up[s]", o->warmup_s, 3);
	} else {
		out_meta_u64(out, "iterations", "Iterations", o->iters);
		out_meta_u64(out, "warmup_iterations", "Warm-up iterations", o->warmup_iters);
	}
	if (o->interval_s > 0)
		out_meta_double(out, "interval_s", "Interval[s]", o->interval_s, 3);
	if (o->min_bw_text)
		out_meta_str(out, "min_bw", "Min interval BW", o->min_bw_text);
	old_meta_load(out, o);
}

/* ---- the rows ---- */

static void new_meta_test(struct out *out, const struct rb_options *o, const struct rb_bench *b)
{
	options_meta(out, o, b, OPTIONS_META_QUEUES);
	options_meta(out, o, b, OPTIONS_META_POSTING);
	options_meta(out, o, b, OPTIONS_META_ATOMIC);
	options_meta(out, o, b, OPTIONS_META_RUN);
}

typedef void (*meta_fn)(struct out *out, const struct rb_options *o, const struct rb_bench *b);

/* The document fn writes, in format fmt (malloc'd). */
static char *document(meta_fn fn, enum out_format fmt, const struct rb_options *o, const struct rb_bench *b)
{
	static const struct out_col col = { "x", "X", OUT_U64, 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct out *out = f ? out_open(fmt, f) : NULL;

	if (!out)
		return NULL;
	fn(out, o, b);
	out_begin(out, "meta", &col, 1);
	out_end(out, "complete", NULL);
	fclose(f);
	return text;
}

static const char *const lines[] = {
	"", "-s 8", "-a", "-n 77 --warmup 3", "-D 3", "-D 10 --warmup-time 2", "--run_infinitely",
	"--run_infinitely --warmup-time 0.5", "-D 3 --interval 0.5", "-D 3 --interval 1 --min-bw 10Gb/s",
	"-c UC", "-c UD -s 512", "-R", "-e", "--poll-pause", "-e --poll-pause", "-q 4 -t 64 -Q 8 -l 2",
	"-b", "-r 64", "-A CMP_AND_SWAP", "--atomic-same-address", "--load write_bw",
	"--load read_bw --load-size 1K --load-qps 2 --load-compare", "-t 16", "-j 2", "--validate", "-q 4 --mr_per_qp",
	"--interval 0.25", "-D 1.2345",
};

static const char *const benches[] = {
	"rb_send_bw", "rb_send_lat", "rb_write_bw", "rb_write_lat",
	"rb_read_bw", "rb_read_lat", "rb_atomic_bw", "rb_atomic_lat",
};

/* The options keep pointers into argv (--min-bw's text): the words live in
 * a static buffer, as a program's argv lives as long as the program. */
static int parse_line(const struct rb_bench *b, const char *line, struct rb_options *o)
{
	static char buf[256];
	char *argv[32] = { (char *)b->name }, *save = NULL;
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	return options_parse(argc, argv, b, o);
}

/* Every line each benchmark takes: the same JSON and human header. */
static void test_same_documents(void)
{
	static const enum out_format fmts[] = { OUT_JSON, OUT_HUMAN };
	int compared = 0, differ = 0, with_load = 0;

	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
			const struct rb_bench *b = bench_find(benches[i]);
			struct rb_options o;

			if (!b || parse_line(b, lines[k], &o))
				continue;       /* a line this benchmark refuses */
			with_load += o.load_bench != LOAD_NONE;
			for (size_t f = 0; f < 2; f++) {
				char *old = document(old_meta_test, fmts[f], &o, b);
				char *now = document(new_meta_test, fmts[f], &o, b);

				compared++;
				if (!old || !now || strcmp(old, now)) {
					differ++;
					printf("# %s %s (%s):\n# before: %s\n# rows:   %s\n", benches[i], lines[k],
					       fmts[f] == OUT_JSON ? "JSON" : "human", old, now);
				}
				free(old);
				free(now);
			}
		}
	ok(compared >= 300, "documents compared: %d (every benchmark, %zu command lines, JSON and human)",
	   compared, sizeof(lines) / sizeof(lines[0]));
	ok(with_load >= 8, "... %d of them with --load", with_load);
	is_int(differ, 0, "the META rows write the keys, labels, order and values report.c wrote");
}

/* The oracle is no tautology: a changed option changes the document. */
static void test_documents_differ(void)
{
	const struct rb_bench *b = bench_find("rb_send_bw");
	struct rb_options o;
	char *one, *two;

	parse_line(b, "-q 2", &o);
	one = document(new_meta_test, OUT_JSON, &o, b);
	parse_line(b, "-q 3", &o);
	two = document(new_meta_test, OUT_JSON, &o, b);
	ok(one && two && strcmp(one, two) && strstr(two, "\"qps\":3"), "-q 3 is in the document, -q 2 is not");
	free(one);
	free(two);
}

int main(void)
{
	FILE *null = freopen("/dev/null", "w", stderr);

	(void)null;
	log_set_prog("test_optmeta");
	test_same_documents();
	test_documents_differ();
	return tap_done();
}
