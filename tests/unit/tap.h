/*
 * A minimal TAP producer for the unit tests: each check prints
 * "ok N - what" or "not ok N - what" (with the failing values); the program
 * exits non-zero when any check failed.
 */
#ifndef RB_TAP_H
#define RB_TAP_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do {                                              \
	int ok_c_ = (cond);                                             \
	printf("%sok %d - ", ok_c_ ? "" : "not ", ++tap_n);             \
	printf(__VA_ARGS__);                                            \
	printf("\n");                                                   \
	if (!ok_c_) {                                                   \
		tap_failed++;                                           \
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	}                                                               \
} while (0)

/* skip(...): a check that cannot run here, "ok N # SKIP reason" (a TAP
 * SKIP, which automake counts as SKIP, never as PASS).  Only for what the
 * machine is (its clocksource, its cycle counter): what CI installs must
 * not be skipped under CI=true (tap_ci()). */
#define skip(...) do {                                                  \
	printf("ok %d # SKIP ", ++tap_n);                               \
	printf(__VA_ARGS__);                                            \
	printf("\n");                                                   \
} while (0)

/* tap_ci(): true under CI=true, where a missing dependency that CI
 * installs is a failure rather than a skip. */
#include <stdlib.h>
static inline int tap_ci(void)
{
	const char *ci = getenv("CI");
	return ci && strcmp(ci, "true") == 0;
}

#define is_int(got, want, what) do {                                    \
	long long g_ = (long long)(got), w_ = (long long)(want);        \
	ok(g_ == w_, "%s", what);                                       \
	if (g_ != w_) printf("#   got %lld, want %lld\n", g_, w_);      \
} while (0)

#define is_str(got, want, what) do {                                    \
	const char *g_ = (got), *w_ = (want);                           \
	int e_ = g_ && w_ && strcmp(g_, w_) == 0;                       \
	ok(e_, "%s", what);                                             \
	if (!e_) printf("#   got \"%s\"\n#  want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

#define is_near(got, want, rel, what) do {                              \
	double g_ = (got), w_ = (want);                                 \
	int e_ = fabs(g_ - w_) <= (rel) * fabs(w_) || g_ == w_;          \
	ok(e_, "%s", what);                                             \
	if (!e_) printf("#   got %.12g, want %.12g\n", g_, w_);          \
} while (0)

/* xorshift64 (Marsaglia 2003): a test's reproducible random numbers from
 * *state (nonzero), which it advances. */
static inline uint64_t tap_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
