#include "lib/log.h"

#include <stdarg.h>
#include <stdio.h>

static const char *prog = "rdmabench";
static bool verbose;
static __thread const char *who;   /* -j: "thread 2", this thread's messages */
static char first_error[512];   /* for the failed document's "error" */

void log_set_prog(const char *name) { prog = name; }
void log_set_verbose(bool on) { verbose = on; }
void log_set_thread(const char *name) { who = name; }
bool log_verbose_enabled(void) { return verbose; }

static void log_v(const char *tag, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void log_v(const char *tag, const char *fmt, va_list ap)
{
	flockfile(stderr);	/* one line, whole, whichever thread writes */
	fprintf(stderr, "%s: %s%s%s", prog, tag, who ? who : "", who ? ": " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/* This thread's last error message: rb_mpi reports a failed link's cause. */
static _Thread_local char last_err[256];

const char *log_last_err(void) { return last_err; }
void log_clear_last_err(void) { last_err[0] = '\0'; }

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	if (!first_error[0]) {
		va_list copy;

		va_copy(copy, ap);
		vsnprintf(first_error, sizeof(first_error), fmt, copy);
		va_end(copy);
	}
	log_v("error: ", fmt, ap);
	va_end(ap);
}

const char *log_first_error(void)
{
	return first_error[0] ? first_error : NULL;
}

void log_clear_error(void)
{
	first_error[0] = '\0';
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v("", fmt, ap);
	va_end(ap);
}

void log_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	log_v("", fmt, ap);
	va_end(ap);
}
