/*
 * CPU claims (cpuclaim.c) in a temporary lock folder: N claims get N
 * distinct CPUs, a released claim is reused, all taken means shared (the
 * least shared CPU, its slot saying by how many), the two sides' orders
 * keep a loopback pair apart, and an unusable folder falls back or fails
 * at once, never hangs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cpuclaim.h"
#include "tap.h"

static char dir[64];

static void test_distinct(void)
{
	int order[4] = { 0, 1, 2, 3 };
	struct cpuclaim c[4];
	int seen = 0;

	for (int i = 0; i < 4; i++) {
		is_int(cpuclaim_take(&c[i], dir, order, 4), 0, "claim succeeds");
		is_int(c[i].slot, 0, "a CPU of its own (slot 0)");
		seen |= 1 << c[i].cpu;
	}
	is_int(seen, 0xf, "four claims, four distinct CPUs (0-3)");
	is_int(c[0].cpu, 0, "the first claim takes the first CPU");
	cpuclaim_release(&c[2]);
	is_int(c[2].fd, -1, "released: no descriptor left");
	is_int(cpuclaim_take(&c[2], dir, order, 4), 0, "claim after a release");
	is_int(c[2].cpu, 2, "the released CPU is reused");
	is_int(c[2].slot, 0, "...as a CPU of its own");
	for (int i = 0; i < 4; i++)
		cpuclaim_release(&c[i]);
}

static void test_shared(void)
{
	int order[2] = { 5, 7 }, client[2] = { 7, 5 };
	struct cpuclaim c[5];

	for (int i = 0; i < 2; i++)
		cpuclaim_take(&c[i], dir, order, 2);
	is_int(cpuclaim_take(&c[2], dir, order, 2), 0, "all taken: still a claim");
	is_int(c[2].cpu, 5, "all taken: the first CPU, shared");
	is_int(c[2].slot, 1, "all taken: slot 1 says one other instance is there");
	is_int(cpuclaim_take(&c[3], dir, order, 2), 0, "fourth claim on two CPUs");
	is_int(c[3].cpu, 7, "the least shared CPU (7: one instance, 5: two)");
	is_int(c[3].slot, 1, "...shared with one");
	is_int(cpuclaim_take(&c[4], dir, client, 2), 0, "a client's order, all twice taken");
	is_int(c[4].cpu, 7, "the client starts from its own first (7)");
	is_int(c[4].slot, 2, "...shared with two");
	ok(strstr(c[4].path, "/cpu7.2") != NULL, "lock file named by CPU and slot (%s)", c[4].path);
	for (int i = 0; i < 5; i++)
		cpuclaim_release(&c[i]);
}

/* A loopback pair: the server from the first CPU, the client from the
 * second; each pair after it finds the CPUs before it taken. */
static void test_pairs(void)
{
	int srv[4] = { 0, 1, 2, 3 }, cli[4] = { 1, 2, 3, 0 };
	struct cpuclaim s[2], c[2];

	for (int i = 0; i < 2; i++) {
		cpuclaim_take(&s[i], dir, srv, 4);
		cpuclaim_take(&c[i], dir, cli, 4);
	}
	ok(s[0].cpu == 0 && c[0].cpu == 1 && s[1].cpu == 2 && c[1].cpu == 3,
	   "two loopback pairs on four CPUs: 0/1 and 2/3 (got %d/%d %d/%d)",
	   s[0].cpu, c[0].cpu, s[1].cpu, c[1].cpu);
	for (int i = 0; i < 2; i++) {
		cpuclaim_release(&s[i]);
		cpuclaim_release(&c[i]);
	}
}

/* Every slot of the only CPU held: -EBUSY, at once. */
static void test_exhausted(void)
{
	static struct cpuclaim c[CPUCLAIM_SLOTS + 1];
	int cpu = 9, n = 0;

	for (int i = 0; i < CPUCLAIM_SLOTS; i++)
		n += cpuclaim_take(&c[i], dir, &cpu, 1) == 0;
	is_int(n, CPUCLAIM_SLOTS, "every slot of one CPU can be claimed");
	is_int(cpuclaim_take(&c[CPUCLAIM_SLOTS], dir, &cpu, 1), -EBUSY,
	       "one more: -EBUSY, no wait");
	is_int(c[CPUCLAIM_SLOTS].cpu, -1, "...and no CPU");
	for (int i = 0; i < CPUCLAIM_SLOTS; i++)
		cpuclaim_release(&c[i]);
}

static void test_folders(void)
{
	char file[96], sub[96], got[128] = "";
	const char *cands[3] = { "/nonexistent-rb/a/b", file, sub };
	int order[1] = { 0 };
	struct cpuclaim c;
	int fd;

	snprintf(file, sizeof(file), "%s/plainfile", dir);
	snprintf(sub, sizeof(sub), "%s/locks", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	close(fd);
	is_int(cpuclaim_dir_pick(cands, 3, got, sizeof(got)), 0,
	       "missing and not-a-folder candidates: falls back");
	is_str(got, sub, "...to the next usable one (made)");
	ok(cpuclaim_dir_pick(cands, 2, got, sizeof(got)) < 0, "no usable candidate: an error");
	is_int(cpuclaim_take(&c, "/nonexistent-rb/a", order, 1), -ENOENT,
	       "missing folder: -ENOENT, no claim");
	is_int(c.cpu, -1, "...and no CPU");
	is_int(cpuclaim_take(&c, NULL, order, 1), -EINVAL, "no folder: -EINVAL");
	ok(cpuclaim_dir(got, sizeof(got)) == 0 && got[0] == '/',
	   "the default folders give one here (%s)", got);
	unlink(file);
	rmdir(sub);
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/rb-cpuclaim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP cannot make a temporary folder\n");
		return 0;
	}
	test_distinct();
	test_shared();
	test_pairs();
	test_exhausted();
	test_folders();
	cleanup();
	return tap_done();
}
