/*
 * --output (perftest's): one number a row, "%lf" as perftest prints it,
 * nothing else: no header, no metadata, no status (a failed run says so
 * on stderr and in its exit status).  The report gives this format one
 * column (report/columns.c); an empty value prints "nan".
 */
#include "lib/out_impl.h"

static void value_begin(struct out *o, const char *title)
{
	(void)o;
	(void)title;
}

static void value_cell(struct out *o, int i, const char *text)
{
	if (i)
		return;
	fputs(text ? text : "nan", o->f);
	fputc('\n', o->f);
}

static void value_end(struct out *o, const char *status, const char *error)
{
	(void)o;
	(void)status;
	(void)error;
}

const struct out_ops out_value_ops = {
	.name = "value",
	.begin = value_begin,
	.cell = value_cell,
	.end = value_end,
};
