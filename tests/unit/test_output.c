#include "lib/output.h"
#include "tap.h"
#include "golden.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Golden files: tests/unit/data/output.{txt,csv,json} (golden.h: after a
 * deliberate format change, regenerate them with RB_WRITE_GOLDEN=1 and
 * review the diff).
 */

static const struct out_col cols[] = {
	{ "bytes", "#bytes", OUT_U64, 0 },
	{ "bw_avg_mibps", "BW average[MiB/sec]", OUT_DOUBLE, 2 },
	{ "op", "Operation", OUT_STR, 0 },
	{ "lat_p99_us", "t_p99[usec]", OUT_DOUBLE, 3 },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

/* Quotes, backslash, newline, tab, a control char and UTF-8. */
static const char nasty[] = "QP \"7\" timed out\\retry\n\tline 2\x01 caf\xc3\xa9";

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static struct out *capture_open(struct capture *c, enum out_format fmt)
{
	c->buf = NULL;
	c->f = open_memstream(&c->buf, &c->len);
	return out_open(fmt, c->f);
}

static char *capture_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

/* The two-row table every format is checked with; side: a CSV sidecar. */
static char *render_side(enum out_format fmt, const char *status, const char *error,
			 const char *side)
{
	const union out_val rows[2][NCOLS] = {
		{ { .u = 65536 }, { .d = 11663.771 }, { .s = "write" }, { .d = 1.23456 } },
		{ { .u = 8388608 }, { .d = 12000.5 }, { .s = "send, \"inline\"" }, { .d = NAN } },
	};
	struct capture c;
	struct out *o = capture_open(&c, fmt);

	if (side)
		is_int(out_sidecar(o, side), 0, "sidecar opened");
	out_meta_str(o, "device", "Device", "mlx5_0");
	out_meta_u64(o, "iterations", "Number of iterations", 5000);
	out_meta_str(o, "transport", "Transport type", "RC");
	out_meta_double(o, "clock_res_ns", "Clock resolution[ns]", 1, 1);
	out_meta_double(o, "cpu_mhz", "CPU frequency[MHz]", NAN, 2);
	out_begin(o, "RDMA Write BW Test", cols, NCOLS);
	out_row(o, rows[0]);
	out_row(o, rows[1]);
	out_end(o, status, error);
	return capture_close(&c);
}

static char *render_table(enum out_format fmt, const char *status, const char *error)
{
	return render_side(fmt, status, error, NULL);
}

/*
 * Parse with a real JSON parser (python3), evaluate expr on the document d
 * and return json.dumps() of the result, or NULL when doc is not JSON.
 */
static char *json_eval(const char *doc, const char *expr)
{
	char tmp[] = "/tmp/rb-test-output-XXXXXX", *cmd = NULL, *line = NULL;
	size_t cap = 0, len = strlen(doc);
	int fd = mkstemp(tmp);
	FILE *p;

	if (fd < 0)
		return NULL;
	if (write(fd, doc, len) != (ssize_t)len ||
	    asprintf(&cmd, "python3 -c 'import json,sys; d=json.load(sys.stdin); "
		     "print(json.dumps(%s, sort_keys=True))' < %s 2>/dev/null", expr, tmp) < 0)
		cmd = NULL;
	close(fd);
	p = cmd ? popen(cmd, "r") : NULL;
	if (p && getline(&line, &cap, p) > 0)
		line[strcspn(line, "\n")] = '\0';
	if (!p || pclose(p) != 0) {
		free(line);
		line = NULL;
	}
	unlink(tmp);
	free(cmd);
	return line;
}

static int have_python(void)
{
	return system("python3 -c 'import json' >/dev/null 2>&1") == 0;
}

static void check_json(const char *doc, const char *expr, const char *want, const char *what)
{
	char *got;

	if (!have_python()) {
		if (tap_ci())	/* CI installs python3 */
			ok(0, "python3 missing under CI=true: %s", what);
		else
			skip("python3 missing: %s", what);
		return;
	}
	got = json_eval(doc, expr);
	ok(got != NULL, "%s: valid JSON", what);
	if (got)
		is_str(got, want, what);
	free(got);
}

static void test_golden(void)
{
	char *s;

	s = render_table(OUT_HUMAN, "complete", NULL);
	check_golden("output.txt", s);
	free(s);
	s = render_table(OUT_CSV, "complete", NULL);
	check_golden("output.csv", s);
	free(s);
	s = render_table(OUT_JSON, "complete", NULL);
	check_golden("output.json", s);
	check_json(s, "d", "{\"error\": null, \"meta\": {\"clock_res_ns\": 1.0, \"cpu_mhz\": null, "
		   "\"device\": \"mlx5_0\", \"iterations\": 5000, \"transport\": \"RC\"}, "
		   "\"results\": [{\"bw_avg_mibps\": 11663.77, \"bytes\": 65536, \"lat_p99_us\": "
		   "1.235, \"op\": \"write\"}, {\"bw_avg_mibps\": 12000.5, \"bytes\": 8388608, "
		   "\"lat_p99_us\": null, \"op\": \"send, \\\"inline\\\"\"}], \"schema_version\": 1, "
		   "\"status\": \"complete\", \"title\": \"RDMA Write BW Test\"}",
		   "JSON table parses to the expected values");
	free(s);
}

/* The last line(s) of a text, from the n-th newline counted backwards. */
static const char *tail_lines(const char *s, int n)
{
	const char *p = s + strlen(s);

	while (p > s && n >= 0) {
		p--;
		if (*p == '\n' && p[1] && --n == 0)
			return p + 1;
	}
	return s;
}

static void check_json(const char *doc, const char *expr, const char *want, const char *what);

/*
 * The table as CSV with its sidecar in a fresh folder; checks expr over the
 * sidecar and that the table is the golden one.  Returns the CSV text.
 */
static char *csv_sidecar(const char *status, const char *error, const char *expr,
			 const char *want, const char *what)
{
	char dir[] = "/tmp/rb-test-side-XXXXXX", csv[64], side[64], *s, *meta;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return strdup("");
	}
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(side, sizeof(side), "%s/r.meta.json", dir);
	s = render_side(OUT_CSV, status, error, csv);
	meta = slurp(side);
	ok(meta != NULL, "%s: %s written", what, side);
	check_json(meta ? meta : "", expr, want, what);
	free(meta);
	unlink(side);
	rmdir(dir);
	return s;
}

