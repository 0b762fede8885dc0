/*
 * Memory kind "udmabuf" (--use-dmabuf): host memory exported as a dma-buf
 * (mem.h).  A memfd of the buffer's size, sealed against shrinking (what
 * udmabuf asks), is handed to /dev/udmabuf (UDMABUF_CREATE), which returns
 * a dma-buf fd over its pages; the CPU maps that dma-buf, and the MR is
 * registered through it (ibv_reg_dmabuf_mr: mem.c, the path a GPU's
 * dma-buf takes too).  Needs a kernel with CONFIG_UDMABUF (Debian's 6.12
 * and later; not bookworm's 6.1).  The pages are shared memory, on the
 * kernel's NUMA choice.
 */
#include "verbs/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/log.h"

#define UDMABUF_DEV "/dev/udmabuf"

/* A memfd of len bytes sealed against shrinking: its fd, or -errno after a message. */
static int udmabuf_memfd(size_t len)
{
	int fd = memfd_create("rdmabench", MFD_ALLOW_SEALING | MFD_CLOEXEC);

	if (fd < 0) {
		log_err("--use-dmabuf: memfd_create: %s", strerror(errno));
		return -errno;
	}
	if (ftruncate(fd, (off_t)len) || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		int err = -errno;

		log_err("--use-dmabuf: cannot size and seal a memfd of %zu bytes: %s", len, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

/* The dma-buf of memfd's first len bytes: its fd, or -errno after a message. */
static int udmabuf_export(int memfd, size_t len)
{
	struct udmabuf_create c = { .memfd = (uint32_t)memfd, .flags = UDMABUF_FLAGS_CLOEXEC,
				    .offset = 0, .size = len };
	int dev = open(UDMABUF_DEV, O_RDWR | O_CLOEXEC), fd, err;

	if (dev < 0) {
		err = -errno;
		log_err("--use-dmabuf: cannot open " UDMABUF_DEV ": %s (the kernel needs CONFIG_UDMABUF: "
			"Debian's 6.12 and later have it, 6.1 not)", strerror(-err));
		return err;
	}
	fd = ioctl(dev, UDMABUF_CREATE, &c);
	err = -errno;
	close(dev);
	if (fd >= 0)
		return fd;
	log_err("--use-dmabuf: " UDMABUF_DEV " refused a dma-buf of %zu bytes: %s%s", len, strerror(-err),
		-err == EINVAL ? " (over /sys/module/udmabuf/parameters/size_limit_mb?)" : "");
	return err;
}

static void udmabuf_free(struct mem_buf *b)
{
	if (b->cpu)
		munmap(b->cpu, b->len);
	if (b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	if (b->priv)
		close((int)(intptr_t)b->priv - 1);
	b->addr = b->cpu = b->priv = NULL;
	b->dmabuf_fd = -1;
}

static int udmabuf_alloc(struct mem_buf *b, size_t len, int node)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err = mem_round(len, page, &b->len), memfd;
	void *p;

	(void)node;
	if (!err)
		err = mem_fits(b->len, mem_meminfo_bytes("MemAvailable"), "of memory (MemAvailable)");
	if (err)
		return err;
	b->page = page;
	memfd = udmabuf_memfd(b->len);
	if (memfd < 0)
		return memfd;
	b->priv = (void *)(intptr_t)(memfd + 1);
	b->dmabuf_fd = udmabuf_export(memfd, b->len);
	if (b->dmabuf_fd < 0) {
		err = b->dmabuf_fd;
		udmabuf_free(b);
		return err;
	}
	p = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_SHARED, b->dmabuf_fd, 0);
	if (p == MAP_FAILED) {
		err = -errno;
		log_err("--use-dmabuf: cannot map the dma-buf of %zu bytes: %s", b->len, strerror(-err));
		udmabuf_free(b);
		return err;
	}
	b->addr = b->cpu = p;
	b->dmabuf_offset = 0;
	memset(b->cpu, 0, b->len);
	b->node = mem_node_of(b->addr);
	log_verbose("--use-dmabuf: a memfd of %zu bytes exported through " UDMABUF_DEV
		    " as dma-buf fd %d, mapped at %p", b->len, b->dmabuf_fd, b->addr);
	return 0;
}

const struct mem_ops mem_udmabuf = {
	.name = "udmabuf",
	.cpu_access = true,
	.alloc = udmabuf_alloc,
	.free = udmabuf_free,
};
