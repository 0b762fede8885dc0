/*
 * Options as data: one row per option, read by one typed parser.
 *
 * A row names the option (its --help spelling and a letter or a code
 * >= 256), the type of its value, where the value goes (an offset into the
 * program's options struct: struct rb_options for the benchmarks, the
 * program's own for rb_doctor, rb_devices and rb_mpi), its range, the
 * FEAT_* bits of the benchmarks that take it (0: all), its --help group
 * and text, and, for the benchmarks, whether the peer must agree (PEER: a
 * wire id of HELLO, session/hello.c) and what it writes in the results'
 * metadata (META: key and label, options_meta()).
 *
 * Each program gives an opt_prog: its rows and how it words an error
 * (every program keeps its own messages).  opt_parse() runs getopt over
 * the rows; opt_take() reads one option out of a mixed argv (rb_mpi passes
 * the rest on to the benchmark).  Pure: no exit, no output but the
 * program's messages.
 */
#ifndef RB_OPTROW_H
#define RB_OPTROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OT_FLAG,        /* bool: set when given */
	OT_STR,         /* const char *: the value as given */
	OT_U64,         /* uint64_t, an integer in [min, max] */
	OT_UINT,        /* unsigned */
	OT_INT,         /* int (a whole number in [min, max]) */
	OT_U16,         /* uint16_t */
	OT_SECONDS,     /* double, seconds in [min, max] */
	OT_NUMBER,      /* double in [min, max] (strtod) */
	OT_SIZE,        /* uint64_t, K/M/G suffixes, in [min, max] */
	OT_ENUM,        /* int: one of names (case ignored) */
	OT_CUSTOM,      /* a value of its own kind: the row's parse function */
	OT_NOP,         /* accepted, no effect */
	OT_HELP,        /* print the help: opt_parse returns OPT_HELP */
	OT_VERSION,     /* OPT_VERSION */
};

/* HELLO: how a compared option travels (session/hello.c). */
enum peer_kind {
	PK_VALUE = 1,   /* the field's value */
	PK_FN,          /* the row's peer function */
};

/* META: when the key is written (besides the row's FEAT_* bits). */
enum meta_when {
	MW_ALWAYS = 1,
	MW_SET,         /* the field is not 0 (NULL, false) */
	MW_ITERS,       /* iteration mode (no -D, no --run_infinitely) */
	MW_DURATION,    /* -D */
	MW_TIMED,       /* -D or --run_infinitely */
	MW_LOAD,        /* --load */
};

struct opt_row;
struct out;

typedef int (*opt_parse_fn)(const struct opt_row *r, const char *val, void *dst);

struct opt_name {
	const char *name;
	int value;
};

/* The metadata one row writes (options_meta). */
struct opt_meta {
	unsigned seq;           /* order among the keys; 0: none */
	const char *key, *label;
	enum meta_when when;
	unsigned feat;          /* written for the benchmarks with these FEAT_* (0: all) */
	const char *on, *off;   /* a flag's words ("yes", "no") */
	void (*fn)(struct out *out, const void *o, const struct opt_row *r);
};

/* Where the peer compares it (hello.c): a stable id, never reused. */
struct opt_peer {
	unsigned id;            /* wire id (hello.h's P_*); 0: not compared */
	const char *label;      /* "size (-s)" */
	enum peer_kind kind;
	uint64_t (*fn)(const void *o, const void *bench);
	const char *(*text)(uint64_t v, char *buf, size_t len);   /* NULL: the number */
};

struct opt_row {
	const char *name;       /* long name as --help shows it; NULL: a letter only */
	int code;               /* a letter, or 0: long only (the parser numbers those) */
	enum opt_type type;
	const char *arg;        /* the value's name in --help; NULL: takes none */
	size_t off;             /* the field: offsetof(struct ..., field) */
	size_t given;           /* 1 + offsetof a bool set when given; 0: none */
	double min, max;
	unsigned feat;          /* FEAT_* (0: every benchmark) */
	int group;              /* --help group */
	const char *help;       /* NULL: an alias, not listed */
	const char *expect;     /* what a value should be, for errors (NULL: from the type) */
	opt_parse_fn parse;     /* a parser of its own (NULL: the type's); the type still says
				 * what the field holds (--help's default, META) */
	const struct opt_name *names;   /* OT_ENUM, ends with a NULL name */
	bool show_def;          /* --help shows the default (options_defaults') */
	bool opt_arg;           /* the value is optional (--csv[=FILE]); a number may also
				 * follow as a word of its own where the row has a range */
	bool lax;               /* the benchmarks outside feat accept it, with no effect
				 * (a note on stderr), as perftest does (--report_gbits) */
	struct opt_peer peer;
	struct opt_meta meta;
};

/* OE_AMBIGUOUS: word is a prefix of several names; expect lists them. */
enum opt_err { OE_UNKNOWN, OE_MISSING, OE_VALUE, OE_FEATURE, OE_EXTRA, OE_AMBIGUOUS };

/*
 * Another tool's option names (perftest's: cli/compat.c) and how each is
 * taken.  A name or letter one of the rows has is the row's (SAME, and
 * OTHER where it means something else here); the rest are added to the
 * parser: ALIAS as the row named ours, NOOP accepted with a note on
 * stderr, the others refused (exit 2) with the name, why and what to use.
 */
