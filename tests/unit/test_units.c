#include "lib/units.h"
#include "tap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#define U64MAX UINT64_MAX

struct size_case {
	const char *in;
	uint64_t min, max;
	int ret;
	uint64_t want;
};

static const struct size_case size_cases[] = {
	{ "4096", 0, U64MAX, 0, 4096 },
	{ "0", 0, U64MAX, 0, 0 },
	{ "64K", 0, U64MAX, 0, 65536 },
	{ "64k", 0, U64MAX, 0, 65536 },
	{ "64KiB", 0, U64MAX, 0, 65536 },
	{ "64KB", 0, U64MAX, 0, 65536 },
	{ "1M", 0, U64MAX, 0, 1048576 },
	{ "1m", 0, U64MAX, 0, 1048576 },
	{ "8MiB", 0, U64MAX, 0, 8388608 },
	{ "2G", 0, U64MAX, 0, UINT64_C(2147483648) },
	{ "3g", 0, U64MAX, 0, UINT64_C(3221225472) },
	{ "100B", 0, U64MAX, 0, 100 },
	{ "18446744073709551615", 0, U64MAX, 0, U64MAX },
	{ "17179869183G", 0, U64MAX, 0, UINT64_C(17179869183) << 30 },
	/* not numbers */
	{ "", 0, U64MAX, -EINVAL, 0 },
	{ "abc", 0, U64MAX, -EINVAL, 0 },
	{ "-1", 0, U64MAX, -EINVAL, 0 },
	{ "+1", 0, U64MAX, -EINVAL, 0 },
	{ " 1", 0, U64MAX, -EINVAL, 0 },
	{ "1 ", 0, U64MAX, -EINVAL, 0 },
	{ "1x", 0, U64MAX, -EINVAL, 0 },
	{ "1KK", 0, U64MAX, -EINVAL, 0 },
	{ "1Ki", 0, U64MAX, -EINVAL, 0 },
	{ "1iB", 0, U64MAX, -EINVAL, 0 },
	{ "1BB", 0, U64MAX, -EINVAL, 0 },
	{ "K", 0, U64MAX, -EINVAL, 0 },
	{ "0x10", 0, U64MAX, -EINVAL, 0 },
	{ "1.5K", 0, U64MAX, -EINVAL, 0 },
	{ "99999999999999999999x", 0, U64MAX, -EINVAL, 0 },
	/* out of range or overflowing */
	{ "99999999999999999999", 0, U64MAX, -ERANGE, 0 },
	{ "18446744073709551616", 0, U64MAX, -ERANGE, 0 },
	{ "17179869184G", 0, U64MAX, -ERANGE, 0 },
	{ "18014398509481984K", 0, U64MAX, -ERANGE, 0 },
	{ "99999999999999999999K", 0, U64MAX, -ERANGE, 0 },
	{ "1", 2, 10, -ERANGE, 0 },
	{ "11", 2, 10, -ERANGE, 0 },
	{ "1K", 2, 1023, -ERANGE, 0 },
	{ "1K", 1024, 1024, 0, 1024 },
};

static void test_parse_size(void)
{
	for (size_t i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
		const struct size_case *c = &size_cases[i];
		uint64_t v = 12345;
		char what[96];
		int ret = units_parse_size(c->in, c->min, c->max, &v);

		snprintf(what, sizeof(what), "size \"%s\" returns %d", c->in, c->ret);
		is_int(ret, c->ret, what);
		snprintf(what, sizeof(what), "size \"%s\" value", c->in);
		if (c->ret == 0)
			ok(v == c->want, "%s = %" PRIu64 " (got %" PRIu64 ")", what, c->want, v);
		else
			ok(v == 12345, "%s untouched on error", what);
	}
	is_int(units_parse_size(NULL, 0, 1, &(uint64_t){ 0 }), -EINVAL, "size NULL");
}

static void test_parse_uint(void)
{
	uint64_t v = 7;

	is_int(units_parse_uint("42", 0, 100, &v), 0, "uint 42");
	is_int(v, 42, "uint 42 value");
	is_int(units_parse_uint("18446744073709551615", 0, U64MAX, &v), 0, "uint max");
	ok(v == U64MAX, "uint max value");
	v = 7;
	is_int(units_parse_uint("", 0, 100, &v), -EINVAL, "uint empty");
	is_int(units_parse_uint("abc", 0, 100, &v), -EINVAL, "uint abc");
	is_int(units_parse_uint("-1", 0, 100, &v), -EINVAL, "uint -1");
	is_int(units_parse_uint("1x", 0, 100, &v), -EINVAL, "uint 1x");
	is_int(units_parse_uint("1K", 0, 10000, &v), -EINVAL, "uint rejects suffix");
	is_int(units_parse_uint("99999999999999999999", 0, U64MAX, &v), -ERANGE,
	       "uint 99999999999999999999 overflows");
	is_int(units_parse_uint("101", 0, 100, &v), -ERANGE, "uint above max");
	is_int(units_parse_uint("0", 1, 100, &v), -ERANGE, "uint below min");
	is_int(v, 7, "uint value untouched on errors");
}

