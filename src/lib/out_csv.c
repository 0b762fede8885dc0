/*
 * CSV (output.h): the header row of column keys and the data rows, nothing
 * else, so that any reader takes the file with its defaults (Python's csv,
 * pandas.read_csv, gnuplot).  NaN is an empty field; strings are quoted
 * when they hold a comma, quote or line break (RFC 4180).  What the file
 * measured and how the run ended go to its sidecar, NAME.meta.json,
 * written when the document ends.
 */
#include "lib/out_impl.h"

#include <errno.h>
#include <string.h>

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

/* The table ends with its last row: the status goes to the sidecar. */
static void csv_end(struct out *o, const char *status, const char *error)
{
	(void)o;
	(void)status;
	(void)error;
}

/* --- the sidecar ---------------------------------------------------------- */

/* The head, "columns":[{"key":...,"label":...},...],"rows":N, the status. */
static void sidecar_write(const struct out *o, const char *status, const char *error)
{
	out_json_head(o, o->side, o->title);
	fputs(",\"columns\":[", o->side);
	for (int i = 0; i < o->ncols; i++) {
		fputs(i ? ",{\"key\":" : "{\"key\":", o->side);
		out_json_string(o->side, o->cols[i].key);
		fputs(",\"label\":", o->side);
		out_json_string(o->side, out_col_label(&o->cols[i]));
		fputc('}', o->side);
	}
	fputs("],", o->side);
	if (o->f)       /* a sidecar alone does not see the rows */
		fprintf(o->side, "\"rows\":%d,", o->nrows);
	out_json_status(o->side, status, error);
}

static void csv_close(struct out *o, const char *status, const char *error)
{
	if (!o->side)
		return;
	sidecar_write(o, status, error);
	fclose(o->side);
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

	if (!o || o->ops != &out_csv_ops || o->side)
		return 0;
	err = out_sidecar_path(csv_path, path, sizeof(path));
	if (err)
		return err;
	o->side = fopen(path, "w");
	return o->side ? 0 : -errno;
}

const struct out_ops out_csv_ops = {
	.name = "csv",
	.begin = csv_begin,
	.cell = csv_cell,
	.end = csv_end,
	.close = csv_close,
};