enum compat_class {
	PC_SAME = 1,    /* a row of ours, same name, same meaning */
	PC_ALIAS,       /* another name of the row ours */
	PC_NOOP,        /* accepted, no effect: why (no figure can change) */
	PC_OTHER,       /* its name or letter is a row of ours with another meaning: why */
	PC_BUILT,       /* built in the drop-in issue (#35): the row ours takes it */
	PC_VERBS,       /* refused until the verbs-features issue (#36) builds it */
	PC_MEMORY,      /* refused until the memory issue (#37) builds it */
	PC_REFUSED,     /* refused: why, and ours: what to use instead */
	PC_N
};

struct opt_compat {
	const char *name;       /* the other tool's long name */
	char letter;            /* its letter, 0: none */
	bool arg;               /* it takes a value */
	enum compat_class cls;
	const char *ours;       /* SAME, ALIAS, BUILT: our row's name; else what to use instead */
	const char *why;
};

struct opt_prog {
	const char *name;
	const struct opt_row *rows;
	size_t n;
	bool both_spellings;    /* --ib-dev and --ib_dev */
	bool missing_apart;     /* a missing value is its own error (getopt's ':') */
	/* Word an error; returns the -EINVAL (or exit status) to give back.
	 * word: what the user typed; err: -ERANGE or -EINVAL for OE_VALUE;
	 * expect: the row's expect, or the type's range in words. */
	int (*error)(const char *who, enum opt_err kind, const struct opt_row *r, const char *word,
		     int err, const char *expect);
	/* Integers (OT_INT, OT_UINT, OT_U16, OT_U64) another way (NULL: units_parse_uint). */
	int (*whole)(const char *s, uint64_t min, uint64_t max, uint64_t *v);
	const struct opt_compat *compat;        /* another tool's names, up to a NULL name (NULL: none) */
	const char *compat_tool;                /* "perftest" */
	int help_head;          /* --help: the width of the option heads (0: 24) */
	bool help_nowrap;       /* --help: each text on one line, however long */
};

/* What opt_parse returns besides 0 and an error. */
enum { OPT_HELP = 1, OPT_VERSION = 2 };

/*
 * Parse argv[1..] over p's rows into dst (who: the program or benchmark,
 * passed to p->error); features: the FEAT_* bits of the
 * benchmark (rows of other features are refused: OE_FEATURE).  Returns 0
 * (*first: the first operand's index), OPT_HELP, OPT_VERSION, or the
 * program's error value (negative, after its message).
 */
int opt_parse(const struct opt_prog *p, const char *who, int argc, char **argv, unsigned features,
	      void *dst, int *first);
/* argv[*i] when it is one of p's options, --name VALUE or --name=VALUE
 * (*taken set, *i past its value): parsed into dst.  A missing value
 * reaches the row's parser as NULL. */
int opt_take(const struct opt_prog *p, const char *who, int argc, char **argv, int *i, void *dst, bool *taken);
/* The same, where a unique prefix of one of p's long names is taken too,
 * unless it is also a prefix of one of also's (the options passed on). */
int opt_take_abbrev(const struct opt_prog *p, const struct opt_prog *also, const char *who, int argc,
		    char **argv, int *i, void *dst, bool *taken);
/* Apply one value to the row's field: 0 or the program's error. */
int opt_apply(const struct opt_prog *p, const char *who, const struct opt_row *r, const char *val, void *dst);

const struct opt_row *opt_row_by_code(const struct opt_prog *p, int code);
/* The row of this long name, in either spelling ('-' or '_'), or NULL. */
const struct opt_row *opt_row_by_name(const struct opt_prog *p, const char *name);
/* The row's letter, or 0 (long only). */
int opt_letter(const struct opt_row *r);
/* How many compat entries p has. */
size_t opt_compat_count(const struct opt_prog *p);
/* The compat entry of this name (either spelling) or letter, or NULL. */
const struct opt_compat *opt_compat_find(const struct opt_prog *p, const char *name, int letter);
/* The name of a class, as the man page and the tests say it ("alias"). */
const char *opt_compat_class_name(enum compat_class c);
/* "-s/--size" or "--timeout", for messages. */
const char *opt_label(const struct opt_row *r, char *buf, size_t len);
/* The other spelling of a long name, '-' and '_' swapped ("" if none). */
void opt_alt_name(const char *name, char *alt, size_t len);
/* The field's value as text ("" where none is worth showing), by its type. */
void opt_value_text(const struct opt_row *r, const void *src, char *buf, size_t len);
/* The field's value as a number (flags 0/1, enums their value). */
uint64_t opt_value_u64(const struct opt_row *r, const void *src);
/* The name of an OT_ENUM value ("?" if none). */
const char *opt_enum_name(const struct opt_name *names, int value);

/* --help: "  -d, --ib-dev=DEV         text (default X)", wrapped at 79. */
void opt_help_line(FILE *f, const struct opt_prog *p, const struct opt_row *r, const char *argname,
		   const char *text);
/* Every row of p with a help text, in order, as opt_help_line. */
void opt_help_rows(FILE *f, const struct opt_prog *p);
void opt_help_wrap(FILE *f, const char *text, int col);

#define OPT_FIELD(type, field) offsetof(type, field)
#define OPT_GIVEN(type, field) (1 + offsetof(type, field))

#endif
