/*
 * node_exporter's textfile collector (mesh_sink.h): at each flush the
 * text format 0.0.4 (no # EOF, no timestamps: the collector refuses
 * them) goes to PATH.tmp, then rename(2) puts it at PATH, so the
 * collector reads the last whole file or the one before, never half.
 * (The collector reads *.prom files only: name PATH so.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog/mesh/mesh_metrics.h"
#include "prog/mesh/mesh_sink.h"

struct textfile_sink {
	struct mesh_metrics *mm;
	struct mesh_buf buf;
	char *path, *tmp;
};

static int write_all(const char *path, const struct mesh_buf *b)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (!f)
		return -errno;
	if (b->len && fwrite(b->p, 1, b->len, f) != b->len)
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

static int textfile_flush(void *ctx, double now_s)
{
	struct textfile_sink *t = ctx;
	int rc;

	mm_flush(t->mm);
	mbuf_reset(&t->buf);
	rc = mm_render(t->mm, MM_PROMETHEUS, &t->buf);
	if (!rc)
		rc = write_all(t->tmp, &t->buf);
	if (!rc && rename(t->tmp, t->path))
		rc = -errno;
	if (rc)
		unlink(t->tmp);
	return rc;
}

static int textfile_window(void *ctx, const struct mesh_window_rec *r)
{
	struct textfile_sink *t = ctx;

	return mesh_sink_feed(t->mm, r, "--textfile");
}

static int textfile_alert(void *ctx, const char *kind, const char *where, const char *line)
{
	struct textfile_sink *t = ctx;

	return mesh_sink_alert(t->mm, kind, where, "--textfile");
}

static void textfile_close(void *ctx)
{
	struct textfile_sink *t = ctx;

	mm_free(t->mm);
	mbuf_free(&t->buf);
	free(t->path);
	free(t->tmp);
	free(t);
}

int mesh_textfile_open(struct mesh_sink *s, const char *path, const struct mesh_agent_info *ai,
		       char *why, size_t len)
{
	struct textfile_sink *t = calloc(1, sizeof(*t));
	int rc;

	if (!t || !(t->mm = mm_new(ai, MESH_SINK_MAX_LINKS, MESH_SINK_MAX_ALERTS)) ||
	    !(t->path = strdup(path)) || asprintf(&t->tmp, "%s.tmp", path) < 0) {
		if (t)
			t->tmp = NULL;
		snprintf(why, len, "--textfile: out of memory");
		if (t)
			textfile_close(t);
		return -ENOMEM;
	}
	/* can PATH.tmp be written?  Said now rather than at the first window */
	rc = write_all(t->tmp, &t->buf);
	if (rc) {
		snprintf(why, len, "--textfile %s: cannot write %s: %s", path, t->tmp, strerror(-rc));
		textfile_close(t);
		return rc;
	}
	unlink(t->tmp);
	*s = (struct mesh_sink){ .name = "textfile", .window = textfile_window,
				 .alert = textfile_alert, .flush = textfile_flush,
				 .close = textfile_close, .ctx = t };
	return 0;
}
