#!/bin/sh
# The test driver wrapper (Makefile.am LOG_DRIVER): runs the real driver, its
# command line being our arguments, then adds the test's wall time to its log
# ("# wall time: N s") and prints "TIME: TEST N s" next to its results, so
# that every `make check` output, and .ci/run's table, says where the time went.
log="" name="" prev=""
for a in "$@"; do
	case $prev in
	--log-file) log=$a ;;
	--test-name) name=$a ;;
	esac
	prev=$a
done
t0=$(date +%s)
"$@"
rc=$?
t=$(($(date +%s) - t0))
[ -n "$log" ] && [ -f "$log" ] && echo "# wall time: $t s" >>"$log"
echo "TIME: ${name:-?} $t s"
exit "$rc"
