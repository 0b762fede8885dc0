/*
 * CPU claims: lock files under a per-host folder, see cpuclaim.h.
 */
#include "lib/cpuclaim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void cpuclaim_init(struct cpuclaim *c)
{
	c->fd = -1;
	c->cpu = -1;
	c->slot = -1;
	c->path[0] = '\0';
}

void cpuclaim_release(struct cpuclaim *c)
{
	if (c->fd >= 0)
		close(c->fd);       /* drops the flock */
	cpuclaim_init(c);
}

/* A folder we may keep locks in: made if missing; no symlink, ours or
 * root's (another user's /tmp folder could be swapped under us). */
static int dir_usable(const char *path)
{
	struct stat st;

	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return -EPERM;
	return access(path, W_OK | X_OK) ? -errno : 0;
}

int cpuclaim_dir_pick(const char *const *cands, int n, char *buf, size_t len)
{
	int err = -ENOENT;

	for (int i = 0; i < n; i++) {
		if (!cands[i] || !cands[i][0] || strlen(cands[i]) >= len)
			continue;
		err = dir_usable(cands[i]);
		if (err == 0) {
			snprintf(buf, len, "%s", cands[i]);
			return 0;
		}
	}
	return err;
}

int cpuclaim_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char run_user[256] = "", tmp[64];
	const char *cands[3] = { "/run/rdmabench", run_user, tmp };

	if (xdg && *xdg)
		snprintf(run_user, sizeof(run_user), "%s/rdmabench", xdg);
	snprintf(tmp, sizeof(tmp), "/tmp/rdmabench-%u", (unsigned)geteuid());
	return cpuclaim_dir_pick(cands, 3, buf, len);
}

/* 1: slot taken into c; 0: held by another; -errno: cannot open. */
static int slot_try(struct cpuclaim *c, const char *dir, int cpu, int slot)
{
	char path[sizeof(c->path)];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/cpu%d.%d", dir, cpu, slot) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		close(fd);
		return err == EWOULDBLOCK ? 0 : -err;
	}
	c->fd = fd;
	c->cpu = cpu;
	c->slot = slot;
	snprintf(c->path, sizeof(c->path), "%s", path);
	return 1;
}

int cpuclaim_take(struct cpuclaim *c, const char *dir, const int *order, int n)
{
	cpuclaim_init(c);
	if (!dir || !*dir || n <= 0)
		return -EINVAL;
	for (int slot = 0; slot < CPUCLAIM_SLOTS; slot++)
		for (int i = 0; i < n; i++) {
			int r = slot_try(c, dir, order[i], slot);

			if (r)
				return r > 0 ? 0 : r;
		}
	return -EBUSY;
}
