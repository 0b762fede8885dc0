/*
 * The agent's outputs, each a struct mesh_sink (mesh.h) filled by its
 * constructor; every constructor returns 0, or -errno with *why (a line
 * for the user) and s untouched.  The agent calls window() per link
 * record, alert() per verdict, flush() at the end of each window's batch
 * and close() once, all from its loop (one thread).
 *
 *   mesh_http_open      /metrics over libmicrohttpd on listen, "[ADDR]:PORT"
 *                       (":9890": every address, IPv6 and IPv4; "[::1]:9890";
 *                       "127.0.0.1:0": a free port, mesh_http_port()).  Its
 *                       own thread serves the exposition rendered at the
 *                       last flush (empty families before the first): an
 *                       Accept header naming application/openmetrics-text
 *                       gets OpenMetrics 1.0, any other the text format
 *                       0.0.4; any other path 404, any method but GET and
 *                       HEAD 405.
 *   mesh_textfile_open  node_exporter's textfile collector: the text format
 *                       0.0.4 written at each flush to PATH.tmp, then
 *                       renamed to PATH (readers never see half a file)
 *   mesh_jsonl_open     one JSON object a line: {"type":"window",...} per
 *                       record (its fields, names and labels; NaN as null),
 *                       {"type":"alert","kind","where","line","time"} per
 *                       alert (time: CLOCK_REALTIME seconds when raised);
 *                       appended to PATH ("-": stdout), fflush at each flush
 *
 * The two metric sinks keep at most MESH_SINK_MAX_LINKS links and
 * MESH_SINK_MAX_ALERTS alerts a window; beyond them a record is counted
 * in rb_mesh_links_dropped_total (rb_mesh_alerts_dropped_total), window()
 * returns -ENOSPC, and stderr says so at the 1st, 2nd, 4th, 8th... drop.
 */
#ifndef RB_MESH_SINK_H
#define RB_MESH_SINK_H

#include <stddef.h>
#include <sys/socket.h>
#include "prog/mesh/mesh.h"

#define MESH_SINK_MAX_LINKS 65536       /* e.g. 8 NICs x 256 peers = 2048 */
#define MESH_SINK_MAX_ALERTS 4096

int mesh_http_open(struct mesh_sink *s, const char *listen, const struct mesh_agent_info *ai,
		   char *why, size_t len);
int mesh_textfile_open(struct mesh_sink *s, const char *path, const struct mesh_agent_info *ai,
		       char *why, size_t len);
int mesh_jsonl_open(struct mesh_sink *s, const char *path, const struct mesh_agent_info *ai,
		    char *why, size_t len);

/* The port an open http sink listens on (for listen's port 0). */
int mesh_http_port(const struct mesh_sink *s);

/* "[ADDR]:PORT" into *sa (ADDR empty: the IPv6 any address, *any set);
 * 0 or -EINVAL with *why. */
int mesh_listen_parse(const char *listen, struct sockaddr_storage *sa, socklen_t *salen,
		      int *any, char *why, size_t len);

/* For the metric sinks: mm_window / mm_alert, saying the drops
 * (mesh_sink.c). */
struct mesh_metrics;
int mesh_sink_feed(struct mesh_metrics *m, const struct mesh_window_rec *r, const char *sink);
int mesh_sink_alert(struct mesh_metrics *m, const char *kind, const char *where, const char *sink);

#endif
