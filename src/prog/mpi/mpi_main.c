/* rb_mpi: a benchmark over every link of an MPI job (see mpi_job.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/commit.h"
#include "config.h"
#include "lib/log.h"
#include "bench/registry.h"
#include "prog/mpi/mpi_check.h"
#include "prog/mpi/mpi_job.h"
#include "prog/mpi/mpi_load.h"
#include "prog/mpi/mpi_plan.h"
#include "prog/mpi/mpi_report.h"
#include "prog/mpi/mpi_steps.h"
#include "prog/mpi/mpi_topo.h"
#include "driver/run.h"
#include "lib/units.h"

#define DEFAULT_BENCH "send_bw"
static const char default_bench[] = DEFAULT_BENCH;
#define DEFAULT_OUTLIER_PCT 20
#define DEFAULT_STEP_TIMEOUT_S 600

static void usage(FILE *f)
{
	char bw[160];

	mpi_bench_names(bw, sizeof(bw), METRIC_BW, " or ");
	fprintf(f, "Usage: mpirun [MPI OPTIONS] rb_mpi [--bench NAME] [--pattern pairs|ring|bisection|shift|incast] [OPTIONS]\n"
		"       mpirun [MPI OPTIONS] rb_mpi --bench LAT --background BW [--background-pattern P,...] [OPTIONS]\n"
		"       rb_mpi --plan=N [--pattern P] [OPTIONS]\n\n"
		"Run one benchmark over the links between MPI ranks (one rank per host, each on\n"
		"its local device); rank 0 prints one row per link and size.\n\n"
		"  --bench NAME         ");
	bench_list(f);
	fprintf(f, " (default %s)\n"
		"  --pattern P          pairs: every ordered pair once, in rounds of disjoint links\n"
		"                       (default); ring: rank i to i+1, all at once; bisection:\n"
		"                       the first half to the second half, all at once; shift:\n"
		"                       round k, every rank i to i+k (k = 1..N-1); incast: every\n"
		"                       other rank to one (--incast-dst), all at once\n"
		"  --incast-dst RANK    incast's destination (default 0; under load the pair's)\n"
		"  --sequential         pairs one at a time, each on an idle fabric (N(N-1) rounds)\n"
		"  --topology FILE      'HOST SWITCH' lines: links inside switches first, then\n"
		"                       across; rows name the switches\n"
		"  --topology=slurm     the same from Slurm's leaf switches (scontrol show\n"
		"                       topology; TopologyPlugin=topology/tree)\n"
		"  --plan[=N]           print the schedule (rounds, links per round, estimated\n"
		"                       time) for N ranks or the job's, run nothing\n"
		"  --link-time SECONDS  --plan: one link's time (default: from -D, else 2)\n"
		"  --outlier PCT        list links PCT %% or more worse than the median link (default %d)\n"
		"  --step-timeout SECONDS  a rank that has not ended a step by then is lost (default %d)\n"
		"  -h, --help / -V, --version\n\n"
		"Latency under load: the pair measures --bench (a latency benchmark) alone, then\n"
		"while the other ranks run a bandwidth benchmark in each load pattern:\n"
		"  --background BENCH   the load: %s\n"
		"  --background-pattern P[,P...]  pairs, ring and/or incast (default pairs)\n"
		"  --background-size SIZE  the load's message size (default 64K)\n"
		"  --latency-pair S:D   the ranks that measure latency (default 0:1)\n\n"
		"The rail check (what rb_mesh check runs): rail k is each host's k-th device;\n"
		"each rail's ends are compared (port, active MTU, GID type), then every ordered\n"
		"pair runs write_lat and write_bw on it; a row per link with a verdict, every\n"
		"failing link named on stderr, exit 1 when one fails:\n"
		"  --check              run the rail check\n"
		"  --rails DEV[,DEV...] the rails' devices, the same names on every host\n"
		"                       (default: each host's devices, sorted by name)\n"
		"  --check-min-bw RATE  a link's write_bw below RATE fails (e.g. 10Gb/s)\n"
		"  --check-max-p99 US   a link's write_lat p99 above US fails\n"
		"  --check-mtu BYTES    an end whose active MTU is not BYTES fails\n"
		"  --check-gid-type T   an end whose GID type is not T (v1, v2, IB) fails\n"
		"  --check-thresholds FILE  'min-bw RATE', 'max-p99 US', 'mtu BYTES',\n"
		"                       'gid-type T' lines (read by rank 0; options win)\n\n"
		"The benchmark's own options apply (see its man page), except those that name a\n"
		"peer or a port: -d, -i, -x, -c, -m, -s, -a, -n, -D, -q, -t, -r, -Q, -l, -o, -I,\n"
		"--timeout, --percentiles, --numa-node, --no-numa, --csv[=FILE], --json[=FILE], ...\n",
		default_bench, DEFAULT_OUTLIER_PCT, DEFAULT_STEP_TIMEOUT_S, bw);
}

static int parse_pattern(const struct opt_row *r, const char *s, void *dst)
{
	static const enum sched_kind kinds[] = { SCHED_ROUNDS, SCHED_RING, SCHED_BISECTION, SCHED_SHIFT,
						 SCHED_INCAST };

	(void)r;
	for (int i = 0; i < 5; i++)
		if (s && !strcmp(s, sched_name(kinds[i]))) {
			((struct mpi_job *)dst)->pattern = kinds[i];
			return 0;
		}
	return mpi_usage_error("--pattern", s, "is not a pattern (pairs, ring, bisection, shift or incast)");
}

static int parse_topology(const struct opt_row *r, const char *val, void *dst)
{
	(void)r;
	if (!val || !*val)
		return mpi_usage_error("--topology", val, "needs a file of 'HOST SWITCH' lines, or 'slurm'");
	((struct mpi_job *)dst)->topology = val;
	return 0;
}

static int parse_check_rate(const struct opt_row *r, const char *val, void *dst)
{
	(void)r;
	return units_parse_rate(val, 1, 1e15, &((struct mpi_job *)dst)->chk.min_bw_bps) ?
	       mpi_usage_error("--check-min-bw", val, "is not a rate with its unit (e.g. 10Gb/s, 900MiB/s)") : 0;
}

static int number_error(const char *opt, const char *s, double lo, double hi)
{
	char hint[64];

	snprintf(hint, sizeof(hint), "is not a number from %g to %g", lo, hi);
	return mpi_usage_error(opt, s, hint);
}

/* --plan: the job's size; --plan=N or --plan N: N ranks. */
static int parse_plan(const struct opt_row *r, const char *s, void *dst)
{
	char *end;
	double v;
	int err = 0;

	if (!s) {
		((struct mpi_job *)dst)->plan_n = 0;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= r->min && v <= r->max))
		err = number_error("--plan", s, r->min, r->max);
	if (v != (int)v)
		return mpi_usage_error("--plan", s, "is not a whole number of ranks");
	if (!err)
		((struct mpi_job *)dst)->plan_n = (int)v;
	return err;
}

