/* The one typed parser of option rows (optrow.h). */
#include "cli/optrow.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/units.h"

#define FIELD(dst, r, type) ((type *)((char *)(dst) + (r)->off))
#define CFIELD(src, r, type) ((const type *)((const char *)(src) + (r)->off))

const struct opt_row *opt_row_by_code(const struct opt_prog *p, int code)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->rows[i].code == code)
			return &p->rows[i];
	return NULL;
}

const struct opt_row *opt_row_by_name(const struct opt_prog *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->rows[i].name && !strcmp(p->rows[i].name, name))
			return &p->rows[i];
	return NULL;
}

const char *opt_label(const struct opt_row *r, char *buf, size_t len)
{
	if (!r)
		snprintf(buf, len, "option");
	else if (r->code < 256)
		snprintf(buf, len, "-%c/--%s", r->code, r->name);
	else
		snprintf(buf, len, "--%s", r->name);
	return buf;
}

const char *opt_enum_name(const struct opt_name *names, int value)
{
	for (; names && names->name; names++)
		if (names->value == value)
			return names->name;
	return "?";
}

/* "RC, UC or UD" */
static void enum_expect(const struct opt_name *names, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; names[i].name && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 !i ? "" : names[i + 1].name ? ", " : " or ", names[i].name);
}

/* What a value of r should be, in words. */
static const char *expect_text(const struct opt_row *r, char *buf, size_t len)
{
	if (r->expect)
		return r->expect;
	switch (r->type) {
	case OT_SECONDS: snprintf(buf, len, "seconds, %g..%g", r->min, r->max); break;
	case OT_NUMBER: snprintf(buf, len, "a number from %g to %g", r->min, r->max); break;
	case OT_ENUM: enum_expect(r->names, buf, len); break;
	default:
		snprintf(buf, len, "an integer %llu..%llu", (unsigned long long)r->min,
			 (unsigned long long)r->max);
	}
	return buf;
}

static int value_error(const struct opt_prog *p, const char *who, const struct opt_row *r,
		       const char *val, int err)
{
	char buf[96];

	return p->error(who, OE_VALUE, r, val, err, expect_text(r, buf, sizeof(buf)));
}

static int apply_whole(const struct opt_prog *p, const char *who, const struct opt_row *r, const char *val, void *dst)
{
	uint64_t v;
	int err = p->whole ? p->whole(val, (uint64_t)r->min, (uint64_t)r->max, &v)
			   : units_parse_uint(val, (uint64_t)r->min, (uint64_t)r->max, &v);

	if (err)
		return value_error(p, who, r, val, err);
	if (r->type == OT_U64)
		*FIELD(dst, r, uint64_t) = v;
	else if (r->type == OT_UINT)
		*FIELD(dst, r, unsigned) = (unsigned)v;
	else if (r->type == OT_U16)
		*FIELD(dst, r, uint16_t) = (uint16_t)v;
	else
		*FIELD(dst, r, int) = (int)v;
	return 0;
}

static int apply_number(const struct opt_prog *p, const char *who, const struct opt_row *r, const char *val, void *dst)
{
	double v = 0;
	char *end = NULL;
	int err;

	if (r->type == OT_SECONDS) {
		err = units_parse_double(val, r->min, r->max, &v);
	} else {
		errno = 0;
		v = val ? strtod(val, &end) : 0;
		err = !val || errno || end == val || *end || !(v >= r->min && v <= r->max) ? -EINVAL : 0;
	}
	if (err)
		return value_error(p, who, r, val, err);
	*FIELD(dst, r, double) = v;
	return 0;
}

static int apply_enum(const struct opt_prog *p, const char *who, const struct opt_row *r, const char *val, void *dst)
{
	for (const struct opt_name *n = r->names; n->name; n++)
		if (val && !strcasecmp(val, n->name)) {
			*FIELD(dst, r, int) = n->value;
			return 0;
		}
	return value_error(p, who, r, val, -EINVAL);
}

