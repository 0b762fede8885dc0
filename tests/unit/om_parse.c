/* A small reader of the exposition (om_parse.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/om_parse.h"

/* A quoted label value at *p (after the quote), unescaped into v. */
static int read_value(const char **p, char *v, size_t n)
{
	size_t k = 0;
	const char *s = *p;

	for (; *s && *s != '"'; s++) {
		char c = *s;

		if (c == '\n')
			return -1;
		if (c == '\\') {
			s++;
			if (*s == 'n')
				c = '\n';
			else if (*s == '\\' || *s == '"')
				c = *s;
			else
				return -1;
		}
		if (k + 1 >= n)
			return -1;
		v[k++] = c;
	}
	if (*s != '"')
		return -1;
	v[k] = '\0';
	*p = s + 1;
	return 0;
}

static int read_labels(const char **p, struct om_sample *s)
{
	const char *q = *p;

	while (*q != '}') {
		size_t kl = strcspn(q, "=");

		if (s->nlabels == OM_LABELS || kl == 0 || kl >= sizeof(s->key[0]) || q[kl] != '=' ||
		    q[kl + 1] != '"')
			return -1;
		memcpy(s->key[s->nlabels], q, kl);
		s->key[s->nlabels][kl] = '\0';
		q += kl + 2;
		if (read_value(&q, s->val[s->nlabels], sizeof(s->val[0])))
			return -1;
		s->nlabels++;
		if (*q == ',')
			q++;
		else if (*q != '}')
			return -1;
	}
	*p = q + 1;
	return 0;
}

/* "name{labels} value" into s. */
static int read_sample(const char *line, struct om_sample *s)
{
	size_t nl = strcspn(line, "{ ");
	char *end;

	if (nl == 0 || nl >= sizeof(s->name))
		return -1;
	memcpy(s->name, line, nl);
	s->name[nl] = '\0';
	line += nl;
	if (*line == '{' && (line++, read_labels(&line, s)))
		return -1;
	if (*line != ' ')
		return -1;
	s->v = strtod(line + 1, &end);
	return end == line + 1 || (*end && *end != '\n') ? -1 : 0;
}

static int belongs(const struct om_sample *s)
{
	size_t fl = strlen(s->family);

	if (!strcmp(s->name, s->family))
		return 1;
	return !strncmp(s->name, s->family, fl) && !strcmp(s->name + fl, "_total") &&
	       !strcmp(s->type, "counter");
}

int om_parse(const char *text, struct om_sample **out, int *n, char *err, size_t errlen)
{
	char family[96] = "", type[16] = "", line[2048];
	int cap = 0, lineno = 0;
	struct om_sample *v = NULL;

	*n = 0;
	for (const char *p = text; *p; lineno++) {
		size_t ll = strcspn(p, "\n");
		struct om_sample s = { .nlabels = 0 };

		if (ll >= sizeof(line) || p[ll] != '\n') {
			snprintf(err, errlen, "line %d: too long or no newline", lineno + 1);
			free(v);
			return -1;
		}
		memcpy(line, p, ll);
		line[ll] = '\0';
		p += ll + 1;
		if (sscanf(line, "# TYPE %95s %15s", family, type) == 2 || line[0] == '#')
			continue;
		snprintf(s.family, sizeof(s.family), "%s", family);
		snprintf(s.type, sizeof(s.type), "%s", type);
		if (read_sample(line, &s) || !belongs(&s)) {
			snprintf(err, errlen, "line %d: %s", lineno + 1, line);
			free(v);
			return -1;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, (size_t)cap * sizeof(*v));
		}
		v[(*n)++] = s;
	}
	*out = v;
	return 0;
}

const char *om_label(const struct om_sample *s, const char *key)
{
	for (int i = 0; i < s->nlabels; i++)
		if (!strcmp(s->key[i], key))
			return s->val[i];
	return NULL;
}

static int matches(const struct om_sample *s, const char *const *want)
{
	for (; want && *want; want++) {
		const char *eq = strchr(*want, '=');
		char key[32];
		const char *v;

		snprintf(key, sizeof(key), "%.*s", (int)(eq - *want), *want);
		v = om_label(s, key);
		if (!v || strcmp(v, eq + 1))
			return 0;
	}
	return 1;
}

double om_sum(const struct om_sample *s, int n, const char *name, const char *const *want, int *count)
{
	double sum = 0;

	*count = 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(s[i].name, name) && matches(&s[i], want)) {
			sum += s[i].v;
			(*count)++;
		}
	return sum;
}
