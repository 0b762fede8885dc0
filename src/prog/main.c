/* The one main() every benchmark shares: parse, run, exit.  Built once per
 * line of bench/list.h, with -DRB_BENCH_ID=NAME (bench/list.am): rb_NAME
 * runs the table rb_bench_NAME. */
#include "bench/registry.h"
#include "lib/log.h"
#include "cli/options.h"
#include "driver/run.h"

#ifndef RB_BENCH_ID
#error "RB_BENCH_ID: the benchmark's name in bench/list.h (-DRB_BENCH_ID=send_bw)"
#endif
#define RB_TABLE_(id) rb_bench_##id
#define RB_TABLE(id) RB_TABLE_(id)
static const struct rb_bench *const bench = &RB_TABLE(RB_BENCH_ID);

int main(int argc, char **argv)
{
	struct rb_options o;
	int rc;

	log_set_prog(bench->name);
	rc = options_parse(argc, argv, bench, &o);
	if (rc)
		return rc > 0 ? RB_EXIT_OK : RB_EXIT_USAGE;
	log_set_verbose(o.verbose);
	return run_bench(bench, &o);
}
