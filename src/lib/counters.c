/*
 * The -W/--report-counters list: parsing it, and reading its counters
 * from sysfs.  No verbs calls.
 */
#include "lib/counters.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "lib/sysfs.h"
#include "lib/wire.h"

static const char *const dir_names[] = {
	[CTR_EITHER] = NULL, [CTR_COUNTERS] = "counters", [CTR_HW_COUNTERS] = "hw_counters",
};

/* NAME: [A-Za-z0-9_]+, at most RB_COUNTER_NAME_MAX; it becomes a file
 * name and a CSV/JSON key, so nothing else may pass. */
static bool name_ok(const char *name, size_t len)
{
	if (len == 0 || len > RB_COUNTER_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	return true;
}

/* "hw_counters/NAME", "counters/NAME" or "NAME" of length len. */
static int entry_parse(const char *e, size_t len, struct rb_counter *c)
{
	const char *slash = memchr(e, '/', len);

	c->dir = CTR_EITHER;
	if (slash) {
		size_t dlen = (size_t)(slash - e);

		if (dlen == 8 && !strncmp(e, "counters", 8))
			c->dir = CTR_COUNTERS;
		else if (dlen == 11 && !strncmp(e, "hw_counters", 11))
			c->dir = CTR_HW_COUNTERS;
		else
			return -EINVAL;
		len -= dlen + 1;
		e = slash + 1;
	}
	if (!name_ok(e, len))
		return -EINVAL;
	memcpy(c->name, e, len);
	c->name[len] = '\0';
	return 0;
}

/*
 * The same NAME twice is only meaningful as counters/NAME and
 * hw_counters/NAME, two different files; a bare NAME may be either.
 */
static bool same_counter(const struct rb_counter *a, const struct rb_counter *b)
{
	return !strcmp(a->name, b->name) &&
	       (a->dir == b->dir || a->dir == CTR_EITHER || b->dir == CTR_EITHER);
}

/* ctr_NAME, and ctr_hw_NAME for the hw_counters/ one of a pair. */
static void entry_names(struct rb_counter_list *l, int i)
{
	struct rb_counter *c = &l->c[i];
	bool paired = false;

	for (int j = 0; j < l->n; j++)
		paired |= j != i && !strcmp(l->c[j].name, c->name);
	if (paired && c->dir == CTR_HW_COUNTERS) {
		snprintf(c->key, sizeof(c->key), "ctr_hw_%s", c->name);
		snprintf(c->label, sizeof(c->label), "hw_counters/%s", c->name);
	} else {
		snprintf(c->key, sizeof(c->key), "ctr_%s", c->name);
		snprintf(c->label, sizeof(c->label), "%s", c->name);
	}
}

/* Keys must differ too: hw_counters/X paired with counters/X is keyed
 * ctr_hw_X, which a counter named hw_X would also be. */
static int keys_check(const struct rb_counter_list *l, char *bad, size_t len)
{
	for (int i = 0; i < l->n; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(l->c[i].key, l->c[j].key)) {
				snprintf(bad, len, "%s", l->c[i].name);
				return -EEXIST;
			}
	return 0;
}

int counters_parse(const char *list, struct rb_counter_list *l, char *bad, size_t len)
{
	const char *e = list;

	memset(l, 0, sizeof(*l));
	for (;;) {
		size_t elen = strcspn(e, ",");
		struct rb_counter c;
		int err = l->n == RB_MAX_COUNTERS ? -E2BIG : entry_parse(e, elen, &c);

		for (int i = 0; !err && i < l->n; i++)
			if (same_counter(&l->c[i], &c))
				err = -EEXIST;
		if (err) {
			snprintf(bad, len, "%.*s", (int)elen, e);
			return err;
		}
		l->c[l->n++] = c;
		if (!e[elen])
			break;
		e += elen + 1;
	}
	for (int i = 0; i < l->n; i++)
		entry_names(l, i);
	return keys_check(l, bad, len);
}

uint64_t counters_fingerprint(const struct rb_counter_list *l)
{
	uint64_t h = WIRE_FNV_INIT;

	for (int i = 0; i < l->n; i++) {
		const char *k = l->c[i].key;

		do      /* the NUL too: "ab","c" and "a","bc" differ */
			h = wire_fnv1a(h, (uint8_t)*k);
		while (*k++);
	}
	return h;
}

/* Where a missing counter could have been, for the message. */
static void counter_missing(const char *root, const char *ibdev, int port, const struct rb_counter *c)
{
	char where[40] = "";

	if (c->dir != CTR_EITHER)
		snprintf(where, sizeof(where), " in %s/", dir_names[c->dir]);
	log_err("-W/--report-counters: device %s port %d has no counter %s%s", ibdev, port, c->name, where);
	log_info("its counters are the files of %s/sys/class/infiniband/%s/ports/%d/counters and hw_counters",
		 root, ibdev, port);
}

int counters_read(const char *root, const char *ibdev, int port,
		  const struct rb_counter_list *l, uint64_t *val)
{
	for (int i = 0; i < l->n; i++) {
		const struct rb_counter *c = &l->c[i];
		int err = sysfs_port_counter_in(root, ibdev, port, dir_names[c->dir], c->name, &val[i]);

		if (err == -ENOENT) {
			counter_missing(root, ibdev, port, c);
			return -EINVAL;
		}
		if (err) {
			log_err("-W/--report-counters: cannot read counter %s of %s port %d: %s",
				c->name, ibdev, port, strerror(-err));
			return err;
		}
	}
	return 0;
}

void counters_delta(const struct rb_counter_list *l, const uint64_t *before,
		    const uint64_t *after, uint64_t *delta)
{
	for (int i = 0; i < l->n; i++) {
		delta[i] = after[i] - before[i];
		if (after[i] < before[i]) {
			log_warn("-W/--report-counters: counter %s went back from %llu to %llu (reset?); its change reads 0",
				 l->c[i].name, (unsigned long long)before[i], (unsigned long long)after[i]);
			delta[i] = 0;
		}
	}
}
