/*
 * Inside report/: a row's figures from a measure, shared by the whole-run
 * rows (figures.c) and the interval rows (intervals.c).
 */
#ifndef RB_REPORT_FIGURES_H
#define RB_REPORT_FIGURES_H

#include "report/report.h"

/* Bandwidth: all[..BW_NCOLS), and the rx columns when m measured them. */
void figures_bw(const struct rb_session *s, const struct rb_measure *m, union out_val *row);
/* Latency: all[..method_col], from m's samples or its histogram. */
void figures_lat(const struct report *r, const struct rb_session *s, struct rb_measure *m,
		 union out_val *row);

#endif
