/*
 * Results output: one call per field feeds the human table, CSV and JSON,
 * so the three never drift.  Only results go to the FILE given (stdout or a
 * file); nothing here writes diagnostics.
 *
 * Human:  a header box of "Label : value" metadata lines (two per line,
 *         perftest-like), a dashed rule, the column labels, one row per
 *         out_row(), a closing rule.  NaN prints as "-".
 * CSV:    the header row of column keys, one row per out_row(), nothing
 *         else: Python's csv, pandas.read_csv and gnuplot read it with
 *         their defaults.  NaN prints as an empty field.  Strings are
 *         quoted when they hold a comma, quote or newline (RFC 4180).
 *         The title, metadata, columns and status go to the sidecar
 *         (out_sidecar), written by out_end():
 *         {"schema_version":1,"title":...,"meta":{...},
 *          "columns":[{"key":...,"label":...},...],"rows":N,
 *          "status":"complete","error":null}
 * JSON:   one object, valid after out_end() on every path:
 *         {"schema_version":1,"title":"...","meta":{...},"results":[{...},...],
 *          "status":"complete","error":null}
 *         NaN/Inf print as null; strings are escaped (control chars \u00XX).
 *         Metadata items added with out_meta_* keep their JSON type.
 *
 * The files: output.c holds what the formats share (metadata, the values'
 * text, the order of the calls); each format fills a table of operations
 * (lib/out_impl.h) in a file of its own, out_human.c, out_csv.c (and the
 * sidecar) and out_json.c (its row parts and sub-rows are its own
 * operations).  A new format is one file and four lines: its value in
 * enum out_format below, its table in out_impl.h's list and output.c's,
 * and the file in Makefile.am (a tab-separated one, tried: 5 files).
 */
#ifndef RB_OUTPUT_H
#define RB_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define OUT_SCHEMA_VERSION 1

/* OUT_VALUE: perftest's --output, one number a row (out_value.c); not a
 * --format of its own (out_parse_format does not take it). */
enum out_format { OUT_HUMAN, OUT_CSV, OUT_JSON, OUT_VALUE };
enum out_type { OUT_U64, OUT_DOUBLE, OUT_STR };

struct out_col {
	const char *key;     /* CSV/JSON name, unit in the name: "bw_avg_mibps" */
	const char *label;   /* human column header: "BW average[MiB/sec]" */
	enum out_type type;
	int precision;       /* decimals for OUT_DOUBLE */
};

union out_val {
	uint64_t u;
	double d;
	const char *s;
};

struct out;

/*
 * f is not owned (not closed).  NULL on ENOMEM.  f NULL with OUT_CSV: no
 * table, only the sidecar (for files other modules write, e.g. -H).
 */
struct out *out_open(enum out_format fmt, FILE *f);
/*
 * CSV only (0 and nothing done for the other formats): open the sidecar of
 * the CSV file csv_path for writing, "x.csv" -> "x.meta.json" (any other
 * name: NAME.meta.json).  0 or -errno.  Call before out_end().
 */
int out_sidecar(struct out *o, const char *csv_path);
/* The sidecar's name for csv_path in buf; 0 or -ENAMETOOLONG. */
int out_sidecar_path(const char *csv_path, char *buf, size_t len);
/* Metadata: call before out_begin(). key for CSV/JSON, label for humans. */
void out_meta_str(struct out *o, const char *key, const char *label, const char *val);
void out_meta_u64(struct out *o, const char *key, const char *label, uint64_t val);
void out_meta_double(struct out *o, const char *key, const char *label, double val, int precision);
/* Print the header (metadata + column header).  cols must outlive o. */
void out_begin(struct out *o, const char *title, const struct out_col *cols, int ncols);
/* One result row: vals[i] matches cols[i]. Flushes f. */
void out_row(struct out *o, const union out_val *vals);
/*
 * A row made of parts (-j: the threads' rows under the total).  JSON: the
 * row's object holds key: [ one object per part ]; CSV and human: the row,
 * then (part_rows) each part as a row of its own.  A part has its first
 * part_cols values (stride values apart in parts); its other cells are
 * empty.
 */
void out_row_parts(struct out *o, const union out_val *vals, const char *key,
		   const union out_val *parts, int nparts, int stride, int part_cols, bool part_rows);
/*
 * A row that belongs to the next out_row() (an interval of it): human and
 * CSV print it as a row (a column of the caller's tells them apart); JSON
 * puts it in the array key of the next row's object:
 * {"intervals":[{...},{...}],"size_bytes":...}.  Flushes f.
 */
void out_sub_row(struct out *o, const char *key, const union out_val *vals);
/* Human only: a line of text after the rows so far (CSV, JSON: nothing). */
void out_note(struct out *o, const char *text);
/*
 * Close the document: status is "complete", "partial" or "failed"; error is
 * NULL or a message (JSON "error", the CSV sidecar's "error", human: a line
 * "Status: partial" / "Error: ..." after the table, only when not complete).
 * Safe to call when out_begin() was never called (prints a minimal valid
 * document for JSON).  Frees o.
 */
void out_end(struct out *o, const char *status, const char *error);

/* Write s as a JSON string literal (NULL as null), every control character
 * escaped; for other modules that print JSON (rb_devices). */
void out_json_string(FILE *f, const char *s);

/* Parse "human", "csv", "json" (never OUT_VALUE). 0 or -EINVAL. */
int out_parse_format(const char *s, enum out_format *fmt);

#endif
