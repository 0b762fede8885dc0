/*
 * rb_mesh check: the one-shot rail check is rb_mpi's (--check: its pairs
 * schedule, rail after rail, mpi_check.c); this execs it with rb_mesh's
 * spelling of the thresholds.  Run it under the launcher that knows the
 * hosts: srun (a Slurm allocation), mpirun --hostfile FILE, or rb_mpi's
 * rank list as mpirun takes it.
 */
#include "prog/mesh/mesh_check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

/* rb_mesh's names for rb_mpi's --check-* options. */
static const char *const renamed[] = { "min-bw", "max-p99", "mtu", "gid-type", "thresholds" };

void mesh_check_usage(FILE *f)
{
	fprintf(f, "Usage: srun [-N HOSTS] rb_mesh check [options] [benchmark options]\n"
		   "       mpirun --hostfile FILE --map-by node rb_mesh check [options] ...\n\n"
		   "Check every rail of every host once: rail k is each host's k-th RDMA device\n"
		   "(sorted by name). Each rail's ends are compared (port ACTIVE, active MTU, GID\n"
		   "type, link layer), then every ordered pair of hosts runs write_lat and write_bw\n"
		   "on it, in rounds of disjoint links (rb_mpi's pairs schedule), rail after rail.\n"
		   "One row per link and rail with its verdict (stdout: --csv, --json or a table);\n"
		   "every failing link named on stderr.\n\n"
		   "Options:\n"
		   "  --rails DEV[,DEV...]  the rails' devices, the same names on every host\n"
		   "  --min-bw RATE         a link whose write_bw is below RATE fails (e.g. 100Gb/s)\n"
		   "  --max-p99 US          a link whose write_lat p99 is above US fails\n"
		   "  --mtu BYTES           an end whose active MTU is not BYTES fails (default:\n"
		   "                        the two ends must be alike)\n"
		   "  --gid-type v1|v2|IB   an end whose GID type is not this fails (default: alike)\n"
		   "  --thresholds FILE     'min-bw RATE', 'max-p99 US', 'mtu BYTES', 'gid-type T'\n"
		   "                        lines (rank 0 reads it; options given win)\n"
		   "Benchmark options (both benchmarks): -s, -n, -D, -x, -i, --timeout, --csv[=FILE],\n"
		   "--json[=FILE], ... (see rb_write_bw(1)); not -d (--rails), -a or --bench.\n\n"
		   "Exit status: 0 every link passed, 1 a link failed or the run did, 2 a usage error.\n"
		   "Runs rb_mpi --check (built with ./configure --with-mpi): see rb_mesh(1).\n");
}

/* "--min-bw" or "--min-bw=X" -> "--check-min-bw..."; NULL: not renamed. */
static char *rename_word(const char *w)
{
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		size_t n = strlen(renamed[i]);
		char *out;

		if (strncmp(w, "--", 2) || strncmp(w + 2, renamed[i], n) || (w[2 + n] && w[2 + n] != '='))
			continue;
		if (!(out = malloc(strlen(w) + 8)))
			return NULL;
		sprintf(out, "--check-%s", w + 2);
		return out;
	}
	return NULL;
}

/* rb_mpi beside this program (same folder), else the PATH's. */
static void exec_rb_mpi(char **argv)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 16);

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/'))) {
			strcpy(slash + 1, "rb_mpi");
			if (access(self, X_OK) == 0)
				execv(self, argv);
		}
	}
	execvp("rb_mpi", argv);
}

int mesh_check(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 3, sizeof(*av));
	int n = 0;

	if (!av)
		return 1;
	av[n++] = "rb_mpi";
	av[n++] = "--check";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			mesh_check_usage(stdout);
			return 0;
		}
		if (!strncmp(argv[i], "--max-loss", 10)) {
			log_err("--max-loss: not a check's: its links are RC, which retransmit; a link that loses too much fails outright (rb_mesh watch judges loss)");
			return 2;
		}
		av[n] = rename_word(argv[i]);
		if (!av[n])
			av[n] = argv[i];
		n++;
	}
	exec_rb_mpi(av);
	log_err("check runs rb_mpi --check, which is not here (%s): build with ./configure --with-mpi, and keep rb_mpi beside rb_mesh or on PATH",
		strerror(errno));
	return 1;
}
