/*
 * The parser's dealings with names (optparse.c's helpers, cli/ only):
 * spellings, prefixes, ambiguity, and another tool's names (opt_compat:
 * perftest's, cli/compat.c).
 */
#ifndef RB_OPTCOMPAT_H
#define RB_OPTCOMPAT_H

#include <getopt.h>
#include "cli/optrow.h"

/* a and b are one name ("report-gbits", "report_gbits" with both). */
bool opt_same_name(const char *a, const char *b, bool both);
/* How many rows of p have a long name (either spelling) starting with
 * prefix; *only (if not NULL): the last one.  Compat names count too. */
size_t opt_prefix_count(const struct opt_prog *p, const char *prefix, const struct opt_row **only);
/* getopt did not know the long word: ambiguous (names the candidates
 * among lo) or unknown.  The program's error value. */
int opt_unknown_long(const struct opt_prog *p, const char *who, const char *word, const struct option *lo);
/* A compat entry that is no row's: NOOP (a note, 0) or a refusal (exit 2)
 * naming it, the tool, why, and what to use instead. */
int opt_compat_take(const struct opt_prog *p, const char *who, const struct opt_compat *e, const char *word);

#endif
