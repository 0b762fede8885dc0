/*
 * The exposition of an agent's state (pure: text into a buffer, no I/O).
 *
 * State: the latest window of each link (local_host/local_nic ->
 * peer_host/peer_nic), at most max_links of them (a new link beyond that
 * is counted in rb_mesh_links_dropped_total and refused with -ENOSPC:
 * the caller says it), cumulative probe counters summed over every
 * window record fed, the windows flushed, and the alerts of the last
 * window: mm_alert() stages them, mm_flush() makes the staged set the
 * active one (replacing the previous set, even by an empty one).
 *
 * Rendering (mm_render): every family with # HELP and # TYPE (also when
 * it has no series yet), series in the order links were first seen, label
 * values escaped (\\, \", \n), numbers as the shortest text that reads
 * back to the same double (NaN, +Inf, -Inf spelled so).  Two forms:
 *
 *   MM_PROMETHEUS  text format 0.0.4: a counter's HELP/TYPE name ends in
 *                  _total like its samples; no # EOF (node_exporter's
 *                  textfile collector reads this form)
 *   MM_OPENMETRICS OpenMetrics 1.0: a counter family is named without
 *                  _total (samples with it), # UNIT for the families in
 *                  seconds, "# EOF" last
 *
 * rb_mesh_rtt_seconds is a summary (quantiles 0.5, 0.9, 0.99, 1 of the
 * last window, without _sum/_count, which both formats allow): promtool
 * refuses a quantile label on a gauge.  A link whose last window had no
 * answer has no rtt series.  rb_mesh_link_bad: loss > max_loss or
 * p99 > max_p99_us (mm_rec_bad).
 */
#ifndef RB_MESH_METRICS_H
#define RB_MESH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "prog/mesh/mesh.h"

/* A growable text buffer; the first failed growth sticks in err
 * (-ENOMEM) and later writes are dropped. */
struct mesh_buf {
	char *p;                        /* NUL-terminated when len > 0 */
	size_t len, cap;
	int err;
};

void mbuf_printf(struct mesh_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mbuf_reset(struct mesh_buf *b);    /* len 0, err 0, memory kept */
void mbuf_free(struct mesh_buf *b);

enum mm_format { MM_PROMETHEUS, MM_OPENMETRICS };

struct mesh_metrics;

/* NULL on -ENOMEM or bad limits (max_links, max_alerts >= 1). */
struct mesh_metrics *mm_new(const struct mesh_agent_info *ai, int max_links, int max_alerts);
void mm_free(struct mesh_metrics *m);
/* One link's window: 0, -ENOSPC (a new link over max_links: counted), -ENOMEM. */
int mm_window(struct mesh_metrics *m, const struct mesh_window_rec *r);
/* An alert of the window being closed: 0 (also for a repeat of a staged
 * kind+where), -ENOSPC over max_alerts (counted), -ENOMEM. */
int mm_alert(struct mesh_metrics *m, const char *kind, const char *where);
/* The window's batch is done: staged alerts become the active set. */
void mm_flush(struct mesh_metrics *m);
/* Append the whole exposition to b: 0 or b->err. */
int mm_render(const struct mesh_metrics *m, enum mm_format f, struct mesh_buf *b);

uint64_t mm_links_dropped(const struct mesh_metrics *m);
uint64_t mm_alerts_dropped(const struct mesh_metrics *m);
int mm_links(const struct mesh_metrics *m);

/* The window's verdict against the thresholds (NaN p99: no answers, not bad by RTT). */
bool mm_rec_bad(const struct mesh_window_rec *r, const struct mesh_thresholds *t);
/* v as the shortest %.15g..%.17g text that reads back as v; NaN, +Inf,
 * -Inf spelled so (Prometheus' spelling).  Returns s (n >= 32). */
const char *mm_double_text(char *s, size_t n, double v);
/* "switch", "cross" */
const char *mm_tier_name(enum mesh_tier t);

/* Content types of the two forms (HTTP). */
#define MM_CTYPE_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"
#define MM_CTYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

#endif
