/*
 * -W/--report-counters: the port counters whose change over each size's
 * measuring loop goes into that size's row.  A leaf: the list, its parsing,
 * and reading it from sysfs (no verbs calls), tested on canned trees.
 */
#ifndef RB_COUNTERS_H
#define RB_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#define RB_MAX_COUNTERS 8
#define RB_COUNTER_NAME_MAX 63

/* Where a counter lives under ports/P/: as written, or "look in both". */
enum counter_dir { CTR_EITHER, CTR_COUNTERS, CTR_HW_COUNTERS };

struct rb_counter {
	enum counter_dir dir;
	char name[RB_COUNTER_NAME_MAX + 1];
	char key[RB_COUNTER_NAME_MAX + 8];   /* CSV/JSON: "ctr_NAME", "ctr_hw_NAME" */
	char label[RB_COUNTER_NAME_MAX + 16];/* human table: "NAME" */
};

struct rb_counter_list {
	struct rb_counter c[RB_MAX_COUNTERS];
	int n;
};

/* The accepted forms, for messages. */
#define COUNTERS_FORMS "counters/NAME, hw_counters/NAME or NAME, comma-separated, " \
	"NAME of letters, digits and _ (at most 63), at most 8 counters, none twice"

/*
 * Parse "hw_counters/sent_pkts,rcvd_pkts".  0, or on a bad entry (copied
 * into bad): -EINVAL (not a counter), -E2BIG (more than RB_MAX_COUNTERS),
 * -EEXIST (given twice).
 */
int counters_parse(const char *list, struct rb_counter_list *l, char *bad, size_t len);

/* The identity of the list, for the peer to compare: both rows must have
 * the same columns. */
uint64_t counters_fingerprint(const struct rb_counter_list *l);

/*
 * Read every counter of ibdev's port under root ("" for the real system)
 * into val[].  0, or after a message: -EINVAL when the device has no such
 * counter (a usage error, like a device that does not exist), another
 * -errno when one cannot be read.
 */
int counters_read(const char *root, const char *ibdev, int port,
		  const struct rb_counter_list *l, uint64_t *val);

/* delta[i] = after[i] - before[i]; a counter that went back (reset) is
 * said on stderr and reads 0. */
void counters_delta(const struct rb_counter_list *l, const uint64_t *before,
		    const uint64_t *after, uint64_t *delta);

#endif
