#include "mpi_topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct topo_line {
	char host[MPI_HOST_LEN], sw[MPI_HOST_LEN];
};

/* The file's lines into *lines (n of them).  0, or -EINVAL after a message. */
static int topo_read(const char *path, struct topo_line **lines, int *n)
{
	FILE *f = fopen(path, "r");
	char buf[512];
	int cap = 0, lineno = 0;

	*lines = NULL;
	*n = 0;
	if (!f) {
		log_err("--topology: cannot read '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	while (fgets(buf, sizeof(buf), f)) {
		struct topo_line t;
		char extra[2];
		int k;

		lineno++;
		buf[strcspn(buf, "#\n")] = '\0';
		k = sscanf(buf, "%63s %63s %1s", t.host, t.sw, extra);
		if (k <= 0)
			continue;
		if (k != 2) {
			log_err("--topology: %s line %d: '%s' is not 'HOST SWITCH'", path, lineno, buf);
			fclose(f);
			return -EINVAL;
		}
		t.host[strcspn(t.host, ".")] = '\0';
		if (*n == cap) {
			struct topo_line *v = realloc(*lines, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!v) {
				fclose(f);
				return -ENOMEM;
			}
			*lines = v;
		}
		(*lines)[(*n)++] = t;
	}
	fclose(f);
	return 0;
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

static const struct topo_line *line_of(const struct topo_line *t, int nt, const char *host)
{
	for (int i = 0; i < nt; i++)
		if (!strcmp(t[i].host, host))
			return &t[i];
	return NULL;
}

/* Rank 0: each rank's group from its host's line; -EINVAL for a host not listed. */
static int groups_of_hosts(struct mpi_job *job)
{
	struct topo_line *t;
	int nt, ngroups = 0, err = topo_read(job->topology, &t, &nt);

	for (int r = 0; r < job->nranks && !err; r++) {
		const struct topo_line *l = line_of(t, nt, job->hosts[r]);

		if (!l) {
			log_err("--topology: host '%s' (rank %d) is not in %s: add a line '%s SWITCH'",
				job->hosts[r], r, job->topology, job->hosts[r]);
			err = -EINVAL;
		} else {
			job->group[r] = group_of(job, job->nranks, l->sw, &ngroups);
		}
	}
	free(t);
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
	struct topo_line *t;
	int nt, ngroups = 0, err = topo_read(job->topology, &t, &nt);

	if (!err && nt != n) {
		log_err("--topology: %s lists %d hosts, not %d (--plan): give one line per rank",
			job->topology, nt, n);
		err = -EINVAL;
	}
	if (!err)
		err = alloc_groups(job, n);
	for (int r = 0; r < n && !err; r++)
		job->group[r] = group_of(job, n, t[r].sw, &ngroups);
	free(t);
	return err;
}

void mpi_topo_free(struct mpi_job *job)
{
	free(job->group);
	free(job->group_names);
	job->group = NULL;
	job->group_names = NULL;
}
