/*
 * A small reader of the Prometheus text / OpenMetrics exposition, written
 * apart from src/prog/mesh/mesh_metrics.c to check it: samples with their
 * labels unescaped (\\ \" \n) and values read with strtod; # TYPE lines
 * remembered, and each sample must belong to the family typed last
 * (its name, or name_total for an OpenMetrics counter).
 */
#ifndef RB_TEST_OM_PARSE_H
#define RB_TEST_OM_PARSE_H

#include <stddef.h>

#define OM_LABELS 8

struct om_sample {
	char name[96];
	char family[96], type[16];      /* of the # TYPE line it follows */
	int nlabels;
	char key[OM_LABELS][32];
	char val[OM_LABELS][256];
	double v;
};

/* 0, or -1 with *err naming the line; *out (free()) holds *n samples. */
int om_parse(const char *text, struct om_sample **out, int *n, char *err, size_t errlen);
/* The label's value, or NULL. */
const char *om_label(const struct om_sample *s, const char *key);
/* Sum of the samples named name whose labels include each "key=value" of
 * the NULL-terminated want; *count gets how many matched. */
double om_sum(const struct om_sample *s, int n, const char *name, const char *const *want, int *count);

#endif
