/*
 * Inside report/: what its files share and no other module calls.
 */
#ifndef RB_REPORT_INTERNAL_H
#define RB_REPORT_INTERNAL_H

#include "report/report.h"

/* figures.c: a row's figures from a measure, for the whole-run rows and
 * the interval rows (intervals.c). */
/* Bandwidth: all[..BW_NCOLS), and the rx columns when m measured them. */
void figures_bw(const struct rb_session *s, const struct rb_measure *m, union out_val *row);
/* Latency: all[..method_col], from m's samples or its histogram. */
void figures_lat(const struct report *r, const struct rb_session *s, struct rb_measure *m,
		 union out_val *row);

/* mcast.c: -g's keys (the groups, the receiving QPs, the IP join). */
void report_meta_mcast(struct report *r, const struct rb_session *s);

/* metadata.c: what ran (tool, test, role, host, peer, time, command), for
 * a document that never began. */
void report_meta_unbegun(struct report *r, const struct rb_session *s);

/* ptjson.c: --out_json, perftest's document.  Can its file be written?
 * 0, or -errno after naming it. */
int ptjson_check(const struct rb_options *o);
/* Its "test_info", once the session is connected (0 or -ENOMEM). */
int ptjson_begin(struct report *r, const struct rb_session *s);
/* The file rewritten with this row's "results" (perftest: each size). */
void ptjson_row(const struct report *r, const union out_val *row);
void ptjson_end(struct report *r);

#endif
