/*
 * CPU lists (lib/cpuset.c), the syntax of --cpu: single CPUs and ranges,
 * every malformed form refused, the bounds 0 .. CPU_SETSIZE - 1, every
 * range of a small machine, random sets through format and back, and a
 * format that never writes past its buffer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/cpuset.h"
#include "tap.h"

#define PLAN 35

/* The CPUs of text as a list of ints ({-1} terminated) agree with set. */
static int set_is(const cpu_set_t *set, const int *want)
{
	cpu_set_t w;

	CPU_ZERO(&w);
	for (; *want >= 0; want++)
		CPU_SET(*want, &w);
	return CPU_EQUAL(&w, set);
}

static void test_valid(void)
{
	static const struct { const char *text; int cpus[8]; } cases[] = {
		{ "0", { 0, -1 } },
		{ "7", { 7, -1 } },
		{ "0,2-3", { 0, 2, 3, -1 } },
		{ "2-3,0", { 0, 2, 3, -1 } },
		{ "5-5", { 5, -1 } },
		{ "1,1,1-2", { 1, 2, -1 } },
		{ "1023", { 1023, -1 } },
		{ "0,1022-1023", { 0, 1022, 1023, -1 } },
	};
	cpu_set_t set;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = cpuset_parse(cases[i].text, &set);

		ok(err == 0 && set_is(&set, cases[i].cpus), "\"%s\" parses to its CPUs", cases[i].text);
	}
	is_int(cpuset_parse("0-1023", &set), 0, "\"0-1023\": every CPU of a cpu_set_t");
	is_int(CPU_COUNT(&set), CPU_SETSIZE, "\"0-1023\": CPU_SETSIZE CPUs");
}

static void test_errors(void)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "-1", "1-", "3-1", "a", "1a", "1-2-3",
		"1,,2", "1024", "0-1024", "99999999999999999999", "1 ", "1;2",
	};
	cpu_set_t set;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(cpuset_parse(bad[i], &set), -EINVAL, bad[i][0] ? bad[i] : "(empty)");
}

/* Every "a-b" and "a,b" of a 64-CPU machine. */
static void test_exhaustive(void)
{
	int wrong = 0;
	char text[32];
	cpu_set_t set;

	for (int a = 0; a < 64; a++)
		for (int b = 0; b < 64; b++) {
			int err;

			snprintf(text, sizeof(text), "%d-%d", a, b);
			err = cpuset_parse(text, &set);
			if (a > b)
				wrong += err != -EINVAL;
			else
				wrong += err || CPU_COUNT(&set) != b - a + 1 || cpuset_first(&set) != a ||
					 !CPU_ISSET(b, &set);
			snprintf(text, sizeof(text), "%d,%d", a, b);
			wrong += cpuset_parse(text, &set) || !CPU_ISSET(a, &set) || !CPU_ISSET(b, &set) ||
				 CPU_COUNT(&set) != (a == b ? 1 : 2);
		}
	is_int(wrong, 0, "all 4096 ranges a-b (reversed refused) and pairs a,b of CPUs 0-63");
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random sets of every density: format, parse back, the same set; the
 * list's runs folded (no "a-a", no two adjacent items that touch). */
static void test_round_trip(void)
{
	static char text[CPU_SETSIZE * 6];
	int wrong = 0, folded = 0;
	cpu_set_t set, back;

	for (int n = 0; n < 2000; n++) {
		unsigned density = (unsigned)(n % 16), top = n % 3 ? 64 : CPU_SETSIZE;

		CPU_ZERO(&set);
		for (unsigned c = 0; c < top; c++)
			if (rnd() % 16 < density)
				CPU_SET(c, &set);
		if (!CPU_COUNT(&set))
			CPU_SET(rnd() % top, &set);
		cpuset_format(&set, text, sizeof(text));
		wrong += cpuset_parse(text, &back) || !CPU_EQUAL(&set, &back);
		for (const char *p = text; *p; p++) {
			int x = 0, y = 0;

			if ((p == text || p[-1] == ',') && sscanf(p, "%d-%d", &x, &y) == 2 && y <= x)
				folded++;
		}
	}
	is_int(wrong, 0, "2000 random sets: parse(format(set)) == set");
	is_int(folded, 0, "...their lists hold no range a-b with b <= a");
}

static void test_format(void)
{
	const char *full = "0-3,8,10-11,1023";
	char buf[40];
	cpu_set_t set;
	int over = 0;

	CPU_ZERO(&set);
	cpuset_format(&set, buf, sizeof(buf));
	is_str(buf, "", "the empty set formats as \"\"");
	cpuset_parse("0,1,2,3,8,10,11,1023", &set);
	cpuset_format(&set, buf, sizeof(buf));
	is_str(buf, full, "runs fold into ranges: 0-3,8,10-11,1023");
	for (size_t len = 1; len <= strlen(full) + 1; len++) {
		memset(buf, '#', sizeof(buf));
		cpuset_format(&set, buf, len);
		over += buf[len] != '#' || strlen(buf) >= len || strncmp(buf, full, strlen(buf)) != 0;
	}
	is_int(over, 0, "a buffer of 1..17 bytes: cut short, NUL-terminated, nothing past it");
}

static void test_first(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	is_int(cpuset_first(&set), -1, "cpuset_first of the empty set: -1");
	CPU_SET(1023, &set);
	is_int(cpuset_first(&set), 1023, "cpuset_first of {1023}: 1023");
	CPU_SET(9, &set);
	CPU_SET(5, &set);
	is_int(cpuset_first(&set), 5, "cpuset_first of {5,9,1023}: 5");
}

int main(void)
{
	printf("1..%d\n", PLAN);
	test_valid();
	test_errors();
	test_exhaustive();
	test_round_trip();
	test_format();
	test_first();
	if (tap_n != PLAN)
		printf("# planned %d checks, ran %d\n", PLAN, tap_n);
	return tap_failed || tap_n != PLAN;
}
