/*
 * For the GPU kinds' files (mem_cuda.c, mem_rocm.c): their driver library
 * loaded at run time (dlopen: rdmabench has no build dependency on it, and
 * tests/standin/ builds a stand-in that the same dlopen finds).
 */
#ifndef RB_MEM_GPU_H
#define RB_MEM_GPU_H

#include "verbs/mem.h"

/* An entry point: its name, where its address goes, other names it had
 * (NULL-terminated, NULL: none). */
struct gpu_sym {
	const char *name;
	void **fn;
	const char *const *alt;
};

/* The first of names (NULL-terminated) that dlopen finds, or NULL after a
 * message naming opt, the library and the hint (LD_LIBRARY_PATH). */
void *gpu_lib_open(const char *const *names, const char *opt);
/* Every entry point of syms (ends with a NULL name) from h: 0, or -ENOSYS
 * after a message naming the one missing. */
int gpu_lib_syms(void *h, const char *lib, const struct gpu_sym *syms);

#endif
