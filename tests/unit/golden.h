/*
 * Golden files for the unit tests (include after tap.h): a test's output
 * compared byte for byte with tests/unit/data/NAME ($top_srcdir's, else the
 * working folder's).  After a deliberate format change, rerun the test with
 * RB_WRITE_GOLDEN=1 (each golden file rewritten from what the test got)
 * and review the diff.  Used by test_output.c and test_out_formats.c.
 */
#ifndef RB_GOLDEN_H
#define RB_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The whole file at PATH (malloc'd; "" when empty), or NULL when it cannot
 * be read. */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(buf);
		return strdup("");
	}
	return buf;
}

/* tests/unit/data/NAME (malloc'd), or NULL. */
static inline char *golden_path(const char *name)
{
	const char *top = getenv("top_srcdir");
	char *path;

	if (asprintf(&path, "%s/tests/unit/data/%s", top ? top : ".", name) < 0)
		return NULL;
	return path;
}

/* Two checks: the golden file NAME is readable, and GOT is its text. */
static inline void check_golden(const char *name, const char *got)
{
	char *path = golden_path(name), *want;
	FILE *f;

	if (!path)
		return;
	if (getenv("RB_WRITE_GOLDEN") && (f = fopen(path, "w"))) {
		fputs(got, f);
		fclose(f);
	}
	want = slurp(path);
	ok(want != NULL, "golden file %s readable", path);
	is_str(got, want, name);
	free(want);
	free(path);
}

#endif
