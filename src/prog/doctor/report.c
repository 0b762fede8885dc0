/* The doctor's report: one line per check, as text or one JSON document. */
#include <stdarg.h>
#include <string.h>

#include "prog/doctor/doctor.h"
#include "lib/output.h"

static const char *const level_names[] = { "ok", "warn", "fail" };

void dr_add(struct dr_report *r, const char *name, enum dr_level l, const char *advice,
	    const char *fmt, ...)
{
	struct dr_check *c;
	va_list ap;

	if (r->n >= DR_MAX_CHECKS)
		return;
	c = &r->c[r->n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->level = l;
	snprintf(c->advice, sizeof(c->advice), "%s", advice && l != DR_OK ? advice : "");
	va_start(ap, fmt);
	vsnprintf(c->observed, sizeof(c->observed), fmt, ap);
	va_end(ap);
}

enum dr_level dr_worst(const struct dr_report *r)
{
	enum dr_level w = DR_OK;

	for (int i = 0; i < r->n; i++)
		if (r->c[i].level > w)
			w = r->c[i].level;
	return w;
}

static int dr_count(const struct dr_report *r, enum dr_level l)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += r->c[i].level == l;
	return n;
}

static void print_text(FILE *f, const struct dr_report *r, const char *title)
{
	fprintf(f, "%s\n", title);
	for (int i = 0; i < r->n; i++) {
		const struct dr_check *c = &r->c[i];

		fprintf(f, "%-5s %-16s %s\n", level_names[c->level], c->name, c->observed);
		if (c->advice[0])
			fprintf(f, "%-22s -> %s\n", "", c->advice);
	}
	fprintf(f, "summary: %d ok, %d warn, %d fail\n", dr_count(r, DR_OK), dr_count(r, DR_WARN),
		dr_count(r, DR_FAIL));
}

static void json_member(FILE *f, const char *key, const char *val, const char *after)
{
	out_json_string(f, key);
	fputc(':', f);
	out_json_string(f, val);
	fputs(after, f);
}

static void print_json(FILE *f, const struct dr_report *r, const char *title)
{
	fputs("{\"schema_version\":1,", f);
	json_member(f, "title", title, ",\"checks\":[");
	for (int i = 0; i < r->n; i++) {
		const struct dr_check *c = &r->c[i];

		fputs(i ? ",{" : "{", f);
		json_member(f, "name", c->name, ",");
		json_member(f, "status", level_names[c->level], ",");
		json_member(f, "observed", c->observed, ",");
		json_member(f, "advice", c->advice, "}");
	}
	fprintf(f, "],\"summary\":{\"ok\":%d,\"warn\":%d,\"fail\":%d},", dr_count(r, DR_OK),
		dr_count(r, DR_WARN), dr_count(r, DR_FAIL));
	json_member(f, "status", level_names[dr_worst(r)], "}\n");
}

void dr_print(FILE *f, const struct dr_report *r, bool json, const char *title)
{
	if (json)
		print_json(f, r, title);
	else
		print_text(f, r, title);
}
