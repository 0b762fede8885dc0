/*
 * One JSON object a line (mesh_sink.h): a window record with its labels,
 * or an alert.  Strings through out_json_string (lib/output.h: \" \\ and
 * every control character escaped), numbers as the shortest %g that
 * reads back, NaN and Inf as null, epochs as exact integers.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/output.h"
#include "prog/mesh/mesh_metrics.h"
#include "prog/mesh/mesh_sink.h"

struct jsonl_sink {
	FILE *f;
	bool own;                       /* fclose at the end (not stdout) */
	struct mesh_agent_info ai;
};

static void key_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	out_json_string(f, v);
}

static void key_num(FILE *f, const char *key, double v)
{
	char s[40];

	fprintf(f, ",\"%s\":%s", key, isfinite(v) ? mm_double_text(s, sizeof(s), v) : "null");
}

static void key_u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",\"%s\":%" PRIu64, key, v);
}

static void rec_labels(FILE *f, const struct mesh_window_rec *r)
{
	key_str(f, "local_host", r->local->host);
	key_str(f, "local_nic", r->local->nic);
	key_str(f, "local_switch", r->local->sw);
	key_str(f, "peer_host", r->peer->host);
	key_str(f, "peer_nic", r->peer->nic);
	key_str(f, "peer_switch", r->peer->sw);
	fprintf(f, ",\"rail\":%d", r->local->rail);
	key_str(f, "tier", mm_tier_name(r->tier));
}

static int jsonl_window(void *ctx, const struct mesh_window_rec *r)
{
	struct jsonl_sink *j = ctx;
	FILE *f = j->f;

	fprintf(f, "{\"type\":\"window\"");
	key_str(f, "host", j->ai.host);
	rec_labels(f, r);
	key_u64(f, "peer_epoch", r->peer_epoch);
	key_num(f, "start_s", r->start_s);
	key_num(f, "end_s", r->end_s);
	key_u64(f, "sent", r->sent);
	key_u64(f, "answered", r->answered);
	key_u64(f, "lost", r->lost);
	key_u64(f, "restarted", r->restarted);
	key_u64(f, "late", r->late);
	key_num(f, "loss", r->loss);
	key_num(f, "rtt_p50_us", r->rtt_p50_us);
	key_num(f, "rtt_p90_us", r->rtt_p90_us);
	key_num(f, "rtt_p99_us", r->rtt_p99_us);
	key_num(f, "rtt_max_us", r->rtt_max_us);
	fprintf(f, ",\"hw_stamps\":%s", r->hw_stamps ? "true" : "false");
	fprintf(f, ",\"bad\":%s}\n", mm_rec_bad(r, &j->ai.thr) ? "true" : "false");
	return ferror(f) ? -EIO : 0;
}

static int jsonl_alert(void *ctx, const char *kind, const char *where, const char *line)
{
	struct jsonl_sink *j = ctx;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(j->f, "{\"type\":\"alert\"");
	key_str(j->f, "host", j->ai.host);
	key_str(j->f, "kind", kind);
	key_str(j->f, "where", where);
	key_str(j->f, "line", line);
	key_num(j->f, "time", (double)ts.tv_sec + ts.tv_nsec * 1e-9);
	fprintf(j->f, "}\n");
	return ferror(j->f) ? -EIO : 0;
}

static int jsonl_flush(void *ctx, double now_s)
{
	struct jsonl_sink *j = ctx;

	return fflush(j->f) || ferror(j->f) ? -EIO : 0;
}

static void jsonl_close(void *ctx)
{
	struct jsonl_sink *j = ctx;

	if (j->own)
		fclose(j->f);
	else
		fflush(j->f);
	free(j);
}

int mesh_jsonl_open(struct mesh_sink *s, const char *path, const struct mesh_agent_info *ai,
		    char *why, size_t len)
{
	struct jsonl_sink *j = calloc(1, sizeof(*j));

	if (!j) {
		snprintf(why, len, "--jsonl: out of memory");
		return -ENOMEM;
	}
	j->own = strcmp(path, "-") != 0;
	j->f = j->own ? fopen(path, "a") : stdout;
	if (!j->f) {
		int e = errno;

		snprintf(why, len, "--jsonl %s: %s", path, strerror(e));
		free(j);
		return -e;
	}
	j->ai = *ai;
	j->ai.version = NULL;           /* not ours to keep */
	*s = (struct mesh_sink){ .name = "jsonl", .window = jsonl_window, .alert = jsonl_alert,
				 .flush = jsonl_flush, .close = jsonl_close, .ctx = j };
	return 0;
}
