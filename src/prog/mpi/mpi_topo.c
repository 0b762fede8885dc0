#include "prog/mpi/mpi_topo.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/log.h"
#include "prog/mpi/mpi_topo_parse.h"

#define SLURM "slurm"

static bool from_slurm(const char *topology)
{
	return !strcmp(topology, SLURM);
}

/* The file's lines into M.  0, or -EINVAL after a message, -ENOMEM. */
static int file_read(const char *path, struct topo_map *m)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	int lineno = 0, err = 0;

	if (!f) {
		log_err("--topology: cannot read '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	while (!err && fgets(buf, sizeof(buf), f)) {
		char host[TOPO_NAME_LEN], sw[TOPO_NAME_LEN];
		int k = topo_file_line(buf, host, sw);

		lineno++;
		buf[strcspn(buf, "\n")] = '\0';
		if (k < 0)
			log_err("--topology: %s line %d: '%s' is not 'HOST SWITCH'", path, lineno, buf);
		err = k < 0 ? -EINVAL : k ? topo_map_add(m, host, sw) : 0;
	}
	fclose(f);
	return err;
}

/* All of CMD's stdout, malloc'd, or NULL (CMD failed: a message). */
static char *run_output(const char *cmd)
{
	FILE *p = popen(cmd, "r"), *mem;
	char *out = NULL;
	size_t len = 0;
	int st;

	if (!p) {
		log_err("--topology=" SLURM ": cannot run '%s': %s", cmd, strerror(errno));
		return NULL;
	}
	mem = open_memstream(&out, &len);
	for (int c; mem && (c = getc(p)) != EOF; )
		putc(c, mem);
	if (mem)
		fclose(mem);
	st = pclose(p);
	if (st != 0 || !out) {
		log_err("--topology=" SLURM ": '%s' failed (exit %d): run under Slurm with scontrol on PATH, or give a file of 'HOST SWITCH' lines",
			cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		free(out);
		return NULL;
	}
	return out;
}

/* A Slurm hostlist's names (scontrol show hostnames), malloc'd, or NULL. */
static char *slurm_hostnames(const char *hostlist, void *ctx)
{
	char cmd[4200];

	(void)ctx;
	if (hostlist[strspn(hostlist, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,-[]")]) {
		log_err("--topology=" SLURM ": '%s' is not a hostlist of 'scontrol show topology'", hostlist);
		return NULL;
	}
	snprintf(cmd, sizeof(cmd), "scontrol show hostnames '%s'", hostlist);
	return run_output(cmd);
}

/* Slurm's leaf switches (Level=0) and their hosts into M: 0, or -EINVAL
 * after a message (no scontrol, no tree topology), -ENOMEM. */
static int slurm_read(struct topo_map *m)
{
	char *text = run_output("scontrol show topology");
	FILE *in = text ? fmemopen(text, strlen(text), "r") : NULL;
	int leaves = in ? topo_slurm_parse(in, m, slurm_hostnames, NULL) : -EINVAL;

	if (in)
		fclose(in);
	if (leaves == 0)
		log_err("--topology=" SLURM ": 'scontrol show topology' lists no leaf switch (Level=0): Slurm has no tree topology; set TopologyPlugin=topology/tree and a topology.conf, or give a file of 'HOST SWITCH' lines");
	else if (leaves == -EINVAL && text)
		log_err("--topology=" SLURM ": 'scontrol show topology' has a leaf switch without SwitchName or Nodes, or a hostlist scontrol could not expand");
	free(text);
	return leaves > 0 ? 0 : leaves < 0 ? leaves : -EINVAL;
}

static int topo_read(const char *topology, struct topo_map *m)
{
	*m = (struct topo_map){ 0 };
	return from_slurm(topology) ? slurm_read(m) : file_read(topology, m);
}

static int alloc_groups(struct mpi_job *job, int n)
{
	job->group = calloc((size_t)n, sizeof(int));
	job->group_names = calloc((size_t)n, sizeof(*job->group_names));
	return job->group && job->group_names ? 0 : -ENOMEM;
}

/* A switch's group number: the order in which switches first appear. */
static int group_of(struct mpi_job *job, int n, const char *sw, int *ngroups)
{
	for (int g = 0; g < *ngroups; g++)
		if (!strcmp(job->group_names[g], sw))
			return g;
	if (*ngroups >= n)
		return -1;
	snprintf(job->group_names[*ngroups], MPI_HOST_LEN, "%s", sw);
	return (*ngroups)++;
}

/* Rank 0: each rank's group from its host's switch; -EINVAL for a host not listed. */
static int groups_of_hosts(struct mpi_job *job)
{
	struct topo_map m;
	int ngroups = 0, err = topo_read(job->topology, &m);

	for (int r = 0; r < job->nranks && !err; r++) {
		const char *sw = topo_map_switch(&m, job->hosts[r]);

		if (!sw && from_slurm(job->topology)) {
			log_err("--topology=" SLURM ": host '%s' (rank %d) is on no leaf switch of 'scontrol show topology': add it to topology.conf, or give a file of 'HOST SWITCH' lines",
				job->hosts[r], r);
			err = -EINVAL;
		} else if (!sw) {
			log_err("--topology: host '%s' (rank %d) is not in %s: add a line '%s SWITCH'",
				job->hosts[r], r, job->topology, job->hosts[r]);
			err = -EINVAL;
		} else {
			job->group[r] = group_of(job, job->nranks, sw, &ngroups);
		}
	}
	topo_map_free(&m);
	return err;
}

int mpi_topo_load(struct mpi_job *job)
{
	int err = alloc_groups(job, job->nranks), bad;

	if (err)
		return err;
	if (job->rank == 0 && groups_of_hosts(job))
		job->group[0] = -1;
	MPI_Bcast(job->group, job->nranks, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast(job->group_names, job->nranks * MPI_HOST_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
	bad = job->group[0] < 0;
	return bad ? -EINVAL : 0;
}

int mpi_topo_plan(struct mpi_job *job, int n)
{
	struct topo_map m;
	int ngroups = 0, err = topo_read(job->topology, &m);

	if (!err && m.n != n) {
		log_err("--topology: %s lists %d hosts, not %d (--plan): give one per rank",
			job->topology, m.n, n);
		err = -EINVAL;
	}
	if (!err)
		err = alloc_groups(job, n);
	for (int r = 0; r < n && !err; r++)
		job->group[r] = group_of(job, n, m.v[r].sw, &ngroups);
	topo_map_free(&m);
	return err;
}

void mpi_topo_free(struct mpi_job *job)
{
	free(job->group);
	free(job->group_names);
	job->group = NULL;
	job->group_names = NULL;
}