static int parse_error(const char *who, enum opt_err kind, const struct opt_row *r, const char *word,
		       int opt, const char *expect)
{
	char what[48], hint[96];

	(void)who, (void)kind, (void)opt;
	snprintf(what, sizeof(what), "--%s", r ? r->name : "");
	snprintf(hint, sizeof(hint), "is not %s", expect);
	return mpi_usage_error(what, word, hint);
}

#define F(field) OPT_FIELD(struct mpi_job, field)

/* rb_mpi's own options, as rows of the benchmarks' parser (cli/optrow.h);
 * the rest of the command line is the benchmark's. */
static const struct opt_row rows[] = {
	{ "bench", 0, OT_STR, "NAME", F(bench_arg), .help = NULL },
	{ "pattern", 0, OT_CUSTOM, "P", F(pattern), .parse = parse_pattern },
	{ "outlier", 0, OT_NUMBER, "PCT", F(outlier_pct), .min = 0, .max = 1000 },
	{ "step-timeout", 0, OT_NUMBER, "SECONDS", F(step_timeout_s), .min = 1, .max = 1e6 },
	{ "topology", 0, OT_CUSTOM, "FILE", F(topology), .parse = parse_topology },
	{ "link-time", 0, OT_NUMBER, "SECONDS", F(link_time_s), .min = 0.001, .max = 1e6 },
	{ "sequential", 0, OT_FLAG, NULL, F(sequential), .help = NULL },
	{ "plan", 0, OT_CUSTOM, "N", F(plan_n), .min = 2, .max = PLAN_MAX_RANKS, .opt_arg = 1, .parse = parse_plan },
	{ "background-pattern", 0, OT_CUSTOM, "P", F(load), .parse = mpi_opt_patterns },
	{ "background-size", 0, OT_CUSTOM, "SIZE", F(load), .parse = mpi_opt_background_size },
	{ "background", 0, OT_CUSTOM, "BENCH", F(load), .parse = mpi_opt_background },
	{ "latency-pair", 0, OT_CUSTOM, "S:D", F(load), .parse = mpi_opt_pair },
	{ "incast-dst", 0, OT_CUSTOM, "RANK", F(incast_dst), .parse = mpi_opt_incast_dst },
	{ "check", 0, OT_FLAG, NULL, F(chk.on), .help = NULL },
	{ "rails", 0, OT_STR, "DEV[,DEV...]", F(chk.rails), .help = NULL },
	{ "check-min-bw", 0, OT_CUSTOM, "RATE", F(chk.min_bw_bps), .parse = parse_check_rate },
	{ "check-max-p99", 0, OT_NUMBER, "US", F(chk.max_p99_us), .min = 0.001, .max = 1e9 },
	{ "check-mtu", 0, OT_NUMBER, "BYTES", F(chk.mtu), .min = 256, .max = 4096 },
	{ "check-gid-type", 0, OT_STR, "TYPE", F(chk.gid_type), .help = NULL },
	{ "check-thresholds", 0, OT_STR, "FILE", F(chk.thr_file), .help = NULL },
	{ "help", 'h', OT_HELP, NULL, 0, .help = NULL },
	{ "version", 'V', OT_VERSION, NULL, 0, .help = NULL },
};

