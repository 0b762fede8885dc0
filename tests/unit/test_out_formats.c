#include "lib/output.h"
#include "tap.h"
#include "golden.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Every call of output.h, in fixed sequences, in each of the three formats
 * (and the CSV sidecar), against golden files made by the code before the
 * formats were split into out_human.c, out_csv.c and out_json.c:
 * tests/unit/data/formats.{txt,csv,json,meta.json}.  A change in any byte
 * of any format fails here.  After a deliberate format change, regenerate
 * them with RB_WRITE_GOLDEN=1 and review the diff (golden.h).
 */

static const struct out_col cols[] = {
	{ "size_bytes", "#bytes", OUT_U64, 0 },
	{ "bw_avg_mibps", "BW average[MiB/sec]", OUT_DOUBLE, 2 },
	{ "thread", "thread", OUT_STR, 0 },
	{ "lat_p99_9_us", "99.9%[usec]", OUT_DOUBLE, 3 },
	{ "row_kind", "row", OUT_STR, 0 },
	{ "t_start_s", "from[s]", OUT_DOUBLE, 9 },
	{ "a_very_long_counter_key", "a label wider than its values", OUT_U64, 0 },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

/* Quotes, backslash, newline, tab, a control char, a comma and UTF-8. */
static const char nasty[] = "QP \"7\", timed out\\retry\n\tline 2\x01 caf\xc3\xa9";

static void metadata(struct out *o)
{
	out_meta_str(o, "tool", "Tool", "rdmabench");
	out_meta_str(o, "device", "Device", "rxe0");
	out_meta_u64(o, "port", "Port", 1);
	out_meta_str(o, "command_line", "Command", "rb_write_bw -a -j 2 --interval=0.5 10.0.0.1");
	out_meta_double(o, "duration_s", "Duration[s]", 2.5, 3);
	out_meta_double(o, "cpu_mhz", "CPU frequency[MHz]", NAN, 2);
	out_meta_str(o, "none", "None", NULL);
	out_meta_str(o, "odd", "Odd \"one\"", nasty);
	out_meta_u64(o, "big", NULL, UINT64_MAX);
	out_meta_double(o, "tiny", "Tiny", -1e-7, 12);
	out_meta_str(o, "last", "Last", "short");
}

static void row(union out_val *v, uint64_t size, double bw, const char *thread, double p,
		const char *kind, double t, uint64_t ctr)
{
	v[0].u = size;
	v[1].d = bw;
	v[2].s = thread;
	v[3].d = p;
	v[4].s = kind;
	v[5].d = t;
	v[6].u = ctr;
}

/* A sweep of every row kind: plain, intervals then their total, a note,
 * -j's parts with and without rows of their own. */
static void seq_full(struct out *o)
{
	union out_val v[NCOLS], parts[3][NCOLS + 1];

	metadata(o);
	out_begin(o, "RDMA Write BW Test", cols, NCOLS);
	row(v, 2, 0.5, "all", NAN, "total", 0, 0);
	out_row(o, v);
	row(v, 65536, 11663.771, "a, \"b\"", 1.23456, "interval", 0.5, 7);
	out_sub_row(o, "intervals", v);
	row(v, 65536, INFINITY, nasty, -2.5, "interval", 1.000000001, 8);
	out_sub_row(o, "intervals", v);
	row(v, 65536, 11000.125, "all", 3.25, "total", 0, 15);
	out_row(o, v);
	out_note(o, "Intervals: 2 of 0.5 s asked (2 whole, 0.500-0.500 s wide)");
	out_note(o, nasty);
	for (int k = 0; k < 3; k++)
		row(parts[k], 131072, 100.0 * (k + 1), k ? "t1" : "t0", k, "part", k, 100 + (uint64_t)k);
	row(v, 131072, 600, "all", NAN, NULL, NAN, 300);
	out_row_parts(o, v, "threads", parts[0], 3, NCOLS + 1, 3, true);
	out_row_parts(o, v, "threads", parts[0], 2, NCOLS + 1, 5, false);
	out_row_parts(o, v, "threads", parts[0], 0, NCOLS + 1, 3, true);
	row(v, 262144, 1e12, "", 0.0005, "total", 1e-12, 1);
	out_row(o, v);
	out_end(o, "complete", NULL);
}

/* A failure among an interval's rows: their row never comes. */
static void seq_failed_in_intervals(struct out *o)
{
	union out_val v[NCOLS];

	out_meta_str(o, "device", "Device", "rxe0");
	out_begin(o, "RDMA Send Lat Test", cols, NCOLS);
	row(v, 2, 1, "all", 2, "interval", 0, 1);
	out_sub_row(o, "intervals", v);
	out_sub_row(o, "intervals", v);
	out_end(o, "failed", nasty);
}

/* A row's intervals, twice: each array closes in its own row. */
static void seq_sub_then_row(struct out *o)
{
	union out_val v[NCOLS];

	out_begin(o, "t", cols, NCOLS);
	row(v, 4, 2, "x", 3, "interval", 0.25, 0);
	out_sub_row(o, "intervals", v);
	row(v, 4, 2, "x", 3, "total", 0.25, 0);
	out_row(o, v);
	out_sub_row(o, "intervals", v);
	out_row(o, v);
	out_end(o, "partial", NULL);
}

/* Failures before any result: metadata only, nothing at all, a title. */
static void seq_no_begin(struct out *o)
{
	out_meta_str(o, "tool", "Tool", "rdmabench");
	out_meta_str(o, "peer", "Peer", NULL);
	out_end(o, "failed", "cannot reach the peer");
}

static void seq_nothing(struct out *o)
{
	out_end(o, NULL, NULL);
}

static void seq_title_only(struct out *o)
{
	out_meta_u64(o, "port", "Port", 1);
	out_begin(o, "A title, \"quoted\"", NULL, 0);
	out_row(o, (union out_val[NCOLS]){ { 0 } });
	out_note(o, "a note without a table");
	out_end(o, "partial", "stopped");
}

static void seq_empty(struct out *o)
{
	metadata(o);
	out_begin(o, NULL, cols, NCOLS);
	out_meta_str(o, "late", "Late", "after begin: dropped");
	out_begin(o, "second begin: ignored", cols, 2);
	out_end(o, NULL, NULL);
}

static const struct seq {
	const char *name;
	void (*run)(struct out *o);
	bool alone;     /* also as a sidecar alone (the old code crashed on
			 * out_row_parts without a table: -j never has one) */
} seqs[] = {
	{ "full", seq_full, false },
	{ "failed_in_intervals", seq_failed_in_intervals, true },
	{ "sub_then_row", seq_sub_then_row, true },
	{ "no_begin", seq_no_begin, true },
	{ "nothing", seq_nothing, true },
	{ "title_only", seq_title_only, true },
	{ "empty", seq_empty, true },
};
#define NSEQS ((int)(sizeof(seqs) / sizeof(seqs[0])))

/* Each sequence's document under "=== name ===", into doc; CSV: each one's
 * sidecar into side, and a sidecar alone (no table) after them. */
static void render(enum out_format fmt, FILE *doc, FILE *side, const char *dir)
{
	char csv[128], meta[128], *text;

	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(meta, sizeof(meta), "%s/r.meta.json", dir);
	for (int i = 0; i < NSEQS; i++) {
		struct out *o = out_open(fmt, doc);

		fprintf(doc, "=== %s ===\n", seqs[i].name);
		if (fmt == OUT_CSV)
			is_int(out_sidecar(o, csv), 0, "sidecar opened");
		seqs[i].run(o);
		fflush(doc);
		if (fmt != OUT_CSV)
			continue;
		text = slurp(meta);
		ok(text != NULL, "%s: the sidecar written", seqs[i].name);
		fprintf(side, "=== %s ===\n%s", seqs[i].name, text ? text : "");
		free(text);
		unlink(meta);
	}
	for (int i = 0; fmt == OUT_CSV && i < NSEQS; i++) {
		struct out *o;

		if (!seqs[i].alone)
			continue;
		o = out_open(OUT_CSV, NULL);
		is_int(out_sidecar(o, csv), 0, "sidecar alone opened");
		seqs[i].run(o);
		text = slurp(meta);
		fprintf(side, "=== alone: %s ===\n%s", seqs[i].name, text ? text : "");
		free(text);
		unlink(meta);
	}
}

static void test_format(enum out_format fmt, const char *name, const char *side_name)
{
	char dir[] = "/tmp/rb-test-formats-XXXXXX", *doc = NULL, *side = NULL;
	size_t doc_len, side_len;
	FILE *d, *s;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	d = open_memstream(&doc, &doc_len);
	s = open_memstream(&side, &side_len);
	render(fmt, d, s, dir);
	fclose(d);
	fclose(s);
	rmdir(dir);
	check_golden(name, doc);
	if (side_name)
		check_golden(side_name, side);
	free(doc);
	free(side);
}

/* out_json_string, shared with rb_devices */
static void test_json_string(void)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	out_json_string(f, nasty);
	fputc(' ', f);
	out_json_string(f, NULL);
	fputc(' ', f);
	out_json_string(f, "");
	fclose(f);
	is_str(buf, "\"QP \\\"7\\\", timed out\\\\retry\\u000a\\u0009line 2\\u0001 caf\xc3\xa9\" null \"\"",
	       "out_json_string escapes, NULL is null");
	free(buf);
}

int main(void)
{
	test_format(OUT_HUMAN, "formats.txt", NULL);
	test_format(OUT_CSV, "formats.csv", "formats.meta.json");
	test_format(OUT_JSON, "formats.json", NULL);
	test_json_string();
	return tap_done();
}
