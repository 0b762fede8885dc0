/*
 * Inside output.h: the state of a document and the operations each format
 * fills (out_human.c, out_csv.c, out_json.c).  output.c keeps what every
 * format shares (the metadata, the values' text, the order of the calls)
 * and calls the format's operations; only the three format files and
 * output.c include this header.
 */
#ifndef RB_OUT_IMPL_H
#define RB_OUT_IMPL_H

#include "lib/output.h"

#define NUM_LEN 352            /* %.*f of DBL_MAX with a few decimals */

/* A metadata item, its value already formatted (NULL: none, NaN). */
struct meta_item {
	enum out_type type;
	char *key, *label, *text;
};

/*
 * One format.  begin, cell and end are required; a NULL row_parts,
 * sub_row or note takes output.c's plain behaviour (the row, then each
 * part as a row; the sub-row as a row; no note).  begin, cell, end,
 * row_parts, sub_row and note run only with a table (o->f); close runs
 * always, last (the CSV sidecar).
 */
struct out_ops {
	const char *name;   /* as --format and out_parse_format() take it */
	void (*begin)(struct out *o, const char *title);
	/* cell i of the current row, text NULL for an empty one */
	void (*cell)(struct out *o, int i, const char *text);
	void (*row_parts)(struct out *o, const union out_val *vals, const char *key,
			  const union out_val *parts, int nparts, int stride, int part_cols);
	void (*sub_row)(struct out *o, const char *key, const union out_val *vals);
	void (*note)(struct out *o, const char *text);
	void (*end)(struct out *o, const char *status, const char *error);
	void (*close)(struct out *o, const char *status, const char *error);
};

extern const struct out_ops out_human_ops, out_csv_ops, out_json_ops, out_value_ops;

struct out {
	enum out_format fmt;
	const struct out_ops *ops;
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

/* The text of a value, or NULL when it has none (NaN, Inf, NULL string). */
const char *out_value_text(enum out_type type, union out_val v, int precision, char *buf,
			   size_t len);
/* A column's human label: its label, else its key. */
const char *out_col_label(const struct out_col *c);
/* {"schema_version":1,"title":...,"meta":{...}  (JSON and the CSV sidecar) */
void out_json_head(const struct out *o, FILE *f, const char *title);
/* "status":...,"error":...}\n  (JSON and the CSV sidecar) */
void out_json_status(FILE *f, const char *status, const char *error);

#endif
