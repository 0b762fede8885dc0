/*
 * Which columns a run's rows have, and which of them each format shows:
 * pure code, from the options and the benchmark's metric alone (no verbs,
 * no session).  Tested by tests/unit/test_columns.c.
 *
 * The order of all[]: the bandwidth table (-b: then its rx and sum
 * columns) or the latency table (then one column per -p percentile other
 * than 50, then lat_pct_method); -j's thread and CPU; the -W counters;
 * --validate's; -g's (bandwidth); --load's (--load-compare: the phase and a ratio per
 * percentile); then, after all[nbase], this side's, never traded:
 * --cpu_util's, then --interval's.  The indexes of each group are in struct report.
 */
#ifndef RB_REPORT_COLUMNS_H
#define RB_REPORT_COLUMNS_H

#include "cli/bench.h"
#include "cli/options.h"
#include "report/report.h"

/* The columns of each group, in all[] from the group's first (struct report). */
enum { BW_SIZE, BW_ITERS, BW_BYTES, BW_WINDOW, BW_PEAK_MIB, BW_AVG_MIB, BW_PEAK_GB,
       BW_AVG_GB, BW_RATE, BW_CQ_MOD, BW_WRS_PER_CQE, BW_NCOLS,
       BW_RX_ITERS = BW_NCOLS, BW_RX_WINDOW, BW_RX_AVG_MIB, BW_RX_AVG_GB, BW_RX_RATE,
       BW_SUM_ITERS, BW_SUM_AVG_MIB, BW_SUM_AVG_GB, BW_SUM_RATE, BW_BIDIR_NCOLS };

enum { LAT_SIZE, LAT_ITERS, LAT_WINDOW, LAT_MIN, LAT_MAX, LAT_P50, LAT_AVG, LAT_STDEV,
       LAT_FIXED };

enum { IVL_KIND, IVL_START, IVL_END, IVL_COUNT, IVL_PARTIAL, IVL_LAT_NCOLS, IVL_MIN = IVL_LAT_NCOLS,
       IVL_MIN_AT, IVL_MAX, IVL_MAX_AT, IVL_CV, IVL_BELOW, IVL_NCOLS };

enum { CPU_UTIL, CPU_USER, CPU_SYS, CPU_NCOLS };

enum { VAL_CHECKED, VAL_ERRORS, VAL_FIRST_MSG, VAL_FIRST_QP, VAL_FIRST_OFF, VAL_NCOLS };
/* -g (bandwidth): the sender's count, what the receiving QPs got (mcast.c) */
enum { MC_SENT, MC_EXPECTED, MC_RECEIVED, MC_RECV_MIN, MC_RECV_MAX, MC_LOST, MC_NCOLS };

enum { LOADC_NAME, LOADC_SIZE, LOADC_QPS, LOADC_BW, LOADC_BYTES, LOADC_MSGS, LOADC_CPU,
       LOADC_RUN_S, LOADC_RUN_BYTES, LOADC_NCOLS, LOADC_PHASE = LOADC_NCOLS, LOADC_COMPARE_NCOLS };

/*
 * Define r's columns for a run with options o of a benchmark of this
 * metric: r->all (every column, CSV/JSON and the wire), r->cols (those
 * o->format shows: the human table perftest's, in the unit asked for),
 * r->shown (their indexes in all[]) and each group's index.  r must be
 * zeroed; nothing else in r is touched.
 */
void report_columns(struct report *r, const struct rb_options *o, enum rb_metric metric);

#endif
