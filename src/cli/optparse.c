/* The one typed parser of option rows (optrow.h). */
#include "cli/optrow.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/optcompat.h"
#include "lib/log.h"
#include "lib/units.h"

#define FIELD(dst, r, type) ((type *)((char *)(dst) + (r)->off))
#define CFIELD(src, r, type) ((const type *)((const char *)(src) + (r)->off))

int opt_letter(const struct opt_row *r)
{
	return r->code > 0 && r->code < 256 ? r->code : 0;
}

const struct opt_row *opt_row_by_code(const struct opt_prog *p, int code)
{
	for (size_t i = 0; i < p->n; i++)
		if (opt_letter(&p->rows[i]) == code)
			return &p->rows[i];
	return NULL;
}

const struct opt_row *opt_row_by_name(const struct opt_prog *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->rows[i].name && opt_same_name(p->rows[i].name, name, p->both_spellings))
			return &p->rows[i];
	return NULL;
}

const char *opt_label(const struct opt_row *r, char *buf, size_t len)
{
	if (!r)
		snprintf(buf, len, "option");
	else if (opt_letter(r))
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

/*
 * getopt's tables.  A short option is its letter; a long-only row i is
 * 256 + i, compat entry j (perftest's names) 256 + rows + j: no code to
 * number by hand.  Every long name in both spellings where p says so.
 */
#define ALT_LEN 32
#define VAL_ROW(i) (256 + (int)(i))
#define VAL_COMPAT(p, j) (256 + (int)(p)->n + (int)(j))

struct getopt_tables {
	struct option *lo;
	char (*alt)[ALT_LEN];
	char *so;
	size_t nlo, nalt, nso;
};

static int row_val(const struct opt_prog *p, const struct opt_row *r)
{
	return opt_letter(r) ? opt_letter(r) : VAL_ROW(r - p->rows);
}

static int row_has(const struct opt_row *r)
{
	return r->opt_arg ? optional_argument : r->arg ? required_argument : no_argument;
}

static void add_long(struct getopt_tables *t, const char *name, int has, int val, bool both)
{
	char *alt = t->alt[t->nalt];

	t->lo[t->nlo++] = (struct option){ name, has, NULL, val };
	if (!both)
		return;
	opt_alt_name(name, alt, ALT_LEN);
	if (alt[0]) {
		t->lo[t->nlo++] = (struct option){ alt, has, NULL, val };
		t->nalt++;
	}
}

static void add_short(struct getopt_tables *t, int letter, bool arg)
{
	if (strchr(t->so, letter))
		return;
	t->so[t->nso++] = (char)letter;
	if (arg)
		t->so[t->nso++] = ':';
	t->so[t->nso] = '\0';
}

/* The other tool's names that no row has: aliases as their row, the rest
 * as themselves (parse_one takes them to opt_compat_take). */
static void add_compat(const struct opt_prog *p, struct getopt_tables *t)
{
	for (size_t j = 0; p->compat && p->compat[j].name; j++) {
		const struct opt_compat *e = &p->compat[j];
		const struct opt_row *r = e->cls == PC_ALIAS ? opt_row_by_name(p, e->ours) : NULL;

		if (!opt_row_by_name(p, e->name))
			add_long(t, e->name, r ? row_has(r) : e->arg ? required_argument : no_argument,
				 r ? row_val(p, r) : VAL_COMPAT(p, j), p->both_spellings);
		if (e->letter && !opt_row_by_code(p, e->letter))
			add_short(t, e->letter, r ? r->arg && !r->opt_arg : e->arg);
	}
}

static void build_getopt(const struct opt_prog *p, struct getopt_tables *t)
{
	if (p->missing_apart)
		t->so[t->nso++] = ':';
	for (size_t i = 0; i < p->n; i++) {
		const struct opt_row *r = &p->rows[i];

		if (r->name)
			add_long(t, r->name, row_has(r), row_val(p, r), p->both_spellings);
		if (opt_letter(r))
			add_short(t, opt_letter(r), r->arg && !r->opt_arg);
	}
	add_compat(p, t);
	t->lo[t->nlo] = (struct option){ 0 };
}

/* What getopt's c stands for: a row, or (*e) a compat entry. */
static const struct opt_row *val_row(const struct opt_prog *p, int c, const struct opt_compat **e)
{
	const struct opt_row *r = NULL;

	*e = NULL;
	if (c > 0 && c < 256 && !(r = opt_row_by_code(p, c)))
		*e = opt_compat_find(p, NULL, c);
	else if (c >= VAL_ROW(0) && c < VAL_ROW(p->n))
		r = &p->rows[c - VAL_ROW(0)];
	else if (c >= VAL_COMPAT(p, 0) && c < VAL_COMPAT(p, opt_compat_count(p)))
		*e = &p->compat[c - VAL_COMPAT(p, 0)];
	if (*e && (*e)->cls == PC_ALIAS) {
		r = opt_row_by_name(p, (*e)->ours);
		*e = NULL;
	}
	return r;
}

/* A row of another feature: refused, or (lax) accepted with no effect. */
static int other_feature(const struct opt_prog *p, const char *who, const struct opt_row *r, const char *word)
{
	char lbl[48];

	if (!r->lax)
		return p->error(who, OE_FEATURE, r, word, 0, NULL);
	log_info("note: %s has no effect on %s (accepted, as perftest does)", opt_label(r, lbl, sizeof(lbl)), who);
	return 0;
}

/* One getopt result: 0 (go on), OPT_HELP, OPT_VERSION or an error. */
static int parse_one(const struct opt_prog *p, const char *who, int c, char **argv, unsigned features,
		     void *dst, const struct getopt_tables *t)
{
	const struct opt_compat *e;
	const struct opt_row *r = val_row(p, c, &e);
	const char *word = argv[optind - 1];

	if (c == ':')
		return p->error(who, OE_MISSING, NULL, word, optopt < 256 ? optopt : 0, NULL);
	if (c == '?' && !optopt && !strncmp(word, "--", 2))
		return opt_unknown_long(p, who, word, t->lo);
	if (c == '?' || (!r && !e))
		return p->error(who, OE_UNKNOWN, NULL, word, optopt > 0 && optopt < 256 ? optopt : 0, NULL);
	if (e)
		return opt_compat_take(p, who, e, word);
	if (r->type == OT_HELP)
		return OPT_HELP;
	if (r->type == OT_VERSION)
		return OPT_VERSION;
	if (r->feat && !(features & r->feat))
		return other_feature(p, who, r, word);
	return opt_apply(p, who, r, optarg, dst);
}

int opt_parse(const struct opt_prog *p, const char *who, int argc, char **argv, unsigned features,
	      void *dst, int *first)
{
	size_t names = p->n + opt_compat_count(p);
	struct getopt_tables t = {
		.lo = calloc(2 * names + 1, sizeof(*t.lo)),
		.alt = calloc(names, sizeof(*t.alt)),
		.so = calloc(2 * names + 2, 1),
	};
	int c, rc = -ENOMEM;

	if (!t.lo || !t.alt || !t.so)
		goto out;
	build_getopt(p, &t);
	opterr = 0;
	optind = 0;          /* 0: glibc starts afresh (a second parse in one process) */
	rc = 0;
	while (!rc && (c = getopt_long(argc, argv, t.so, t.lo, NULL)) != -1)
		rc = parse_one(p, who, c, argv, features, dst, &t);
	*first = optind;
out:
	free(t.lo);
	free(t.alt);
	free(t.so);
	return rc;
}

/* The row a long word names, by its whole name or (prefix) a unique
 * prefix of one that is no prefix of also's names; *n: the name's length. */
static const struct opt_row *take_row(const struct opt_prog *p, const struct opt_prog *also,
				      const char *word, size_t *n, bool prefix)
{
	const struct opt_row *r = NULL;
	char name[ALT_LEN];

	*n = 0;
	if (strncmp(word, "--", 2))	/* first: a shorter word has no word + 2 */
		return NULL;
	*n = strcspn(word + 2, "=");
	if (!*n || *n >= sizeof(name))
		return NULL;
	snprintf(name, sizeof(name), "%.*s", (int)*n, word + 2);
	if ((r = opt_row_by_name(p, name)) || !prefix)
		return r;
	if (opt_prefix_count(p, name, &r) != 1 || (also && opt_prefix_count(also, name, NULL)))
		return NULL;
	return r;
}

/* An optional value that is a number may be the next word (rb_mpi's --plan 4096). */
static bool next_is_number(const struct opt_row *r, int argc, char **argv, int i)
{
	return r->opt_arg && r->max > 0 && i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9';
}

int opt_take_abbrev(const struct opt_prog *p, const struct opt_prog *also, const char *who, int argc,
		    char **argv, int *i, void *dst, bool *taken)
{
	const char *word = argv[*i], *val = NULL;
	size_t n = 0;
	const struct opt_row *r = take_row(p, also, word, &n, also != NULL);

	for (size_t k = 0; !r && k < p->n && word[0] == '-' && word[1] && !word[2]; k++)
		if (opt_letter(&p->rows[k]) == word[1])
			r = &p->rows[k];
	*taken = r && !(n && word[2 + n] == '=' && !r->arg);
	if (!*taken)
		return 0;
	if (n && word[2 + n] == '=')
		val = word + 3 + n;
	else if ((r->arg && !r->opt_arg) || next_is_number(r, argc, argv, *i))
		val = *i + 1 < argc ? argv[++*i] : NULL;
	if (r->type == OT_HELP || r->type == OT_VERSION)
		return r->type == OT_HELP ? OPT_HELP : OPT_VERSION;
	return opt_apply(p, who, r, val, dst);
}

int opt_take(const struct opt_prog *p, const char *who, int argc, char **argv, int *i, void *dst, bool *taken)
{
	return opt_take_abbrev(p, NULL, who, argc, argv, i, dst, taken);
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
	bool s = opt_letter(r) != 0;

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