static const struct opt_prog prog = {
	.name = "rb_mpi", .rows = rows, .n = sizeof(rows) / sizeof(rows[0]), .error = parse_error,
};

/* Take rb_mpi's own options out of argv (--name VALUE, --name=VALUE, a
 * unique prefix that no benchmark option shares); the rest is the benchmark's.
 * 0, OPT_HELP, OPT_VERSION or -EINVAL. */
static int parse_own(struct mpi_job *job, int argc, char **argv, char **rest, int *nrest)
{
	bool taken;

	*nrest = 0;
	rest[(*nrest)++] = argv[0];
	for (int i = 1; i < argc; i++) {
		int rc = opt_take_abbrev(&prog, options_table(), "rb_mpi", argc, argv, &i, job, &taken);

		if (rc)
			return rc;
		if (!taken)
			rest[(*nrest)++] = argv[i];
	}
	rest[*nrest] = NULL;
	return 0;
}

/* What names a peer or a port has no meaning here: MPI finds the peers. */
static int reject_pair_options(const struct rb_options *o)
{
	if (o->server)
		return mpi_usage_error("server host", o->server, "is not taken: MPI ranks are the hosts");
	if (o->rdma_cm)
		return mpi_usage_error("-R/--rdma_cm", "", "is not supported: the QPs are connected through MPI");
	if (o->persistent || o->bind_addr || o->port != OOB_DEFAULT_PORT)
		return mpi_usage_error("--persistent/--bind/-p", "", "are not taken: there is no TCP exchange");
	if (o->histogram_file || o->raw_file)
		return mpi_usage_error("-H/--raw", "", "are not supported: rows go to rank 0 only");
	if (o->threads > 1 || o->thread_rows)
		return mpi_usage_error("-j/--threads", "", "is not supported: one thread per rank pair (give more ranks)");
	if (o->counters.n)
		return mpi_usage_error("-W/--report-counters", "", "is not supported by rb_mpi (a pair benchmark's option)");
	if (o->validate)
		return mpi_usage_error("--validate", "", "is not supported by rb_mpi (run the pair's benchmark with it)");
	if (o->load_bench != LOAD_NONE)
		return mpi_usage_error("--load", o->load.bench_text,
				       "is not taken by rb_mpi: its load is --background BENCH (with --background-pattern)");
	return 0;
}

static void cmdline_join(struct mpi_job *job, int argc, char **argv)
{
	size_t used = 0;

	for (int i = 0; i < argc && used < sizeof(job->cmdline); i++)
		used += (size_t)snprintf(job->cmdline + used, sizeof(job->cmdline) - used, "%s%s",
					 i ? " " : "", argv[i]);
}

