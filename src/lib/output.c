/*
 * What the three formats share: the metadata, the values' text and the
 * order of the calls.  Each format is a table of operations (out_impl.h)
 * in a file of its own: out_human.c, out_csv.c, out_json.c.
 */
#include "lib/out_impl.h"

#include <stdbool.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct out_ops *const formats[] = {
	[OUT_HUMAN] = &out_human_ops,
	[OUT_CSV] = &out_csv_ops,
	[OUT_JSON] = &out_json_ops,
	[OUT_VALUE] = &out_value_ops,
};

/* --- values -------------------------------------------------------------- */

const char *out_value_text(enum out_type type, union out_val v, int precision, char *buf,
			   size_t len)
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

const char *out_col_label(const struct out_col *c)
{
	return c->label ? c->label : c->key;
}

/* --- open, metadata ------------------------------------------------------ */

struct out *out_open(enum out_format fmt, FILE *f)
{
	struct out *o;

	if ((unsigned)fmt >= sizeof(formats) / sizeof(formats[0]))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (o) {
		o->fmt = fmt;
		o->ops = formats[fmt];
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
		 out_value_text(OUT_U64, (union out_val){ .u = val }, 0, buf, sizeof(buf)));
}

void out_meta_double(struct out *o, const char *key, const char *label, double val, int precision)
{
	char buf[NUM_LEN];

	meta_add(o, OUT_DOUBLE, key, label,
		 out_value_text(OUT_DOUBLE, (union out_val){ .d = val }, precision, buf, sizeof(buf)));
}

/* --- the calls, each format's operations behind them --------------------- */

void out_begin(struct out *o, const char *title, const struct out_col *cols, int ncols)
{
	if (!o || o->begun)
		return;
	o->begun = 1;
	o->cols = cols;
	o->ncols = cols && ncols > 0 ? ncols : 0;
	o->title = title ? strdup(title) : NULL;
	if (o->f) {
		o->ops->begin(o, title);
		fflush(o->f);
	}
}

/* A row's first ncells values; the other cells are empty. */
static void row_cells(struct out *o, const union out_val *vals, int ncells)
{
	char buf[NUM_LEN];

	for (int i = 0; i < o->ncols; i++) {
		const struct out_col *c = &o->cols[i];

		o->ops->cell(o, i, i < ncells ? out_value_text(c->type, vals[i], c->precision, buf,
								sizeof(buf)) : NULL);
	}
}

void out_row(struct out *o, const union out_val *vals)
{
	if (!o || !o->begun || !o->ncols || !o->f)
		return;
	row_cells(o, vals, o->ncols);
	o->nrows++;
	fflush(o->f);
}

void out_row_parts(struct out *o, const union out_val *vals, const char *key,
		   const union out_val *parts, int nparts, int stride, int part_cols, bool part_rows)
{
	if (!o || !o->begun || !o->ncols || !o->f)
		return;
	if (o->ops->row_parts) {
		o->ops->row_parts(o, vals, key, parts, nparts, stride, part_cols);
		o->nrows++;
	} else {
		out_row(o, vals);
		for (int k = 0; part_rows && k < nparts; k++)
			row_cells(o, parts + (size_t)k * (size_t)stride, part_cols);
	}
	fflush(o->f);
}

void out_sub_row(struct out *o, const char *key, const union out_val *vals)
{
	if (!o || !o->begun || !o->ncols || !o->f)
		return;
	if (o->ops->sub_row) {
		o->ops->sub_row(o, key, vals);
		fflush(o->f);
		return;
	}
	row_cells(o, vals, o->ncols);   /* a row, not counted */
	fflush(o->f);
}

void out_note(struct out *o, const char *text)
{
	if (!o || !o->f || !o->ops->note)
		return;
	o->ops->note(o, text);
	fflush(o->f);
}

void out_end(struct out *o, const char *status, const char *error)
{
	if (!o)
		return;
	out_begin(o, NULL, NULL, 0);
	status = status ? status : "complete";
	if (o->f) {
		o->ops->end(o, status, error);
		fflush(o->f);
	}
	if (o->ops->close)
		o->ops->close(o, status, error);
	for (int i = 0; i < o->nmeta; i++)
		meta_free(&o->meta[i]);
	free(o->meta);
	free(o->title);
	free(o);
}

int out_parse_format(const char *s, enum out_format *fmt)
{
	for (int i = 0; s && i < OUT_VALUE; i++) {
		if (!strcmp(s, formats[i]->name)) {
			*fmt = (enum out_format)i;
			return 0;
		}
	}
	return -EINVAL;
}
