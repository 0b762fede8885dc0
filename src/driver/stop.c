/* The SIGINT/SIGTERM flag, and how a session's end becomes an exit code. */
#include "driver/internal.h"

#include <errno.h>

volatile sig_atomic_t rb_stop;

static void on_signal(int sig)
{
	(void)sig;
	rb_stop = 1;
}

void signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	oob_set_stop_flag(&rb_stop);
}

const char *status_of(int err, bool partial)
{
	return err ? "failed" : partial ? "partial" : "complete";
}

int exit_code(int err, bool partial)
{
	if (err == -EINVAL)
		return RB_EXIT_USAGE;
	return err || partial ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}