/* 0: run; 1: help or version printed; -EINVAL: a usage error was printed. */
static int job_parse(struct mpi_job *job, int argc, char **argv)
{
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int nrest, rc;

	if (!rest)
		return -ENOMEM;
	job->outlier_pct = DEFAULT_OUTLIER_PCT;
	job->step_timeout_s = DEFAULT_STEP_TIMEOUT_S;
	job->plan_n = -1;
	job->incast_dst = -1;
	job->bench_arg = default_bench;
	cmdline_join(job, argc, argv);
	rc = parse_own(job, argc, argv, rest, &nrest);
	if (!rc && job->sequential && job->pattern != SCHED_ROUNDS)
		rc = mpi_usage_error("--sequential", "", "goes with --pattern pairs only");
	else if (!rc && job->sequential)
		job->pattern = SCHED_SEQUENTIAL;
	if (rc == OPT_HELP)
		usage(stdout);
	else if (rc == OPT_VERSION)
		printf("rb_mpi (rdmabench) %s (commit %s)\n", PACKAGE_VERSION, rb_commit());
	if (rc)
		goto out;
	job->bench_given = job->bench_arg != default_bench;
	if (job->chk.on && !job->bench_given)
		job->bench_arg = CHECK_BW_BENCH;
	job->bench = bench_find(job->bench_arg ? job->bench_arg : "");
	if (!job->bench) {
		rc = mpi_usage_error("--bench", job->bench_arg, "is not a benchmark");
		goto out;
	}
	rc = options_parse(nrest, rest, job->bench, &job->opt);
	if (rc > 0)
		rc = mpi_usage_error("--help/--version", "", "go first (before the benchmark's options)");
	if (!rc)
		rc = reject_pair_options(&job->opt);
	if (!rc)
		rc = mpi_load_check(job, job->sequential);
	if (!rc && job->chk.on)
		rc = mpi_check_parse(job, nrest, rest);
	else if (!rc && (job->chk.rails || job->chk.min_bw_bps > 0 || job->chk.max_p99_us > 0 ||
			 job->chk.mtu > 0 || job->chk.gid_type || job->chk.thr_file))
		rc = mpi_usage_error("--rails/--check-*", "", "go with --check");
out:
	free(rest);
	return rc == OPT_VERSION ? 1 : rc;
}

/* Only rank 0 speaks about the command line: the others would say the same. */
static int job_parse_quiet(struct mpi_job *job, int argc, char **argv)
{
	int saved_out = -1, saved_err = -1, null = -1, rc;

	if (job->rank != 0) {
		fflush(NULL);
		saved_out = dup(1);
		saved_err = dup(2);
		null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
	}
	rc = job_parse(job, argc, argv);
	if (job->rank != 0) {
		fflush(NULL);
		dup2(saved_out, 1);
		dup2(saved_err, 2);
		close(saved_out);
		close(saved_err);
		close(null);
	}
	return rc;
}

static int job_hosts(struct mpi_job *job)
{
	char me[MPI_HOST_LEN] = "";
	int len = 0;
	char name[MPI_MAX_PROCESSOR_NAME];

	job->hosts = calloc((size_t)job->nranks, sizeof(*job->hosts));
	if (!job->hosts)
		return -ENOMEM;
	MPI_Get_processor_name(name, &len);
	snprintf(me, sizeof(me), "%.*s", len, name);
	/* a short name (node17), not the domain */
	me[strcspn(me, ".")] = '\0';
	MPI_Allgather(me, MPI_HOST_LEN, MPI_CHAR, job->hosts, MPI_HOST_LEN, MPI_CHAR, MPI_COMM_WORLD);
	return 0;
}

/* The schedule's options against the job's size (--incast-dst, --latency-pair). */
static int job_check_sched(const struct mpi_job *job)
{
	struct sched s;
	int err = mpi_plan_sched(job, job->nranks, &s, job->rank == 0);

	sched_free(&s);
	return err;
}

static int job_check(const struct mpi_job *job, int provided)
{
	bool two_links = job->pattern == SCHED_RING || job->pattern == SCHED_SHIFT ||
			 job->pattern == SCHED_LOAD || (job->pattern == SCHED_INCAST && job->nranks > 2);

	if (job->nranks >= 2 && job_check_sched(job))
		return -EINVAL;
	if (job->rank != 0)
		return job->nranks < 2 || (two_links && provided < MPI_THREAD_MULTIPLE) ? -EINVAL : 0;
	if (job->nranks < 2) {
		log_err("%d rank: a link needs two (mpirun -np 2 or more)", job->nranks);
		return -EINVAL;
	}
	if (two_links && provided < MPI_THREAD_MULTIPLE) {
		log_err("%s %s runs two links or more per rank at once, which needs an MPI library with MPI_THREAD_MULTIPLE",
			job->pattern == SCHED_LOAD ? "--background" : "--pattern", job->pattern == SCHED_LOAD ?
			job->load.bench->name + 3 : sched_name(job->pattern));
		return -EINVAL;
	}
	return 0;
}