static void test_sidecar(void)
{
	char buf[64], *s;

	is_int(out_sidecar_path("a/b.csv", buf, sizeof(buf)), 0, "sidecar path");
	is_str(buf, "a/b.meta.json", "x.csv -> x.meta.json");
	out_sidecar_path("hist-64.csv.txt", buf, sizeof(buf));
	is_str(buf, "hist-64.csv.txt.meta.json", "another name: NAME.meta.json");
	is_int(out_sidecar_path("0123456789.csv", buf, 8), -ENAMETOOLONG, "too long for buf");
	s = csv_sidecar("complete", NULL,
			"[d[\"schema_version\"], d[\"title\"], d[\"meta\"][\"device\"], "
			"d[\"meta\"][\"iterations\"], d[\"meta\"][\"cpu_mhz\"], "
			"[c[\"key\"] for c in d[\"columns\"]], d[\"columns\"][1][\"label\"], "
			"d[\"rows\"], d[\"status\"], d[\"error\"]]",
			"[1, \"RDMA Write BW Test\", \"mlx5_0\", 5000, null, "
			"[\"bytes\", \"bw_avg_mibps\", \"op\", \"lat_p99_us\"], "
			"\"BW average[MiB/sec]\", 2, \"complete\", null]",
			"CSV sidecar: title, typed metadata, columns, rows, status");
	check_golden("output.csv", s);
	free(s);
	{
		struct capture c;
		struct out *o = capture_open(&c, OUT_JSON);

		is_int(out_sidecar(o, "/nonexistent/x.csv"), 0, "JSON: no sidecar, no error");
		out_end(o, "complete", NULL);
		free(capture_close(&c));
		o = capture_open(&c, OUT_CSV);
		is_int(out_sidecar(o, "/nonexistent/x.csv"), -ENOENT, "CSV: sidecar error returned");
		out_end(o, "complete", NULL);
		free(capture_close(&c));
	}
}

