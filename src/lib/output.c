#include "lib/output.h"

#include <stdbool.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COL_SEP "   "          /* between human columns and meta pairs */
#define META_SEP " : "         /* between a human label and its value */
#define COL_MIN_WIDTH 10       /* fits any size up to 9 GB, any iteration count */
#define NUM_LEN 352            /* %.*f of DBL_MAX with a few decimals */

/* A metadata item, its value already formatted (NULL: none, NaN). */
struct meta_item {
	enum out_type type;
	char *key, *label, *text;
};

struct out {
	enum out_format fmt;
	FILE *f;               /* NULL: a sidecar alone (no table written) */
	FILE *side;            /* CSV: the NAME.meta.json sidecar, owned */
	char *title;
	struct meta_item *meta;
	int nmeta, cap;
	const struct out_col *cols;
	int ncols;
	int begun, nrows;
	int rule_width;        /* human: the dashed rules */
	int pos;               /* human: characters printed on the current row */
	int nsub;              /* JSON: rows in the open sub-array of the next row */
};

/* --- values -------------------------------------------------------------- */

/* The text of a value, or NULL when it has none (NaN, Inf, NULL string). */
static const char *value_text(enum out_type type, union out_val v, int precision,
			      char *buf, size_t len)
{
	switch (type) {
	case OUT_U64:
		snprintf(buf, len, "%" PRIu64, v.u);
		return buf;
	case OUT_DOUBLE:
		if (!isfinite(v.d))
			return NULL;
		snprintf(buf, len, "%.*f", precision < 0 ? 0 : precision > 30 ? 30 : precision, v.d);
		return buf;
	case OUT_STR:
		return v.s;
	}
	return NULL;
}

