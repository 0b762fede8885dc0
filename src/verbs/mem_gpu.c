/*
 * What the GPU kinds share (mem.h, mem_gpu.h): the options' device, the
 * driver library loaded at run time (no build dependency: the few entry
 * points are declared in each kind's file), the host copy that --validate
 * works on where the CPU may not touch the buffer, and the metadata.
 */
#include "verbs/mem_gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "cli/options.h"
#include "lib/log.h"
#include "lib/output.h"

void mem_dev_for(const struct rb_options *o, struct mem_dev *dev)
{
	*dev = (struct mem_dev){
		.id = o->cuda_given ? o->cuda_dev : o->rocm_given ? o->rocm_dev : 0,
		.bus_id = o->cuda_bus_id,
		.dmabuf = o->cuda_dmabuf || o->rocm_dmabuf,
		.stage = o->validate,
		.touch = (int)o->gpu_touch,
	};
}

/* ---- the driver library --------------------------------------------- */

void *gpu_lib_open(const char *const *names, const char *opt)
{
	char why[256] = "";

	for (int i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		const char *e = h ? NULL : dlerror();

		if (h)
			return h;
		if (!why[0])    /* the first name's: the one the hint names */
			snprintf(why, sizeof(why), "%s", e ? e : "not found");
	}
	log_err("%s: cannot load %s (%s): install the GPU's driver, or name the folder that holds it "
		"in LD_LIBRARY_PATH", opt, names[0], why);
	return NULL;
}

int gpu_lib_syms(void *h, const char *lib, const struct gpu_sym *syms)
{
	for (int i = 0; syms[i].name; i++) {
		*syms[i].fn = dlsym(h, syms[i].name);
		for (int k = 0; !*syms[i].fn && syms[i].alt && syms[i].alt[k]; k++)
			*syms[i].fn = dlsym(h, syms[i].alt[k]);
		if (!*syms[i].fn) {
			log_err("%s has no %s: a driver too old for rdmabench", lib, syms[i].name);
			return -ENOSYS;
		}
	}
	return 0;
}

/* ---- the host copy (--validate) ---------------------------------------- */

int mem_stage_open(struct mem_buf *b)
{
	void *p;

	if (!b->ops || !b->ops->to_host || !b->ops->from_host)
		return -EINVAL;
	p = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_err("cannot map a host copy of %zu bytes for --validate: %s", b->len, strerror(errno));
		return -errno;
	}
	b->stage = p;
	b->view = p;
	return mem_pull(b, 0, b->len);
}

void mem_stage_close(struct mem_buf *b)
{
	if (b->stage)
		munmap(b->stage, b->len);
	if (b->view == b->stage)
		b->view = b->cpu;
	b->stage = NULL;
}

static int stage_range(const struct mem_buf *b, size_t off, size_t len)
{
	if (off > b->len || len > b->len - off) {
		log_err("the host copy: %zu bytes at %zu are outside the buffer of %zu", len, off, b->len);
		return -ERANGE;
	}
	return 0;
}

int mem_push(const struct mem_buf *b, size_t off, size_t len)
{
	int err;

	if (!b->stage || len == 0)
		return 0;
	err = stage_range(b, off, len);
	if (!err)
		err = b->ops->from_host((struct mem_buf *)b, off, (const char *)b->stage + off, len);
	return err;
}

int mem_pull(const struct mem_buf *b, size_t off, size_t len)
{
	int err;

	if (!b->stage || len == 0)
		return 0;
	err = stage_range(b, off, len);
	if (!err)
		err = b->ops->to_host((char *)b->stage + off, b, off, len);
	return err;
}

/* ---- copies for --bounce ------------------------------------------------- */

int mem_to_host(void *dst, const struct mem_buf *b, size_t off, size_t len)
{
	if (b->cpu) {
		memcpy(dst, (const char *)b->cpu + off, len);
		return 0;
	}
	return b->ops->to_host(dst, b, off, len);
}

int mem_from_host(struct mem_buf *b, size_t off, const void *src, size_t len)
{
	if (b->cpu) {
		memcpy((char *)b->cpu + off, src, len);
		return 0;
	}
	return b->ops->from_host(b, off, src, len);
}

/* ---- the metadata --------------------------------------------------------- */

static const char *mem_reg_text(const struct mem_buf *b, const struct mem_buf *bounce)
{
	if (bounce->ops)
		return "ibv_reg_mr of a host bounce buffer (--bounce)";
	return b->dmabuf_fd >= 0 ? "ibv_reg_dmabuf_mr (dma-buf)" : "ibv_reg_mr (peer memory)";
}

void mem_meta(struct out *out, const struct mem_buf *b, const struct mem_buf *bounce)
{
	const char *name = NULL, *bus = NULL;

	if (!b->ops || (!b->ops->device && !bounce->ops))
		return;
	if (b->ops->device)
		b->ops->device(b, &name, &bus);
	out_meta_str(out, "memory_device", "Memory device", name ? name : "host");
	out_meta_str(out, "memory_bus_id", "Memory bus id", bus ? bus : "none");
	out_meta_str(out, "memory_registration", "Memory registration", mem_reg_text(b, bounce));
	out_meta_str(out, "memory_staging", "Memory staging",
		     b->stage ? "--validate through a host copy" : "none");
	out_meta_str(out, "memory_bounce", "Bounce buffer",
		     bounce->ops ? "a copy each message through registered host memory" : "none");
	if (b->dev.touch && b->ops->touch_text) {
		char text[256];

		b->ops->touch_text(b, text, sizeof(text));
		out_meta_str(out, "memory_touch", "GPU touch ran", text);
	}
}
