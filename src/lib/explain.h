/*
 * Errors explained: every work completion status and every failed QP
 * transition, with its likely causes and the next thing to check.  One
 * table for every benchmark, rb_doctor and rdmabench(7) (man/gen-errors.sh
 * reads it from explain.c).  A leaf: no verbs calls.
 */
#ifndef RB_EXPLAIN_H
#define RB_EXPLAIN_H

#include <stddef.h>

struct explain {
	int code;                   /* enum ibv_wc_status, or an errno */
	const char *name;           /* "IBV_WC_RETRY_EXC_ERR", "RTR EINVAL" */
	const char *causes;         /* the likely causes */
	const char *check;          /* the next thing to check */
};

/* The entry of a completion status; an unknown status gets a generic one. */
const struct explain *explain_wc(int status);
/* By name ("IBV_WC_RETRY_EXC_ERR"), or NULL. */
const struct explain *explain_wc_named(const char *name);
size_t explain_wc_count(void);
const struct explain *explain_wc_at(size_t i);

/* A failed transition to STATE ("INIT", "RTR", "RTS") with errno ERR. */
const struct explain *explain_qp(const char *state, int err);
size_t explain_qp_count(void);
const struct explain *explain_qp_at(size_t i);

#endif
