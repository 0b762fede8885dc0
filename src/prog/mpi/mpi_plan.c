#include "prog/mpi/mpi_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/commit.h"
#include "config.h"
#include "lib/log.h"
#include "prog/mpi/mpi_load.h"

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

static int sched_error(const char *opt, const char *val, const char *why, bool speak)
{
	if (speak)
		mpi_usage_error(opt, val, why);
	return -EINVAL;
}

/* Incast's destination: --incast-dst, else the latency pair's under load, else 0. */
static int sched_incast(const struct mpi_job *job, int n, struct sched *s, bool speak)
{
	bool load = job->pattern == SCHED_LOAD;
	int dst = job->incast_dst >= 0 ? job->incast_dst : load ? job->load.dst : 0;
	char val[16], why[64];

	snprintf(val, sizeof(val), "%d", dst);
	snprintf(why, sizeof(why), "is not a rank of the job (0 to %d)", n - 1);
	if (load && (job->load.src >= n || job->load.dst >= n)) {
		snprintf(val, sizeof(val), "%d:%d", job->load.src, job->load.dst);
		snprintf(why, sizeof(why), "is not two ranks of the job (0 to %d)", n - 1);
		return sched_error("--latency-pair", val, why, speak);
	}
	if (sched_set_incast(s, dst))
		return sched_error("--incast-dst", val, why, speak);
	return 0;
}

int mpi_plan_sched(const struct mpi_job *job, int n, struct sched *s, bool speak)
{
	const struct mpi_load *ld = &job->load;
	const char *why = NULL;
	char val[32];
	int err = sched_init(s, job->pattern, n, job->opt.bidir, job->group);

	if (err) {
		if (speak)
			log_err("the schedule: %s", strerror(-err));
		return err;
	}
	if (sched_incast(job, n, s, speak))
		return -EINVAL;
	snprintf(val, sizeof(val), "%d:%d", ld->src, ld->dst);
	err = job->pattern == SCHED_LOAD ?
	      sched_set_load(s, ld->src, ld->dst, ld->patterns, ld->npatterns, &why) : 0;
	if (err == -EINVAL)
		return sched_error("--latency-pair", val, why, speak);
	if (err && speak)
		log_err("the schedule: %s", strerror(-err));
	return err;
}

void mpi_plan_meta_extra(struct out *out, const struct mpi_job *job, const struct sched *s)
{
	const struct mpi_load *ld = &job->load;
	char buf[64];
	size_t used = 0;
	bool incast = s->kind == SCHED_INCAST;

	for (int i = 0; i < s->nloads; i++)
		incast |= s->loads[i] == SCHED_INCAST;
	if (incast)
		out_meta_u64(out, "incast_dst", "Incast destination", (uint64_t)s->incast_dst);
	if (s->kind != SCHED_LOAD)
		return;
	snprintf(buf, sizeof(buf), "%d->%d", s->lat_src, s->lat_dst);
	out_meta_str(out, "latency_pair", "Latency pair", buf);
	for (int i = 0; i < s->nloads && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "," : "",
					 sched_name(s->loads[i]));
	out_meta_str(out, "load_patterns", "Load patterns", buf);
	out_meta_str(out, "load_bench", "Load", ld->bench->name);
	out_meta_u64(out, "load_size", "Load message size", ld->size);
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
	out_meta_str(out, "commit", "Commit", rb_commit());
	out_meta_str(out, "test", "Test", job->bench->name);
	out_meta_str(out, "pattern", "Pattern", sched_name(job->pattern));
	out_meta_str(out, "schedule", "Schedule", job->pattern == SCHED_SEQUENTIAL ? "sequential" :
		     job->pattern == SCHED_ROUNDS ? "rounds" : job->pattern == SCHED_LOAD ?
		     "the latency pair idle, then under each load" : "one round per step");
	mpi_plan_meta_extra(out, job, s);
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
	int err = counts ? mpi_plan_sched(job, n, &s, true) : -ENOMEM;

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
	if (err && err != -EINVAL)
		log_err("--plan: %s", strerror(-err));
	return err;
}