/* For '#' comment lines and human text: never more than one line. */
static void put_oneline(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

void out_json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* RFC 4180: quote when the field holds a comma, quote or line break. */
static void put_csv_str(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A JSON value: strings quoted, numbers bare, missing ones null. */
static void put_json_val(FILE *f, enum out_type type, const char *text)
{
	if (type == OUT_STR || !text)
		out_json_string(f, text);
	else
		fputs(text, f);
}

/* --- open, metadata ------------------------------------------------------ */

struct out *out_open(enum out_format fmt, FILE *f)
{
	struct out *o;

	if (fmt != OUT_HUMAN && fmt != OUT_CSV && fmt != OUT_JSON)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (o) {
		o->fmt = fmt;
		o->f = f;
	}
	return o;
}

static void meta_free(struct meta_item *m)
{
	free(m->key);
	free(m->label);
	free(m->text);
}

/* Copies everything; on ENOMEM the item is dropped (the caller cannot act). */
static void meta_add(struct out *o, enum out_type type, const char *key,
		     const char *label, const char *text)
{
	struct meta_item m = { .type = type };

	if (o->begun)
		return;
	if (o->nmeta == o->cap) {
		int cap = o->cap ? 2 * o->cap : 16;
		struct meta_item *p = realloc(o->meta, (size_t)cap * sizeof(*p));

		if (!p)
			return;
		o->meta = p;
		o->cap = cap;
	}
	m.key = strdup(key ? key : "");
	m.label = strdup(label ? label : m.key ? m.key : "");
	m.text = text ? strdup(text) : NULL;
	if (!m.key || !m.label || (text && !m.text)) {
		meta_free(&m);
		return;
	}
	o->meta[o->nmeta++] = m;
}

void out_meta_str(struct out *o, const char *key, const char *label, const char *val)
{
	meta_add(o, OUT_STR, key, label, val);
}

void out_meta_u64(struct out *o, const char *key, const char *label, uint64_t val)
{
	char buf[NUM_LEN];

	meta_add(o, OUT_U64, key, label,
		 value_text(OUT_U64, (union out_val){ .u = val }, 0, buf, sizeof(buf)));
}

void out_meta_double(struct out *o, const char *key, const char *label, double val, int precision)
{
	char buf[NUM_LEN];

	meta_add(o, OUT_DOUBLE, key, label,
		 value_text(OUT_DOUBLE, (union out_val){ .d = val }, precision, buf, sizeof(buf)));
}

/* --- human --------------------------------------------------------------- */

static int max_int(int a, int b) { return a > b ? a : b; }
static int slen(const char *s) { return s ? (int)strlen(s) : 0; }
static const char *human_text(const char *text) { return text ? text : "-"; }

static const char *col_label(const struct out_col *c)
{
	return c->label ? c->label : c->key;
}

static int col_width(const struct out_col *c)
{
	return max_int(slen(col_label(c)), COL_MIN_WIDTH);
}

/* Where column i ends: one leading space, then columns and separators. */
static int col_edge(const struct out *o, int i)
{
	int edge = 1 + col_width(&o->cols[i]);

	for (int j = 0; j < i; j++)
		edge += col_width(&o->cols[j]) + slen(COL_SEP);
	return edge;
}

/* A value longer than this gets a line of its own instead of sharing one. */
#define META_PAIR_MAX 28

static bool meta_is_wide(const struct out *o, int i)
{
	return slen(human_text(o->meta[i].text)) > META_PAIR_MAX;
}

/* Widths of the metadata box: labels, paired values, paired lines. */
static void human_meta_widths(const struct out *o, int *lw, int *vw, int *linew)
{
	*lw = *vw = 0;
	for (int i = 0; i < o->nmeta; i++) {
		*lw = max_int(*lw, slen(o->meta[i].label));
		if (!meta_is_wide(o, i))
			*vw = max_int(*vw, slen(human_text(o->meta[i].text)));
	}
	*linew = 1 + 2 * (*lw + slen(META_SEP) + *vw) + slen(COL_SEP);
}

static void human_rule(FILE *f, int width)
{
	for (int i = 0; i < width; i++)
		fputc('-', f);
	fputc('\n', f);
}

static void human_meta_item(const struct out *o, int i, int lw, const char *lead)
{
	fprintf(o->f, "%s%-*s%s", lead, lw, o->meta[i].label, META_SEP);
	put_oneline(o->f, human_text(o->meta[i].text));
}

/*
 * " Label : value      Label : value": short items two a line, in order;
 * a long value (a command line, a placement note) on a line of its own.
 */
static void human_meta(const struct out *o, int lw, int vw)
{
	int pending = -1;

	for (int i = 0; i < o->nmeta; i++) {
		if (meta_is_wide(o, i) || pending >= 0) {
			if (pending >= 0 && !meta_is_wide(o, i)) {
				human_meta_item(o, pending, lw, " ");
				fprintf(o->f, "%*s", vw - slen(human_text(o->meta[pending].text)), "");
				human_meta_item(o, i, lw, COL_SEP);
				fputc('\n', o->f);
				pending = -1;
				continue;
			}
			if (pending >= 0) {
				human_meta_item(o, pending, lw, " ");
				fputc('\n', o->f);
				pending = -1;
			}
			human_meta_item(o, i, lw, " ");
			fputc('\n', o->f);
			continue;
		}
		pending = i;
	}
	if (pending >= 0) {
		human_meta_item(o, pending, lw, " ");
		fputc('\n', o->f);
	}
}

/*
 * Every cell, label or value, right-aligned in its column, so digits line
 * up.  A cell too wide for its column takes space from the next one's
 * padding, which keeps the columns after it in place.
 */
static void human_cell(struct out *o, int i, const char *text)
{
	int pad;

	if (i == 0)
		o->pos = 0;
	text = human_text(text);
	pad = max_int(col_edge(o, i) - o->pos - slen(text), 1);
	fprintf(o->f, "%*s", pad, "");
	put_oneline(o->f, text);
	o->pos += pad + slen(text);
	if (i + 1 == o->ncols)
		fputc('\n', o->f);
}

static void human_begin(struct out *o, const char *title)
{
	int lw, vw, linew;

	if (!o->nmeta && !title && !o->ncols)
		return;
	human_meta_widths(o, &lw, &vw, &linew);
	o->rule_width = max_int(o->ncols ? col_edge(o, o->ncols - 1) : 0, linew);
	o->rule_width = max_int(o->rule_width, slen(title) + 2);
	human_rule(o->f, o->rule_width);
	if (title)
		fprintf(o->f, "%*s%s\n", (o->rule_width - slen(title)) / 2, "", title);
	human_meta(o, lw, vw);
	human_rule(o->f, o->rule_width);
	for (int i = 0; i < o->ncols; i++)
		human_cell(o, i, col_label(&o->cols[i]));
}

static void human_end(struct out *o, const char *status, const char *error)
{
	if (o->ncols)
		human_rule(o->f, o->rule_width);
	if (!strcmp(status, "complete"))
		return;
	fprintf(o->f, "Status: %s\n", status);
	if (error) {
		fputs("Error: ", o->f);
		put_oneline(o->f, error);
		fputc('\n', o->f);
	}
}

/* --- CSV ---------------------------------------------------------------- */

/*
 * The CSV file holds the header row and the data rows, nothing else, so that
 * any reader takes it with its defaults; what it measured and how it ended
 * goes to the sidecar (sidecar_write).
 */
static void csv_begin(struct out *o, const char *title)
{
	(void)title;
	for (int i = 0; i < o->ncols; i++) {
		if (i)
			fputc(',', o->f);
		put_csv_str(o->f, o->cols[i].key);
	}
	if (o->ncols)
		fputc('\n', o->f);
}

static void csv_cell(struct out *o, int i, const char *text)
{
	if (i)
		fputc(',', o->f);
	put_csv_str(o->f, text);
	if (i + 1 == o->ncols)
		fputc('\n', o->f);
}

static void csv_end(struct out *o, const char *status, const char *error)
{
	(void)o;
	(void)status;
	(void)error;
}

/* --- JSON ---------------------------------------------------------------- */

/* {"schema_version":1,"title":...,"meta":{...}  (shared with the sidecar) */
static void json_head(const struct out *o, FILE *f, const char *title)
{
	fprintf(f, "{\"schema_version\":%d,\"title\":", OUT_SCHEMA_VERSION);
	out_json_string(f, title);
	fputs(",\"meta\":{", f);
	for (int i = 0; i < o->nmeta; i++) {
		if (i)
			fputc(',', f);
		out_json_string(f, o->meta[i].key);
		fputc(':', f);
		put_json_val(f, o->meta[i].type, o->meta[i].text);
	}
	fputc('}', f);
}

/* The head, then "results":[  and one row a line */
static void json_begin(struct out *o, const char *title)
{
	json_head(o, o->f, title);
	fputs(",\"results\":[", o->f);
}

static void json_cell(struct out *o, int i, const char *text)
{
	if (i == 0 && o->nsub) {
		fputs("\n],", o->f);      /* the sub-array ends, its row goes on */
		o->nsub = 0;
	} else if (i == 0) {
		fputs(o->nrows ? ",\n{" : "\n{", o->f);
	} else
		fputc(',', o->f);
	out_json_string(o->f, o->cols[i].key);
	fputc(':', o->f);
	put_json_val(o->f, o->cols[i].type, text);
	if (i + 1 == o->ncols)
		fputc('}', o->f);
}

static void json_status(FILE *f, const char *status, const char *error)
{
	fputs("\"status\":", f);
	out_json_string(f, status);
	fputs(",\"error\":", f);
	out_json_string(f, error);
	fputs("}\n", f);
}

static void json_end(struct out *o, const char *status, const char *error)
{
	if (o->nsub) {                  /* sub-rows whose row never came (a failure) */
		fputs("\n]}", o->f);
		o->nrows++;
	}
	fputs(o->nrows ? "\n]," : "],", o->f);
	json_status(o->f, status, error);
}

/* --- the CSV sidecar ----------------------------------------------------- */

/* The head, "columns":[{"key":...,"label":...},...],"rows":N, the status. */
static void sidecar_write(const struct out *o, const char *status, const char *error)
{
	json_head(o, o->side, o->title);
	fputs(",\"columns\":[", o->side);
	for (int i = 0; i < o->ncols; i++) {
		fputs(i ? ",{\"key\":" : "{\"key\":", o->side);
		out_json_string(o->side, o->cols[i].key);
		fputs(",\"label\":", o->side);
		out_json_string(o->side, col_label(&o->cols[i]));
		fputc('}', o->side);
	}
	fputs("],", o->side);
	if (o->f)       /* a sidecar alone does not see the rows */
		fprintf(o->side, "\"rows\":%d,", o->nrows);
	json_status(o->side, status, error);
}

int out_sidecar_path(const char *csv_path, char *buf, size_t len)
{
	size_t n = strlen(csv_path);
	int w;

	if (n >= 4 && !strcmp(csv_path + n - 4, ".csv"))
		n -= 4;
	w = snprintf(buf, len, "%.*s.meta.json", (int)n, csv_path);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int out_sidecar(struct out *o, const char *csv_path)
{
	char path[4096];
	int err;

	if (!o || o->fmt != OUT_CSV || o->side)
		return 0;
	err = out_sidecar_path(csv_path, path, sizeof(path));
	if (err)
		return err;
	o->side = fopen(path, "w");
	return o->side ? 0 : -errno;
}

/* --- the three formats behind one call per field ------------------------- */

static const struct out_ops {
	void (*begin)(struct out *o, const char *title);
	void (*cell)(struct out *o, int i, const char *text);
	void (*end)(struct out *o, const char *status, const char *error);
} ops[] = {
	[OUT_HUMAN] = { human_begin, human_cell, human_end },
	[OUT_CSV] = { csv_begin, csv_cell, csv_end },
	[OUT_JSON] = { json_begin, json_cell, json_end },
};

void out_begin(struct out *o, const char *title, const struct out_col *cols, int ncols)
{
	if (!o || o->begun)
		return;
	o->begun = 1;
	o->cols = cols;
	o->ncols = cols && ncols > 0 ? ncols : 0;
	o->title = title ? strdup(title) : NULL;
	if (o->f) {
		ops[o->fmt].begin(o, title);
		fflush(o->f);
	}
}

void out_row(struct out *o, const union out_val *vals)
{
	char buf[NUM_LEN];

	if (!o || !o->begun || !o->ncols || !o->f)
		return;
	for (int i = 0; i < o->ncols; i++) {
		const struct out_col *c = &o->cols[i];

		ops[o->fmt].cell(o, i, value_text(c->type, vals[i], c->precision, buf, sizeof(buf)));
	}
	o->nrows++;
	fflush(o->f);
}

/* A row's first ncells values; the other cells are empty. */
static void row_cells(struct out *o, const union out_val *vals, int ncells)
{
	char buf[NUM_LEN];

	for (int i = 0; i < o->ncols; i++) {
		const struct out_col *c = &o->cols[i];

		ops[o->fmt].cell(o, i, i < ncells ? value_text(c->type, vals[i], c->precision, buf,
								sizeof(buf)) : NULL);
	}
}

/* "key":value,... of a row's first ncells columns. */
static void json_fields(struct out *o, const union out_val *vals, int ncells)
{
	char buf[NUM_LEN];

	for (int i = 0; i < ncells && i < o->ncols; i++) {
		const struct out_col *c = &o->cols[i];

		if (i)
			fputc(',', o->f);
		out_json_string(o->f, c->key);
		fputc(':', o->f);
		put_json_val(o->f, c->type, value_text(c->type, vals[i], c->precision, buf, sizeof(buf)));
	}
}

void out_row_parts(struct out *o, const union out_val *vals, const char *key,
		   const union out_val *parts, int nparts, int stride, int part_cols, bool part_rows)
{
	if (!o || !o->begun || !o->ncols)
		return;
	if (o->fmt != OUT_JSON) {
		out_row(o, vals);
		for (int k = 0; part_rows && k < nparts; k++)
			row_cells(o, parts + (size_t)k * (size_t)stride, part_cols);
		fflush(o->f);
		return;
	}
	fputs(o->nrows ? ",\n{" : "\n{", o->f);
	json_fields(o, vals, o->ncols);
	fputs(",", o->f);
	out_json_string(o->f, key);
	fputs(":[", o->f);
	for (int k = 0; k < nparts; k++) {
		fputs(k ? ",{" : "{", o->f);
		json_fields(o, parts + (size_t)k * (size_t)stride, part_cols);
		fputc('}', o->f);
	}
	fputs("]}", o->f);
	o->nrows++;
	fflush(o->f);
}

/* JSON: the next row's key: [ ... ] array, one object per call. */
static void json_sub_row(struct out *o, const char *key, const union out_val *vals)
{
	if (!o->nsub) {
		fputs(o->nrows ? ",\n{" : "\n{", o->f);
		out_json_string(o->f, key);
		fputs(":[", o->f);
	}
	fputs(o->nsub ? ",\n{" : "\n{", o->f);
	json_fields(o, vals, o->ncols);
	fputc('}', o->f);
	o->nsub++;
}

void out_sub_row(struct out *o, const char *key, const union out_val *vals)
{
	if (!o || !o->begun || !o->ncols)
		return;
	if (o->fmt != OUT_JSON) {
		int nrows = o->nrows;

		out_row(o, vals);
		o->nrows = nrows;
		return;
	}
	json_sub_row(o, key, vals);
	fflush(o->f);
}

/* Human: a line of its own after the rows so far. */
void out_note(struct out *o, const char *text)
{
	if (!o || o->fmt != OUT_HUMAN)
		return;
	put_oneline(o->f, text);
	fputc('\n', o->f);
	fflush(o->f);
}

void out_end(struct out *o, const char *status, const char *error)
{
	if (!o)
		return;
	out_begin(o, NULL, NULL, 0);
	status = status ? status : "complete";
	if (o->f) {
		ops[o->fmt].end(o, status, error);
		fflush(o->f);
	}
	if (o->side) {
		sidecar_write(o, status, error);
		fclose(o->side);
	}
	for (int i = 0; i < o->nmeta; i++)
		meta_free(&o->meta[i]);
	free(o->meta);
	free(o->title);
	free(o);
}

int out_parse_format(const char *s, enum out_format *fmt)
{
	static const char *const names[] = {
		[OUT_HUMAN] = "human", [OUT_CSV] = "csv", [OUT_JSON] = "json",
	};

	for (int i = 0; s && i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		if (!strcmp(s, names[i])) {
			*fmt = (enum out_format)i;
			return 0;
		}
	}
	return -EINVAL;
}