int opt_apply(const struct opt_prog *p, const char *who, const struct opt_row *r, const char *val, void *dst)
{
	int err;

	if (r->given)
		*(bool *)((char *)dst + r->given - 1) = true;
	if (r->parse)
		return r->parse(r, val, dst);
	switch (r->type) {
	case OT_FLAG: *FIELD(dst, r, bool) = true; return 0;
	case OT_STR: *FIELD(dst, r, const char *) = val; return 0;
	case OT_U64: case OT_UINT: case OT_INT: case OT_U16: return apply_whole(p, who, r, val, dst);
	case OT_SECONDS: case OT_NUMBER: return apply_number(p, who, r, val, dst);
	case OT_SIZE:
		err = units_parse_size(val, (uint64_t)r->min, (uint64_t)r->max, FIELD(dst, r, uint64_t));
		return err ? value_error(p, who, r, val, err) : 0;
	case OT_ENUM: return apply_enum(p, who, r, val, dst);
	default: return 0;
	}
}

void opt_alt_name(const char *name, char *alt, size_t len)
{
	bool dash = strchr(name, '-') != NULL;
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		alt[i] = dash && name[i] == '-' ? '_' : !dash && name[i] == '_' ? '-' : name[i];
	alt[i] = '\0';
	if (!strcmp(alt, name))
		alt[0] = '\0';
}

#define ALT_LEN 32

/* getopt's tables: every name (in both spellings where p says so). */
static void build_getopt(const struct opt_prog *p, struct option *lo, char (*alt)[ALT_LEN], char *so)
{
	size_t n = 0, k = 0;

	if (p->missing_apart)
		so[n++] = ':';
	for (size_t i = 0; i < p->n; i++) {
		const struct opt_row *r = &p->rows[i];
		int has = r->opt_arg ? optional_argument : r->arg ? required_argument : no_argument;

		alt[i][0] = '\0';
		if (r->name)
			lo[k++] = (struct option){ r->name, has, NULL, r->code };
		if (r->name && p->both_spellings)
			opt_alt_name(r->name, alt[i], ALT_LEN);
		if (alt[i][0])
			lo[k++] = (struct option){ alt[i], has, NULL, r->code };
		if (r->code < 256 && !strchr(so, r->code)) {
			so[n++] = (char)r->code;
			if (r->arg)
				so[n++] = ':';
		}
		so[n] = '\0';
	}
	lo[k] = (struct option){ 0 };
}

/* One getopt result: 0 (go on), OPT_HELP, OPT_VERSION or an error. */
static int parse_one(const struct opt_prog *p, const char *who, int c, char **argv, unsigned features, void *dst)
{
	const struct opt_row *r = opt_row_by_code(p, c);

	if (c == ':')
		return p->error(who, OE_MISSING, NULL, argv[optind - 1], optopt, NULL);
	if (c == '?' || !r)
		return p->error(who, OE_UNKNOWN, NULL, argv[optind - 1], optopt, NULL);
	if (r->type == OT_HELP)
		return OPT_HELP;
	if (r->type == OT_VERSION)
		return OPT_VERSION;
	if (r->feat && !(features & r->feat))
		return p->error(who, OE_FEATURE, r, argv[optind - 1], 0, NULL);
	return opt_apply(p, who, r, optarg, dst);
}

int opt_parse(const struct opt_prog *p, const char *who, int argc, char **argv, unsigned features,
	      void *dst, int *first)
{
	struct option *lo = calloc(2 * p->n + 1, sizeof(*lo));
	char (*alt)[ALT_LEN] = calloc(p->n, sizeof(*alt));
	char *so = calloc(2 * p->n + 2, 1);
	int c, rc = -ENOMEM;

	if (!lo || !alt || !so)
		goto out;
	build_getopt(p, lo, alt, so);
	opterr = 0;
	optind = 0;          /* 0: glibc starts afresh (a second parse in one process) */
	rc = 0;
	while (!rc && (c = getopt_long(argc, argv, so, lo, NULL)) != -1)
		rc = parse_one(p, who, c, argv, features, dst);
	*first = optind;
out:
	free(lo);
	free(alt);
	free(so);
	return rc;
}

