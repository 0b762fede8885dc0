/* The one main() every benchmark shares: parse, run, exit. */
#include "cli/bench.h"
#include "lib/log.h"
#include "cli/options.h"
#include "session/run.h"

/* Each bench/ file defines this. */
extern const struct rb_bench rb_bench;

int main(int argc, char **argv)
{
	struct rb_options o;
	int rc;

	log_set_prog(rb_bench.name);
	rc = options_parse(argc, argv, &rb_bench, &o);
	if (rc)
		return rc > 0 ? RB_EXIT_OK : RB_EXIT_USAGE;
	log_set_verbose(o.verbose);
	return run_bench(&rb_bench, &o);
}