static void test_parse_double(void)
{
	double d = 7;

	is_int(units_parse_double("2.5", 0, 10, &d), 0, "double 2.5");
	is_near(d, 2.5, 0, "double 2.5 value");
	is_int(units_parse_double("-1e2", -1000, 0, &d), 0, "double -1e2");
	is_near(d, -100, 0, "double -1e2 value");
	is_int(units_parse_double("99.9", 0, 100, &d), 0, "double 99.9");
	is_near(d, 99.9, 0, "double 99.9 value");
	d = 7;
	is_int(units_parse_double("", 0, 10, &d), -EINVAL, "double empty");
	is_int(units_parse_double("abc", 0, 10, &d), -EINVAL, "double abc");
	is_int(units_parse_double("1x", 0, 10, &d), -EINVAL, "double 1x");
	is_int(units_parse_double(" 1", 0, 10, &d), -EINVAL, "double leading space");
	is_int(units_parse_double("nan", 0, 10, &d), -EINVAL, "double nan");
	is_int(units_parse_double("inf", 0, 10, &d), -EINVAL, "double inf");
	is_int(units_parse_double("0x1p3", 0, 10, &d), -EINVAL, "double hex");
	is_int(units_parse_double("1e", 0, 10, &d), -EINVAL, "double 1e");
	is_int(units_parse_double("-1", 0, 10, &d), -ERANGE, "double -1 below min");
	is_int(units_parse_double("10.5", 0, 10, &d), -ERANGE, "double above max");
	is_int(units_parse_double("1e999", 0, 1e308, &d), -ERANGE, "double overflow");
	is_near(d, 7, 0, "double value untouched on errors");
}

static void test_format_size(void)
{
	static const struct {
		uint64_t in;
		const char *want;
	} cases[] = {
		{ 0, "0B" }, { 2, "2B" }, { 1000, "1000B" }, { 1023, "1023B" },
		{ 1024, "1KiB" }, { 1536, "1536B" }, { 3072, "3KiB" },
		{ 65536, "64KiB" }, { 1048576, "1MiB" }, { 8388608, "8MiB" },
		{ 1048576 + 1024, "1025KiB" }, { UINT64_C(1) << 30, "1GiB" },
		{ UINT64_C(1) << 40, "1024GiB" }, { U64MAX, "18446744073709551615B" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "format %" PRIu64, cases[i].in);
		is_str(units_format_size(cases[i].in, buf, sizeof(buf)), cases[i].want, what);
	}
	/* What we print, we parse back. */
	for (unsigned sh = 0; sh < 40; sh += 3) {
		uint64_t v = (UINT64_C(5) << sh), back = 0;

		units_format_size(v, buf, sizeof(buf));
		ok(units_parse_size(buf, 0, U64MAX, &back) == 0 && back == v,
		   "round trip %s", buf);
	}
	ok(units_format_size(65536, buf, 4) == buf && strcmp(buf, "64K") == 0,
	   "format truncates to the buffer (got \"%s\")", buf);
}

static void test_parse_rate(void)
{
	static const struct { const char *s; double want; } good[] = {
		{ "10Gb/s", 1.25e9 }, { "1b/s", 0.125 }, { "8Kb/s", 1000 }, { "2.5Mb/s", 312500 },
		{ "1Tb/s", 1.25e11 }, { "3B/s", 3 }, { "1KB/s", 1000 }, { "1.5MB/s", 1.5e6 },
		{ "2GB/s", 2e9 }, { "1KiB/s", 1024 }, { "900MiB/s", 900.0 * 1048576 },
		{ "1GiB/s", 1073741824.0 },
	};
	static const char *const bad[] = { "", "10", "Gb/s", "10gb/s", "10Gbps", "10 Gb/s",
					   "-1Gb/s", "1e3Gb/s", "10Gb/sx", "nanGb/s", "..Gb/s" };
	double v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = -1;
		ok(units_parse_rate(good[i].s, 0, 1e15, &v) == 0 && v == good[i].want,
		   "rate %s = %g bytes/s (got %g)", good[i].s, good[i].want, v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(units_parse_rate(bad[i], 0, 1e15, &v) == -EINVAL, "rate '%s' is not valid", bad[i]);
	ok(units_parse_rate(NULL, 0, 1e15, &v) == -EINVAL, "rate NULL is not valid");
	ok(units_parse_rate("0Gb/s", 1, 1e15, &v) == -ERANGE, "rate 0Gb/s under the minimum");
	ok(units_parse_rate("9000Tb/s", 1, 1e15, &v) == -ERANGE, "rate 9000Tb/s over the maximum");
}

int main(void)
{
	test_parse_rate();
	test_parse_size();
	test_parse_uint();
	test_parse_double();
	test_format_size();
	return tap_done();
}
