/* The benchmarks' --help, from the rows (rows.c): the groups, each row's
 * head and text, and the default options_init_defaults() gives it. */
#include "cli/options.h"

#include <string.h>

#include "cli/rows.h"

static const char *const group_title[G_N] = {
	[G_CONN] = "Connection", [G_TEST] = "Test", [G_OUTPUT] = "Output",
	[G_PLACE] = "Placement", [G_INFO] = "Information",
};

/* "RC|UC|UD": the transports b accepts. */
static void transports_text(const struct rb_bench *b, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned t = TR_RC; t <= TR_UD && used < len; t <<= 1)
		if (b->transports & t)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
						 options_transport_name((enum rb_transport)t));
}

static void inline_default_text(const struct rb_bench *b, char *buf, size_t len)
{
	uint32_t rc = options_inline_default(b, TR_RC), ud = options_inline_default(b, TR_UD);

	if ((b->transports & TR_UD) && ud != rc)
		snprintf(buf, len, "%u, UD %u", rc, ud);
	else
		snprintf(buf, len, "%u", rc);
}

static void pcts_text(const struct rb_options *o, char *buf, size_t len)
{
	size_t used = 0;

	for (int i = 0; i < o->npct && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%g", i ? "," : "", o->pcts[i]);
}

/* The default of a show_def row for b: its field in the defaults, as its
 * type writes it; the values of their own kind as they read. */
static void default_text(const struct opt_row *r, const struct rb_bench *b, char *buf, size_t len)
{
	struct rb_options d;

	options_init_defaults(b, &d);
	buf[0] = '\0';
	if (!r->show_def)
		return;
	if (r->code == 'I')
		inline_default_text(b, buf, len);
	else if (r->parse == opt_parse_pcts)
		pcts_text(&d, buf, len);
	else
		opt_value_text(r, &d, buf, len);
}

static void usage_line(const struct opt_row *r, const struct rb_bench *b, FILE *f)
{
	char arg[64], def[64], text[320];

	snprintf(arg, sizeof(arg), "%s", r->arg ? r->arg : "");
	if (r->code == 'c')
		transports_text(b, "|", arg, sizeof(arg));
	default_text(r, b, def, sizeof(def));
	snprintf(text, sizeof(text), "%s%s%s%s%s", r->help,
		 r->code == 'a' && (b->transports & TR_UD) ? " (UD: up to the MTU)" : "",
		 def[0] ? " (default " : "", def, def[0] ? ")" : "");
	opt_help_line(f, &options_prog, r, arg, text);
}

static bool listed(const struct opt_row *r, const struct rb_bench *b)
{
	return r->help && (!r->feat || (options_features(b) & r->feat));
}

void options_usage(const struct rb_bench *b, FILE *f)
{
	fprintf(f, "Usage: %s [OPTIONS]          run the server\n"
		   "       %s [OPTIONS] HOST     run the client against HOST\n\n",
		b->name, b->name);
	opt_help_wrap(f, b->summary, 0);
	for (int g = 0; g < G_N; g++) {
		fprintf(f, "\n%s:\n", group_title[g]);
		for (size_t i = 0; i < options_prog.n; i++)
			if (options_prog.rows[i].group == g && listed(&options_prog.rows[i], b))
				usage_line(&options_prog.rows[i], b, f);
	}
	fprintf(f, "\nLong options may be spelt with - or _ (--ib-dev, --ib_dev) and shortened to a\n"
		   "unique prefix.  perftest's %zu option names are known: each is taken as ours,\n"
		   "as a no-op, or refused with what to use instead (rdmabench(7), PERFTEST\n"
		   "COMPATIBILITY).\n"
		   "Exit status: 0 success, 1 runtime failure, 2 usage error.\n", opt_compat_count(&options_prog));
}
