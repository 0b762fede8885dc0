#include "lib/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Binary multipliers, largest first: the parser and the formatter share it. */
static const struct unit {
	char letter;           /* as typed (either case) */
	const char *name;      /* as printed */
	unsigned shift;
} units[] = {
	{ 'G', "GiB", 30 },
	{ 'M', "MiB", 20 },
	{ 'K', "KiB", 10 },
};

#define NUNITS (sizeof(units) / sizeof(units[0]))

static const struct unit *unit_find(char c)
{
	for (size_t i = 0; i < NUNITS; i++)
		if (units[i].letter == c || units[i].letter + ('a' - 'A') == c)
			return &units[i];
	return NULL;
}

/*
 * Scan decimal digits at *p.  Unlike strtoull: no sign, no leading white
 * space, no base prefix, and overflow is -ERANGE, not a clamp.  All digits
 * are consumed either way, so the caller can still tell junk from overflow.
 */
static int scan_digits(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int ret = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			ret = -ERANGE;
	}
	*p = s;
	*out = v;
	return ret;
}

/* Nothing, "B", or (after a multiplier) "iB". */
static int scan_byte_tail(const char *s, int have_unit)
{
	if (have_unit && s[0] == 'i' && s[1] == 'B')
		s += 2;
	else if (s[0] == 'B')
		s++;
	return *s ? -EINVAL : 0;
}

static int check_range(uint64_t v, uint64_t min, uint64_t max, uint64_t *out)
{
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int units_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const struct unit *u;
	uint64_t v;
	int ret;

	if (!s)
		return -EINVAL;
	ret = scan_digits(&s, &v);
	if (ret == -EINVAL)
		return ret;
	u = *s ? unit_find(*s) : NULL;
	if (u)
		s++;
	if (scan_byte_tail(s, u != NULL))
		return -EINVAL;
	if (ret)
		return ret;
	if (u && v > (UINT64_MAX >> u->shift))
		return -ERANGE;
	return check_range(u ? v << u->shift : v, min, max, out);
}

int units_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int ret;

	if (!s)
		return -EINVAL;
	ret = scan_digits(&s, &v);
	if (ret == -EINVAL || *s)
		return -EINVAL;
	if (ret)
		return ret;
	return check_range(v, min, max, out);
}

int units_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	/* strtod alone would take white space, "nan", "inf" and hex. */
	if (!s || !*s || s[strspn(s, "+-0123456789.eE")])
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static const struct rate_unit {
	const char *name;
	double bytes_per_s;
} rate_units[] = {
	{ "b/s", 1.0 / 8 }, { "Kb/s", 1e3 / 8 }, { "Mb/s", 1e6 / 8 }, { "Gb/s", 1e9 / 8 },
	{ "Tb/s", 1e12 / 8 }, { "B/s", 1 }, { "KB/s", 1e3 }, { "MB/s", 1e6 }, { "GB/s", 1e9 },
	{ "KiB/s", 1024.0 }, { "MiB/s", 1048576.0 }, { "GiB/s", 1073741824.0 },
};

int units_parse_rate(const char *s, double min, double max, double *out)
{
	size_t n = s ? strspn(s, "0123456789.") : 0;
	char num[64];
	double v;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (units_parse_double(num, 0, 1e300, &v))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(rate_units) / sizeof(rate_units[0]); i++) {
		if (strcmp(s + n, rate_units[i].name))
			continue;
		v *= rate_units[i].bytes_per_s;
		if (v < min || v > max)
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}

const char *units_format_size(uint64_t bytes, char *buf, size_t len)
{
	for (size_t i = 0; i < NUNITS && bytes; i++) {
		uint64_t mask = (UINT64_C(1) << units[i].shift) - 1;

		if (!(bytes & mask)) {
			snprintf(buf, len, "%" PRIu64 "%s",
				 bytes >> units[i].shift, units[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "B", bytes);
	return buf;
}
