#include "lib/cpuset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void cpuset_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
		int last = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		if (last > c)
			used += (size_t)snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, last);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		c = last;
	}
}

static int cpu_parse_one(const char **s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(*s, &end, 10);
	if (end == *s || errno || *v < 0 || *v >= CPU_SETSIZE)
		return -EINVAL;
	*s = end;
	return 0;
}

int cpuset_parse(const char *text, cpu_set_t *set)
{
	const char *s = text;

	CPU_ZERO(set);
	for (;;) {
		long a, b;

		if (cpu_parse_one(&s, &a))
			return -EINVAL;
		b = a;
		if (*s == '-') {
			s++;
			if (cpu_parse_one(&s, &b) || b < a)
				return -EINVAL;
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		if (*s == '\0')
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

int cpuset_first(const cpu_set_t *set)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}