/* Every rank fails alike, or one rank ends the job for all. */
static int job_end(int err)
{
	if (!err) {
		MPI_Finalize();
		return RB_EXIT_OK;
	}
	log_err("ending the MPI job: %s", err == -EINVAL ? "usage" : err == -EINTR ? "stopped (a signal; the rows so far are written)" : "a rank was lost or stalled");
	MPI_Abort(MPI_COMM_WORLD, err == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_RUNTIME);
	return RB_EXIT_RUNTIME;
}

/* --plan=N or --plan N: the plan without MPI (no mpirun, no device); -1
 * when not asked. */
static int plan_alone(int argc, char **argv)
{
	struct mpi_job job = { .nranks = 1 };
	bool asked = false;
	int err;

	for (int i = 1; i < argc; i++)
		asked |= !strncmp(argv[i], "--plan=", 7) ||
			 (!strcmp(argv[i], "--plan") && i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9');
	if (!asked)
		return -1;
	err = job_parse(&job, argc, argv);
	if (err)
		return err > 0 ? RB_EXIT_OK : RB_EXIT_USAGE;
	if (job.topology && mpi_topo_plan(&job, job.plan_n))
		return RB_EXIT_USAGE;
	err = mpi_plan_print(&job, job.plan_n);
	mpi_topo_free(&job);
	return err == -EINVAL ? RB_EXIT_USAGE : err ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

/* --plan under MPI: rank 0 prints the plan for the job's ranks. */
static int plan_of_job(struct mpi_job *job)
{
	int err = job_hosts(job);

	if (!err && job->topology)
		err = mpi_topo_load(job);
	if (!err && job->rank == 0)
		err = mpi_plan_print(job, job->nranks);
	free(job->hosts);
	mpi_topo_free(job);
	MPI_Finalize();
	return err == -EINVAL ? RB_EXIT_USAGE : err ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

/* The job's schedule, the same on every rank; 0 or -EINVAL/-ENOMEM. */
static int job_schedule(struct mpi_job *job)
{
	int err = job->topology ? mpi_topo_load(job) : 0;

	if (!err)
		err = mpi_plan_sched(job, job->nranks, &job->sched, job->rank == 0);
	return err;
}

/* --check: the rails, a verdict per link; exit 1 when one fails. */
static int check_run(struct mpi_job *job)
{
	int err;

	run_init();
	err = job_hosts(job);
	if (!err)
		err = mpi_check_run(job);
	free(job->hosts);
	if (err)
		return job_end(err);
	MPI_Finalize();
	return job->chk.failed ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

static int job_run(struct mpi_job *job)
{
	struct rb_session cols_of = { 0 };
	int err;

	run_init();
	err = job_hosts(job);
	if (!err)
		err = job_schedule(job);
	cols_of.bench = job->bench;
	cols_of.opt = &job->opt;
	report_define(&job->cols, &cols_of);
	job->take_rows = mpi_report_rows;
	if (!err && job->rank == 0)
		err = mpi_report_open(job);
	if (!err)
		err = mpi_steps_run(job);
	/* under load the pair's rows differ by design: no median to be off */
	if (job->rank == 0 && !err && job->pattern != SCHED_LOAD)
		mpi_report_outliers(job);
	if (job->rank == 0)
		mpi_report_close(job, err && err != -EINTR ? "see the messages on stderr" : NULL);
	sched_free(&job->sched);
	mpi_topo_free(job);
	free(job->hosts);
	return err;
}

int main(int argc, char **argv)
{
	struct mpi_job job = { 0 };
	int provided = 0, err;

	log_set_prog("rb_mpi");
	if ((err = plan_alone(argc, argv)) >= 0)
		return err;
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
		log_err("MPI_Init failed: run under mpirun or srun");
		return RB_EXIT_RUNTIME;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &job.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &job.nranks);
	err = job_parse_quiet(&job, argc, argv);
	if (err) {
		/* every rank parsed the same line: all stop alike */
		MPI_Finalize();
		return err > 0 ? RB_EXIT_OK : RB_EXIT_USAGE;
	}
	log_set_verbose(job.opt.verbose);
	if (job.plan_n == 0)
		return plan_of_job(&job);
	err = job_check(&job, provided);
	if (err) {
		MPI_Finalize();
		return RB_EXIT_USAGE;
	}
	if (placement_check(job.opt.numa_node, job.opt.cpu_list))
		return job_end(-EINVAL);
	if (job.chk.on)
		return check_run(&job);
	return job_end(job_run(&job));
}
