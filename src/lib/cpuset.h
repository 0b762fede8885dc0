/*
 * CPU lists as the kernel and taskset write them ("0,2-3"): parsing and
 * formatting of a cpu_set_t.  Pure code: no system calls (test_cpuset.c).
 */
#ifndef RB_CPUSET_H
#define RB_CPUSET_H

#include <sched.h>
#include <stddef.h>

/*
 * "0,2-3" into set: comma-separated CPUs or ranges A-B (A <= B), each CPU
 * in 0 .. CPU_SETSIZE - 1.  -EINVAL on anything else (empty text, an empty
 * item, a reversed range, a CPU out of range, trailing text); set is then
 * unspecified.  Numbers are read with strtol (base 10).
 */
int cpuset_parse(const char *text, cpu_set_t *set);

/* set as a list, runs folded into ranges ("0-3,8"), into buf (len > 0):
 * "" for an empty set; a list longer than buf is cut short, always
 * NUL-terminated. */
void cpuset_format(const cpu_set_t *set, char *buf, size_t len);

/* The lowest CPU of set, -1 when it is empty. */
int cpuset_first(const cpu_set_t *set);

#endif
