#!/bin/bash
# tests/fuzz/run-fuzz.sh [SECONDS]: build the libFuzzer target of the wire
# format (tests/fuzz/fuzz_wire.c: every decoder, and encode/decode round
# trips) with clang, ASan and UBSan, run it for SECONDS (default
# $RB_FUZZ_TIME, or 20; 600 in the full run, RB_FULL=1), print TAP.  Needs clang and its runtime
# (Debian: clang libclang-rt-14-dev); without them: SKIP, but under CI=true
# (.ci/run installs both) a failure.  Whether the libFuzzer runtime is there
# is asked of clang itself (an empty target linked with -fsanitize=fuzzer):
# once it is, any failure to build fuzz_wire is a failure, never a skip.
#
# Work folder $RB_FUZZ_DIR (default build-fuzz/ at the top of the tree): the
# binary, the corpus (kept between runs, so each run starts where the last
# one stopped) and, on a failure, the input that triggered it (crash-*,
# leak-*, timeout-*: replay with `build-fuzz/fuzz_wire FILE`).
top=$(cd "$(dirname "$0")/../.." && pwd)
[ "${RB_FULL:-0}" = 1 ] && : "${RB_FUZZ_TIME:=600}"
secs=${1:-${RB_FUZZ_TIME:-20}}
dir=${RB_FUZZ_DIR:-$top/build-fuzz}
cc=${CLANG:-clang}
case $secs in '' | *[!0-9]*) echo "run-fuzz.sh: SECONDS must be a number: $secs" >&2; exit 2 ;; esac

# skip REASON: the whole file skipped; under CI=true a failure.
skip() {
	if [ "${CI:-}" = true ]; then
		echo "1..2"
		echo "not ok 1 - build fuzz_wire: $* (CI=true: .ci/run installs clang and libclang-rt-14-dev)"
		echo "not ok 2 - fuzz_wire: not built"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}
command -v "$cc" >/dev/null || skip "no clang (apt-get install clang libclang-rt-14-dev)"
mkdir -p "$dir/corpus" "$dir/artifacts" || exit 1

# The libFuzzer runtime: an empty target, linked as fuzz_wire is.
log=$dir/build.log
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	>"$dir/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$dir/probe.c" -o "$dir/probe" >"$log" 2>&1; then
	sed 's/^/# /' "$log" | tail -n 5
	skip "no libFuzzer runtime: $cc cannot link an empty -fsanitize=fuzzer target (apt-get install libclang-rt-14-dev)"
fi

echo "1..2"
if ! "$cc" -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$top/src" \
	"$top/tests/fuzz/fuzz_wire.c" "$top/src/lib/wire.c" -o "$dir/fuzz_wire" >"$log" 2>&1; then
	echo "not ok 1 - build fuzz_wire"
	sed 's/^/# /' "$log" | tail -n 20
	echo "not ok 2 - fuzz_wire # not built"
	exit 1
fi
echo "ok 1 - build fuzz_wire ($cc -fsanitize=fuzzer,address,undefined)"

# Seeds: one valid payload of each kind, so the fuzzer starts inside the
# formats rather than having to find the counts and lengths on its own.
seed() { printf "$2" >"$dir/corpus/seed-$1"; }
seed hdr '\x52\x44\x4d\x42\x00\x01\x00\x01\x00\x00\x00\x0c'
seed hello '\x00\x01\x00\x04\x00\x00\x00\x00\x00\x00\x00\x40\x0arb_send_bw'
seed params '\x00\x02\x00\x01\x00\x00\x00\x00\x00\x00\x00\x07\x00\x02\xff\xff\xff\xff\xff\xff\xff\xff'
seed qp '\x00\x01\x00\x00\x00\x11\x00\xab\xcd\xef\x00\x00\xfe\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x12\x34\x00\x00\x7f\x00\x00\x00\x10\x00\x00\x00\x04\x00\x00\x00'
seed error '\x00\x05oops!'

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
out=$dir/fuzz.log
t0=$SECONDS
(cd "$dir" && ./fuzz_wire -max_total_time="$secs" -max_len=70000 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" corpus) >"$out" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -n1)
cov=$(grep -oE 'cov: [0-9]+' "$out" | tail -n1)
what="${runs:-?} inputs in $((SECONDS - t0)) s, ${cov:-cov: ?}, corpus $(ls "$dir/corpus" | wc -l) files"
if [ "$rc" = 0 ] && ! grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:' "$out"; then
	echo "ok 2 - fuzz_wire: $what"
	exit 0
fi
echo "not ok 2 - fuzz_wire: exit status $rc after $what"
grep -E 'ERROR|runtime error|SUMMARY|Test unit written|^ *#[0-9]+ ' "$out" | head -n 30 | sed 's/^/# /'
echo "# replay: $dir/fuzz_wire $(ls -t "$dir"/artifacts/* 2>/dev/null | head -n1)"
exit 1
