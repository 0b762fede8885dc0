/*
 * What the metric sinks share (mesh_sink.h): feeding the table, and
 * saying on stderr what it could not hold.
 */
#include <errno.h>
#include <inttypes.h>

#include "lib/log.h"
#include "prog/mesh/mesh_metrics.h"
#include "prog/mesh/mesh_sink.h"

/* The 1st, 2nd, 4th, 8th... */
static int is_pow2(uint64_t n)
{
	return n && !(n & (n - 1));
}

int mesh_sink_feed(struct mesh_metrics *m, const struct mesh_window_rec *r, const char *sink)
{
	int rc = mm_window(m, r);

	if (rc == -ENOSPC && is_pow2(mm_links_dropped(m)))
		log_warn("%s: %d links kept, %s/%s -> %s/%s not exported (%" PRIu64
			 " records dropped: rb_mesh_links_dropped_total)", sink, mm_links(m),
			 r->local->host, r->local->nic, r->peer->host, r->peer->nic,
			 mm_links_dropped(m));
	return rc;
}

int mesh_sink_alert(struct mesh_metrics *m, const char *kind, const char *where, const char *sink)
{
	int rc = mm_alert(m, kind, where);

	if (rc == -ENOSPC && is_pow2(mm_alerts_dropped(m)))
		log_warn("%s: too many alerts in a window, %s %s not exported "
			 "(rb_mesh_alerts_dropped_total)", sink, kind, where);
	return rc;
}
