/*
 * JSON (output.h): one object, valid after out_end() on every path.  NaN
 * and Inf are null; strings are escaped (control characters \u00XX);
 * metadata keeps its type.  Its own operations: a row with parts holds
 * them in an array ("threads"), and the rows that belong to the next row
 * (its intervals) open an array in that row's object.
 */
#include "lib/out_impl.h"

/* One row a line: "\n{" for the first, ",\n{" after. */
#define ROW_OPEN(o) ((o)->nrows ? ",\n{" : "\n{")

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

/* A JSON value: strings quoted, numbers bare, missing ones null. */
static void put_json_val(FILE *f, enum out_type type, const char *text)
{
	if (type == OUT_STR || !text)
		out_json_string(f, text);
	else
		fputs(text, f);
}

void out_json_head(const struct out *o, FILE *f, const char *title)
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

void out_json_status(FILE *f, const char *status, const char *error)
{
	fputs("\"status\":", f);
	out_json_string(f, status);
	fputs(",\"error\":", f);
	out_json_string(f, error);
	fputs("}\n", f);
}

/* The head, then "results":[  and one row a line */
static void json_begin(struct out *o, const char *title)
{
	out_json_head(o, o->f, title);
	fputs(",\"results\":[", o->f);
}

static void json_cell(struct out *o, int i, const char *text)
{
	if (i == 0 && o->nsub) {
		fputs("\n],", o->f);      /* the sub-array ends, its row goes on */
		o->nsub = 0;
	} else if (i == 0) {
		fputs(ROW_OPEN(o), o->f);
	} else
		fputc(',', o->f);
	out_json_string(o->f, o->cols[i].key);
	fputc(':', o->f);
	put_json_val(o->f, o->cols[i].type, text);
	if (i + 1 == o->ncols)
		fputc('}', o->f);
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
		put_json_val(o->f, c->type, out_value_text(c->type, vals[i], c->precision, buf,
							   sizeof(buf)));
	}
}

/* {...the row..., "key":[ {...part...}, ... ]}: every part, in the row. */
static void json_row_parts(struct out *o, const union out_val *vals, const char *key,
			   const union out_val *parts, int nparts, int stride, int part_cols)
{
	fputs(ROW_OPEN(o), o->f);
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
}

/* The next row's key: [ ... ] array, one object per call; the row's first
 * cell closes it (json_cell). */
static void json_sub_row(struct out *o, const char *key, const union out_val *vals)
{
	if (!o->nsub) {
		fputs(ROW_OPEN(o), o->f);
		out_json_string(o->f, key);
		fputs(":[", o->f);
	}
	fputs(o->nsub ? ",\n{" : "\n{", o->f);
	json_fields(o, vals, o->ncols);
	fputc('}', o->f);
	o->nsub++;
}

static void json_end(struct out *o, const char *status, const char *error)
{
	if (o->nsub) {                  /* sub-rows whose row never came (a failure) */
		fputs("\n]}", o->f);
		o->nrows++;
	}
	fputs(o->nrows ? "\n]," : "],", o->f);
	out_json_status(o->f, status, error);
}

const struct out_ops out_json_ops = {
	.name = "json",
	.begin = json_begin,
	.cell = json_cell,
	.row_parts = json_row_parts,
	.sub_row = json_sub_row,
	.end = json_end,
};
