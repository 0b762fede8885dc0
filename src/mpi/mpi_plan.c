#include "mpi_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

/* The sizes a link measures: 1, or -a's sweep. */
static int plan_sizes(const struct rb_options *o)
{
	uint64_t last = o->transport == TR_UD ? 4096 : RB_SWEEP_MAX;
	int n = 0;

	if (!o->all)
		return 1;
	for (uint64_t s = RB_SWEEP_MIN; s <= last; s *= 2)
		n++;
	return n;
}

/* One link's time (s) and where the figure comes from. */
static double plan_link_time(const struct mpi_job *job, const char **from)
{
	const struct rb_options *o = &job->opt;

	if (job->link_time_s > 0) {
		*from = "--link-time";
		return job->link_time_s;
	}
	if (o->duration_s > 0) {
		*from = "-D and warm-up per size, plus 1 s setup (assumed)";
		return plan_sizes(o) * (o->duration_s + o->warmup_s) + PLAN_SETUP_S;
	}
	*from = "2 s a link (assumed; --link-time from a run's 's a round' line)";
	return PLAN_DEFAULT_LINK_S;
}

/* counts[k]: how many rounds hold k links. */
static int plan_count(const struct sched *s, long *counts)
{
	struct sched_link *l = calloc((size_t)s->n, sizeof(*l));

	if (!l)
		return -ENOMEM;
	for (int r = 0; r < s->nrounds; r++)
		counts[sched_round(s, r, l)]++;
	free(l);
	return 0;
}

static void plan_meta(struct out *out, const struct mpi_job *job, const struct sched *s, int n)
{
	const char *from;
	double link_s = plan_link_time(job, &from);

	out_meta_str(out, "tool", "Tool", "rdmabench");
	out_meta_str(out, "version", "Version", PACKAGE_VERSION);
	out_meta_str(out, "test", "Test", job->bench->name);
	out_meta_str(out, "pattern", "Pattern", sched_name(job->pattern));
	out_meta_str(out, "schedule", "Schedule", job->pattern == SCHED_SEQUENTIAL ? "sequential" :
		     job->pattern == SCHED_ROUNDS ? "rounds" : "one round per step");
	out_meta_u64(out, "ranks", "Ranks", (uint64_t)n);
	out_meta_str(out, "topology", "Topology", job->topology ? job->topology : "none");
	out_meta_u64(out, "rounds", "Rounds", (uint64_t)s->nrounds);
	out_meta_u64(out, "links_at_once", "Links at once (most)", (uint64_t)sched_max_links(s));
	out_meta_double(out, "link_time_s", "Link time[s]", link_s, 1);
	out_meta_str(out, "link_time_from", "Link time from", from);
	out_meta_double(out, "est_wall_s", "Estimated wall time[s]", link_s * s->nrounds, 0);
	out_meta_double(out, "est_wall_h", "Estimated wall time[h]", link_s * s->nrounds / 3600, 2);
	out_meta_double(out, "sequential_wall_h", "One link at a time[h]",
			link_s * (double)n * (n - 1) / 3600, 2);
}

static const struct out_col plan_cols[] = {
	{ "links_per_round", "Links per round", OUT_U64, 0 },
	{ "rounds", "Rounds", OUT_U64, 0 },
};

int mpi_plan_print(struct mpi_job *job, int n)
{
	struct sched s = { .n = 0 };
	long *counts = calloc((size_t)n + 1, sizeof(*counts));
	struct out *out = NULL;
	int err = counts ? sched_init(&s, job->pattern, n, job->opt.bidir, job->group) : -ENOMEM;

	if (!err)
		err = plan_count(&s, counts);
	if (!err && !(out = out_open(job->opt.format, stdout)))
		err = -ENOMEM;
	if (!err) {
		plan_meta(out, job, &s, n);
		out_begin(out, "rb_mpi --plan", plan_cols, 2);
		for (int k = n; k >= 0; k--)
			if (counts[k])
				out_row(out, (union out_val[]){ { .u = (uint64_t)k }, { .u = (uint64_t)counts[k] } });
		out_end(out, "complete", NULL);
	}
	sched_free(&s);
	free(counts);
	if (err)
		log_err("--plan: %s", strerror(-err));
	return err;
}