int opt_take(const struct opt_prog *p, const char *who, int argc, char **argv, int *i, void *dst, bool *taken)
{
	const char *word = argv[*i], *val = NULL;

	*taken = false;
	for (size_t k = 0; k < p->n && !*taken; k++) {
		const struct opt_row *r = &p->rows[k];
		size_t n = r->name ? strlen(r->name) : 0;
		bool is_short = r->code < 256 && word[0] == '-' && word[1] == r->code && !word[2];

		if (!is_short && (!r->name || strncmp(word, "--", 2) || strncmp(word + 2, r->name, n) ||
				  (word[2 + n] && (word[2 + n] != '=' || !r->arg))))
			continue;
		*taken = true;
		if (!is_short && word[2 + n] == '=')
			val = word + 3 + n;
		else if (r->arg && !r->opt_arg)
			val = *i + 1 < argc ? argv[++*i] : NULL;
		if (r->type == OT_HELP || r->type == OT_VERSION)
			return r->type == OT_HELP ? OPT_HELP : OPT_VERSION;
		return opt_apply(p, who, r, val, dst);
	}
	return 0;
}

uint64_t opt_value_u64(const struct opt_row *r, const void *src)
{
	switch (r->type) {
	case OT_FLAG: return *CFIELD(src, r, bool);
	case OT_U64: case OT_SIZE: return *CFIELD(src, r, uint64_t);
	case OT_UINT: return *CFIELD(src, r, unsigned);
	case OT_U16: return *CFIELD(src, r, uint16_t);
	case OT_INT: case OT_ENUM: return (uint64_t)(int64_t)*CFIELD(src, r, int);
	case OT_SECONDS: case OT_NUMBER: return (uint64_t)*CFIELD(src, r, double);
	default: return 0;
	}
}

void opt_value_text(const struct opt_row *r, const void *src, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (r->type) {
	case OT_U64: case OT_SIZE: case OT_UINT: case OT_U16:
		snprintf(buf, len, "%llu", (unsigned long long)opt_value_u64(r, src));
		break;
	case OT_INT: snprintf(buf, len, "%d", *CFIELD(src, r, int)); break;
	case OT_SECONDS: case OT_NUMBER: snprintf(buf, len, "%g", *CFIELD(src, r, double)); break;
	case OT_ENUM: snprintf(buf, len, "%s", opt_enum_name(r->names, *CFIELD(src, r, int))); break;
	case OT_STR: snprintf(buf, len, "%s", *CFIELD(src, r, const char *) ? *CFIELD(src, r, const char *) : ""); break;
	default: break;
	}
}

#define HELP_WIDTH 79
#define HELP_HEAD 24

/* The length of the unit at text: a word and the words starting with '-'
 * that follow it (kept on its line: see opt_help_wrap). */
static size_t wrap_unit(const char *text)
{
	size_t n = strcspn(text, " ");

	while (text[n] == ' ' && text[n + 1] == '-')
		n += 1 + strcspn(text + n + 1, " ");
	return n;
}

/* A line never starts with '-': tools (docs.sh, gen-options.sh) read
 * those as option heads. */
void opt_help_wrap(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		size_t w = wrap_unit(text);

		if (at > col && at + 1 + (int)w > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		}
		at += fprintf(f, "%s%.*s", at > col ? " " : "", (int)w, text);
		text += w + (text[w] == ' ');
	}
	fputc('\n', f);
}

void opt_help_line(FILE *f, const struct opt_prog *p, const struct opt_row *r, const char *argname,
		   const char *text)
{
	int width = p->help_head ? p->help_head : HELP_HEAD;
	char head[96];
	bool s = r->code < 256;

	snprintf(head, sizeof(head), "%s%c%s--%s%s%s%s", s ? "-" : " ", s ? r->code : ' ',
		 s ? ", " : "  ", r->name, !r->arg ? "" : r->opt_arg ? "[=" : "=",
		 r->arg ? argname : "", r->opt_arg ? "]" : "");
	if ((int)strlen(head) > width)
		fprintf(f, "  %s\n%*s", head, width + 3, "");
	else
		fprintf(f, "  %-*s ", width, head);
	if (p->help_nowrap)
		fprintf(f, "%s\n", text);
	else
		opt_help_wrap(f, text, width + 3);
}

void opt_help_rows(FILE *f, const struct opt_prog *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->rows[i].help && p->rows[i].name)
			opt_help_line(f, p, &p->rows[i], p->rows[i].arg, p->rows[i].help);
}