static void test_end_status(void)
{
	const char *esc = "QP \"7\" timed out\\retry\\n\\tline 2\\x01 caf\xc3\xa9";
	char *s, *want;

	s = render_table(OUT_HUMAN, "partial", NULL);
	is_str(tail_lines(s, 2), "-------------------------------"
	       "-------------------------------\nStatus: partial\n", "human partial");
	free(s);
	s = render_table(OUT_HUMAN, "failed", nasty);
	ok(asprintf(&want, "Status: failed\nError: %s\n", esc) > 0, "asprintf");
	is_str(tail_lines(s, 2), want, "human failed: the error on one line");
	free(want);
	free(s);
	s = render_table(OUT_HUMAN, "complete", "ignored when complete");
	ok(!strstr(s, "Status") && !strstr(s, "ignored"), "human complete: no status line");
	free(s);

	s = csv_sidecar("partial", NULL, "[d[\"status\"], d[\"error\"], d[\"rows\"]]",
			"[\"partial\", null, 2]", "CSV partial: the sidecar says so");
	ok(!strchr(s, '#'), "CSV partial: no comment line");
	free(s);
	s = csv_sidecar("failed", nasty, "[d[\"status\"], d[\"error\"]]",
			"[\"failed\", \"QP \\\"7\\\" timed out\\\\retry\\n\\tline 2\\u0001 caf\\u00e9\"]",
			"CSV failed: the error string in the sidecar");
	free(s);
	(void)esc;

	s = render_table(OUT_JSON, "partial", NULL);
	is_str(tail_lines(s, 1), "],\"status\":\"partial\",\"error\":null}\n", "JSON partial");
	check_json(s, "[d[\"status\"], d[\"error\"], len(d[\"results\"])]",
		   "[\"partial\", null, 2]", "JSON partial");
	free(s);
	s = render_table(OUT_JSON, "failed", nasty);
	check_json(s, "[d[\"status\"], d[\"error\"]]",
		   "[\"failed\", \"QP \\\"7\\\" timed out\\\\retry\\n\\tline 2\\u0001 caf\\u00e9\"]",
		   "JSON failed: the error string survives escaping");
	free(s);
}

/* out_end() without out_begin(): a failure before the first result. */
static void test_end_without_begin(void)
{
	struct capture c;
	struct out *o;
	char *s;

	o = capture_open(&c, OUT_JSON);
	out_end(o, "failed", "no device");
	s = capture_close(&c);
	is_str(s, "{\"schema_version\":1,\"title\":null,\"meta\":{},\"results\":[],"
	       "\"status\":\"failed\",\"error\":\"no device\"}\n", "JSON minimal document");
	check_json(s, "d", "{\"error\": \"no device\", \"meta\": {}, \"results\": [], "
		   "\"schema_version\": 1, \"status\": \"failed\", \"title\": null}",
		   "JSON minimal document");
	free(s);

	o = capture_open(&c, OUT_JSON);
	out_meta_str(o, "device", "Device", "rxe0");
	out_meta_u64(o, "port", "Port", 1);
	out_end(o, "failed", nasty);
	s = capture_close(&c);
	check_json(s, "[d[\"meta\"], d[\"results\"], d[\"title\"]]",
		   "[{\"device\": \"rxe0\", \"port\": 1}, [], null]",
		   "JSON without begin keeps the metadata");
	free(s);

	o = capture_open(&c, OUT_CSV);
	out_meta_str(o, "device", "Device", "rxe0");
	out_end(o, "failed", "no device");
	is_str(capture_close(&c), "", "CSV without begin: no table (the sidecar says why)");
	free(c.buf);

	o = capture_open(&c, OUT_HUMAN);
	out_end(o, "failed", "no device");
	is_str(capture_close(&c), "Status: failed\nError: no device\n", "human without begin");
	free(c.buf);

	o = capture_open(&c, OUT_JSON);
	out_begin(o, "empty", cols, NCOLS);
	out_end(o, NULL, NULL);
	is_str(capture_close(&c), "{\"schema_version\":1,\"title\":\"empty\",\"meta\":{},"
	       "\"results\":[],\"status\":\"complete\",\"error\":null}\n",
	       "JSON with no rows; NULL status is complete");
	free(c.buf);
}

/* Hostile strings everywhere a string goes. */
static void test_escaping(void)
{
	static const struct out_col scol[] = {
		{ "na\"me", "Name", OUT_STR, 0 },
		{ "x", "X", OUT_DOUBLE, 1 },
	};
	const union out_val row[] = { { .s = nasty }, { .d = -INFINITY } };
	const union out_val row2[] = { { .s = NULL }, { .d = -0.04 } };
	struct capture c;
	struct out *o;
	char *s;

	o = capture_open(&c, OUT_JSON);
	out_meta_str(o, "k\\ey", "Key", "a\"b");
	out_meta_str(o, "none", "None", NULL);
	out_begin(o, "t\n1", scol, 2);
	out_row(o, row);
	out_row(o, row2);
	out_end(o, "complete", NULL);
	s = capture_close(&c);
	check_json(s, "[d[\"title\"], d[\"meta\"], d[\"results\"]]",
		   "[\"t\\n1\", {\"k\\\\ey\": \"a\\\"b\", \"none\": null}, "
		   "[{\"na\\\"me\": \"QP \\\"7\\\" timed out\\\\retry\\n\\tline 2\\u0001 caf\\u00e9\", "
		   "\"x\": null}, {\"na\\\"me\": null, \"x\": -0.0}]]",
		   "JSON escapes titles, keys and values; Inf is null");
	ok(strstr(s, "\\u0001") && strstr(s, "\\u000a\\u0009line"), "control chars as escapes");
	free(s);

	o = capture_open(&c, OUT_CSV);
	out_begin(o, "t", scol, 2);
	out_row(o, row);
	out_row(o, row2);
	out_end(o, "complete", NULL);
	s = capture_close(&c);
	is_str(s, "\"na\"\"me\",x\n"
	       "\"QP \"\"7\"\" timed out\\retry\n\tline 2\x01 caf\xc3\xa9\",\n"
	       ",-0.0\n", "CSV quotes per RFC 4180, Inf and NULL empty");
	free(s);
}

