/* The parser's names: spellings, prefixes, ambiguity, another tool's names. */
#include "cli/optcompat.h"

#include <errno.h>
#include <string.h>

#include "lib/log.h"

bool opt_same_name(const char *a, const char *b, bool both)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !(both && strchr("-_", *a) && strchr("-_", *b)))
			return false;
	return *a == *b;
}

/* name starts with prefix, '-' and '_' one where both. */
static bool has_prefix(const char *name, const char *prefix, bool both)
{
	size_t n = strlen(prefix);
	char head[64];

	if (strlen(name) < n || n >= sizeof(head))
		return false;
	snprintf(head, sizeof(head), "%.*s", (int)n, name);
	return opt_same_name(head, prefix, both);
}

size_t opt_prefix_count(const struct opt_prog *p, const char *prefix, const struct opt_row **only)
{
	size_t count = 0;

	for (size_t i = 0; i < p->n; i++)
		if (p->rows[i].name && has_prefix(p->rows[i].name, prefix, p->both_spellings)) {
			count++;
			if (only)
				*only = &p->rows[i];
		}
	for (const struct opt_compat *e = p->compat; e && e->name; e++)
		if (!opt_row_by_name(p, e->name) && has_prefix(e->name, prefix, true))
			count++;
	return count;
}

size_t opt_compat_count(const struct opt_prog *p)
{
	size_t n = 0;

	while (p->compat && p->compat[n].name)
		n++;
	return n;
}

const struct opt_compat *opt_compat_find(const struct opt_prog *p, const char *name, int letter)
{
	for (const struct opt_compat *e = p->compat; e && e->name; e++) {
		if (name ? opt_same_name(e->name, name, true) : e->letter == letter)
			return e;
	}
	return NULL;
}

const char *opt_compat_class_name(enum compat_class c)
{
	static const char *const names[PC_N] = {
		[PC_SAME] = "same", [PC_ALIAS] = "alias", [PC_NOOP] = "no-op", [PC_OTHER] = "other",
		[PC_BUILT] = "built", [PC_VERBS] = "verbs", [PC_MEMORY] = "memory", [PC_REFUSED] = "refused",
	};

	return c > 0 && c < PC_N ? names[c] : "?";
}

/* Has getopt's val v been seen (the other spelling of a name)? */
static bool seen_val(const int *seen, size_t n, int v)
{
	for (size_t k = 0; k < n; k++)
		if (seen[k] == v)
			return true;
	return false;
}

/* "--use": the distinct options getopt's lo names starting with it. */
int opt_unknown_long(const struct opt_prog *p, const char *who, const char *word, const struct option *lo)
{
	size_t n = strcspn(word + 2, "="), used = 0, count = 0;
	char list[512] = "";
	int seen[256];

	for (size_t i = 0; lo[i].name && count < 256; i++) {
		if (strncmp(lo[i].name, word + 2, n) || seen_val(seen, count, lo[i].val))
			continue;
		seen[count++] = lo[i].val;
		if (count <= 6)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s", count > 1 ? ", " : "",
						 lo[i].name);
	}
	if (count > 6)
		snprintf(list + used, sizeof(list) - used, " or %zu more", count - 6);
	if (count < 2)
		return p->error(who, OE_UNKNOWN, NULL, word, 0, NULL);
	return p->error(who, OE_AMBIGUOUS, NULL, word, 0, list);
}

static const char *compat_label(const struct opt_compat *e, char *buf, size_t len)
{
	if (e->letter)
		snprintf(buf, len, "-%c/--%s", e->letter, e->name);
	else
		snprintf(buf, len, "--%s", e->name);
	return buf;
}

int opt_compat_take(const struct opt_prog *p, const char *who, const struct opt_compat *e, const char *word)
{
	const char *tool = p->compat_tool ? p->compat_tool : "another tool";
	char lbl[64];

	(void)who, (void)word;
	compat_label(e, lbl, sizeof(lbl));
	switch (e->cls) {
	case PC_NOOP:
		log_info("note: %s (%s's) has no effect here: %s", lbl, tool, e->why);
		return 0;
	case PC_VERBS:
	case PC_MEMORY:
		log_err("%s is %s's option (%s), not in rdmabench yet: it comes with the %s issue (#%d)", lbl, tool,
			e->why, e->cls == PC_VERBS ? "verbs-features" : "memory", e->cls == PC_VERBS ? 36 : 37);
		break;
	case PC_BUILT:
		log_err("%s is %s's option, not in this build yet (issue #35)", lbl, tool);
		break;
	default:
		log_err("%s is %s's option, refused here: %s", lbl, tool, e->why ? e->why : "not taken");
	}
	if (e->ours && e->cls != PC_BUILT)
		log_info("instead: %s", e->ours);
	log_info("see PERFTEST COMPATIBILITY in rdmabench(7)");
	return -EINVAL;
}
