/*
 * bench/list.h: the one list of benchmarks, one BENCH(NAME) line each, in
 * the order every list shows them (rb_mpi --bench, rdmabench(7)'s table).
 * Everything that names the benchmarks reads it:
 *   the build       bench/gen-list.sh writes bench/list.am (the programs
 *                   rb_NAME, the sources bench/NAME.c, the man pages) from it
 *   the registry    bench/registry.c (bench_find, bench_list)
 *   the programs    src/prog/main.c, built once per line (-DRB_BENCH_ID=NAME)
 *   the rest        man/gen-options.sh, the bash completion (built from
 *                   completion/rdmabench.bash.in), scripts/tools/rb-campaign,
 *                   tests/cli.sh, tests/fuzz_args.sh
 * tests/benchlist.sh fails when one of them disagrees.
 *
 * Adding a benchmark: write bench/NAME.c, which defines
 * `const struct rb_bench rb_bench_NAME` (see src/cli/bench.h), and add its
 * line here.  In a build folder, `make rb_NAME` (make reruns automake),
 * then `man/gen-options.sh BUILD` starts man/rb_NAME.1 (write its
 * DESCRIPTION) and updates rdmabench(7) and rb_mpi(1); then `make`.
 *
 * No include guard: the includer defines BENCH(NAME) first.  Keep each
 * line exactly "BENCH(NAME)": the shell scripts read them with sed.
 */
BENCH(send_bw)
BENCH(send_lat)
BENCH(write_bw)
BENCH(write_lat)
BENCH(read_bw)
BENCH(read_lat)
BENCH(atomic_bw)
BENCH(atomic_lat)