static void test_parse_format(void)
{
	static const char *const bad[] = { "", "JSON", "xml", "csv ", "jsonx", "hum" };
	enum out_format f = OUT_CSV;

	is_int(out_parse_format("human", &f), 0, "parse human");
	is_int(f, OUT_HUMAN, "human value");
	is_int(out_parse_format("json", &f), 0, "parse json");
	is_int(f, OUT_JSON, "json value");
	is_int(out_parse_format("csv", &f), 0, "parse csv");
	is_int(f, OUT_CSV, "csv value");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[32];

		snprintf(what, sizeof(what), "parse \"%s\" fails", bad[i]);
		is_int(out_parse_format(bad[i], &f), -EINVAL, what);
	}
	is_int(out_parse_format(NULL, &f), -EINVAL, "parse NULL fails");
	is_int(f, OUT_CSV, "value untouched on errors");
}

/* --output (OUT_VALUE): the first column's text a row, nothing else:
 * no metadata, header, rule or status line; NaN as "nan". */
static void test_value(void)
{
	static const struct out_col one[] = { { "bw_avg_gbps", "BW average[Gb/sec]", OUT_DOUBLE, 6 } };
	const union out_val rows[3] = { { .d = 1.2345678 }, { .d = NAN }, { .d = 90 } };
	struct capture c;
	struct out *o = capture_open(&c, OUT_VALUE);
	char *s;

	out_meta_str(o, "device", "Device", "mlx5_0");
	out_begin(o, "RDMA Write BW Test", one, 1);
	for (int i = 0; i < 3; i++)
		out_row(o, &rows[i]);
	out_note(o, "a note");
	out_end(o, "failed", "it broke");
	s = capture_close(&c);
	is_str(s, "1.234568\nnan\n90.000000\n", "--output: one number a row, perftest's %lf, nothing else");
	free(s);
	is_int(out_parse_format("value", &(enum out_format){ OUT_CSV }), -EINVAL,
	       "\"value\" is not a --format");
}

/* A row with parts (-j): JSON nests them, CSV adds them as rows (their
 * cells past part_cols empty), or not at all without part_rows. */
static void test_row_parts(void)
{
	const union out_val row[NCOLS] = { { .u = 2 }, { .d = 3 }, { .s = "all" }, { .d = 7 } };
	const union out_val parts[2][NCOLS] = {
		{ { .u = 1 }, { .d = 1 }, { .s = "0" }, { .d = 9 } },
		{ { .u = 1 }, { .d = 2 }, { .s = "1" }, { .d = 9 } },
	};
	struct capture c;
	struct out *o;
	char *s;

	o = capture_open(&c, OUT_JSON);
	out_begin(o, "t", cols, NCOLS);
	out_row_parts(o, row, "threads", parts[0], 2, NCOLS, 3, false);
	out_end(o, "complete", NULL);
	s = capture_close(&c);
	ok(strstr(s, "\"op\":\"all\",\"lat_p99_us\":7.000,\"threads\":[{\"bytes\":1,\"bw_avg_mibps\":1.00,\"op\":\"0\"},"
		     "{\"bytes\":1,\"bw_avg_mibps\":2.00,\"op\":\"1\"}]}") != NULL,
	   "JSON: the parts inside the row, their first part_cols columns");
	free(s);
	o = capture_open(&c, OUT_CSV);
	out_begin(o, "t", cols, NCOLS);
	out_row_parts(o, row, "threads", parts[0], 2, NCOLS, 3, true);
	out_row_parts(o, row, "threads", parts[0], 2, NCOLS, 3, false);
	out_end(o, "complete", NULL);
	s = capture_close(&c);
	ok(strstr(s, "2,3.00,all,7.000\n1,1.00,0,\n1,2.00,1,\n2,3.00,all,7.000\n") != NULL && !strchr(s, '#'),
	   "CSV: the row, then each part as a row with empty cells, or only the row");
	free(s);
}

int main(void)
{
	test_golden();
	test_sidecar();
	test_end_status();
	test_end_without_begin();
	test_escaping();
	test_parse_format();
	test_row_parts();
	test_value();
	return tap_done();
}
