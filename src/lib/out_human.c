/*
 * The human table (output.h): a header box of "Label : value" metadata,
 * two items a line (perftest-like), a dashed rule, the column labels, the
 * rows right-aligned under them, a closing rule, and a status line when the
 * run did not complete.  NaN prints as "-"; nothing spans two lines.
 */
#include "lib/out_impl.h"

#include <stdbool.h>
#include <string.h>

#define COL_SEP "   "          /* between human columns and meta pairs */
#define META_SEP " : "         /* between a human label and its value */
#define COL_MIN_WIDTH 10       /* fits any size up to 9 GB, any iteration count */
/* A value longer than this gets a line of its own instead of sharing one. */
#define META_PAIR_MAX 28

static int max_int(int a, int b) { return a > b ? a : b; }
static int slen(const char *s) { return s ? (int)strlen(s) : 0; }
static const char *human_text(const char *text) { return text ? text : "-"; }

/* Never more than one line: control characters as escapes. */
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

static int col_width(const struct out_col *c)
{
	return max_int(slen(out_col_label(c)), COL_MIN_WIDTH);
}

/* Where column i ends: one leading space, then columns and separators. */
static int col_edge(const struct out *o, int i)
{
	int edge = 1 + col_width(&o->cols[i]);

	for (int j = 0; j < i; j++)
		edge += col_width(&o->cols[j]) + slen(COL_SEP);
	return edge;
}

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
		human_cell(o, i, out_col_label(&o->cols[i]));
}

/* A line of its own after the rows so far. */
static void human_note(struct out *o, const char *text)
{
	put_oneline(o->f, text);
	fputc('\n', o->f);
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

const struct out_ops out_human_ops = {
	.name = "human",
	.begin = human_begin,
	.cell = human_cell,
	.note = human_note,
	.end = human_end,
};
