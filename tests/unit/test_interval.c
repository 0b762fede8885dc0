/* What the intervals of a run show: lowest/highest and when, the
 * coefficient of variation, the intervals under a floor (named, bounded). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "interval.h"
#include "tap.h"

static void test_min_max_cv(void)
{
	struct interval_stats st;
	const double bps[] = { 100, 50, 150, 100 };

	interval_stats_init(&st, 0);
	ok(isnan(st.min_bps) && isnan(interval_stats_cv(&st)), "nothing yet: NaN");
	for (int i = 0; i < 4; i++)
		interval_stats_add(&st, i, i + 1, bps[i]);
	ok(st.n == 4 && st.min_bps == 50 && st.min_at_s == 1, "lowest 50 at 1 s");
	ok(st.max_bps == 150 && st.max_at_s == 2, "highest 150 at 2 s");
	/* mean 100, sample stdev sqrt((0 + 2500 + 2500 + 0) / 3) */
	ok(fabs(interval_stats_cv(&st) - sqrt(5000.0 / 3) / 100) < 1e-12, "CV %.6f", interval_stats_cv(&st));
	ok(st.below == 0, "no floor: none below");
}

static void test_below(void)
{
	struct interval_stats st;
	char buf[1024];

	interval_stats_init(&st, 100);
	interval_stats_add(&st, 0, 1, 150);
	interval_stats_add(&st, 1, 2, 99.5);
	interval_stats_add(&st, 2, 3, 100);
	interval_stats_add(&st, 3, 4.5, 10);
	ok(st.below == 2, "two below 100 (100 itself is not)");
	ok(!strcmp(interval_stats_below(&st, buf, sizeof(buf)), "1.000-2.000 s, 3.000-4.500 s"),
	   "named: %s", buf);
	for (int i = 0; i < 20; i++)
		interval_stats_add(&st, 10 + i, 11 + i, 1);
	ok(st.below == 22, "22 below, counted past the named ones");
	interval_stats_below(&st, buf, sizeof(buf));
	ok(strstr(buf, "(and 6 more)") != NULL, "the rest counted: %s", buf);
	ok(!strcmp(interval_stats_below(&st, buf, 8), "1.000-2"), "truncated to the buffer: %s", buf);
}

int main(void)
{
	test_min_max_cv();
	test_below();
	return tap_done();
}
