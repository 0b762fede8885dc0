#!/bin/bash
# Runs every tests/integration/t_*.sh (in name order, or those matching the
# globs in RB_TESTS, e.g. RB_TESTS='t_00* t_1*') against one RDMA device and
# prints TAP: the plan first (the sum of the files' tap_plan, read before any
# case runs: lib.sh), one line per case, each file's wall time as a
# "# FILE: N s" line and all of them in a "# times:" line at the end.  A file
# that reports fewer cases than it planned gets a "not ok" for each one
# missing; one that reports more fails the run.  Exits 0 only when all cases
# passed and the count matches the plan.
#
# RB_PART (globs): only the files that also match these, the share of one
# boot (tests/rxe.sh: t_0* t_1* t_2*; tests/rxe-robust.sh: t_3* t_4* t_5*;
# tests/rxe-mpi.sh: t_6* and later), so that CI can run those boots side
# by side while RB_TESTS still picks the files a person asks for.
#
# RB_SAN_BIN, a sanitizer build (configure --enable-sanitizers): the files
# of tests/integration matching RB_SAN_TESTS (default 't_1[0-9]_*.sh', the
# benchmark cases; not those of tests/numa, tests/cpus... named in RB_TESTS) run
# against its programs rather than $top_builddir's, with sanitizer findings
# given exit statuses no case expects (86 ASan/LSan, 87 UBSan).  That is how
# CI runs the benchmark cases under ASan+UBSan without running them twice.
#
# RB_BESIDE (globs, e.g. 't_20_*.sh t_35_*.sh'): a second lane.  These files
# run one after the other in the background, beside the others (once the
# files matching RB_FIRST, default 't_0*.sh', perftest's, are done), in their
# own RB_TMP and on their own default port (RB_BESIDE_PORT, default 18600:
# rb_cmd adds -p; fixed ports of their own are fine too); their TAP lines
# come out as one block, renumbered, when the lane is done.  The guest's
# CPUs are idle much of the time a pair starts, connects and ends, which
# the other lane then uses.  The files matching RB_ALONE (default
# 't_[2-9]*.sh': all but perftest's and the benchmark cases, t_0* and t_1*,
# which run beside the second lane) wait for the second lane to end.  A
# file in the second lane, or a t_0*/t_1* file, must not disturb the device
# (a port set down) nor read device-wide counters or compare speeds.
#
# Normally run inside the test bed: scripts/testbed/rb-testbed -- tests/integration/run-all.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
trap 'rb_check_stop; rm -rf "$RB_TMP"' EXIT
# one python3 for every rb_check of the run (lib.sh)
rb_check_serve

tap_diag "device $RB_DEV, GID index $RB_GID_INDEX, IP $RB_IP, test bed ${RB_TESTBED:-none}"
own=0

# cached_ro DIR: DIR is a read-only mount point (/proc/self/mountinfo: field
# 5 the mount point, 6 its options).
cached_ro() {
	local a b c d mp opts rest
	while read -r a b c d mp opts rest; do
		[ "$mp" = "${1// /\\040}" ] && [[ ,$opts, == *,ro,* ]] && return 0
	done </proc/self/mountinfo
	return 1
}
# The test bed's --cached folders (the builds: tests/testbed-tap.sh) must be
# what it says: read-only, the host root's cached view, not the share.
# (its case comes after the plan)
[ -n "${RB_TESTBED_CACHED:-}" ] && own=$((own + 1))
cached_case() {
	local st=0 d
	[ -n "${RB_TESTBED_CACHED:-}" ] || return 0
	for d in $RB_TESTBED_CACHED; do cached_ro "$d" || { st=1; tap_diag "$d: not a read-only mount"; }; done
	tap_ok "$st" "the test bed's --cached folders are read-only mounts in the guest: $RB_TESTBED_CACHED"
}
san_bin="" san_bad=""
if [ -n "${RB_SAN_BIN:-}" ]; then
	if grep -qa __asan_init "$RB_SAN_BIN/rb_send_bw" 2>/dev/null; then
		san_bin=$RB_SAN_BIN
		tap_diag "${RB_SAN_TESTS:=t_1[0-9]_*.sh} against the sanitizer build in $san_bin"
	else
		san_bad=1 own=$((own + 1))
	fi
fi

# matches NAME GLOBS: true when the file name NAME matches one of GLOBS.
matches() {
	local p
	set -f
	for p in $2; do
		# shellcheck disable=SC2053 # a glob
		[[ $1 == $p ]] && { set +f; return 0; }
	done
	set +f
	return 1
}

# cpu_ticks: the guest's busy and total CPU ticks so far (/proc/stat), for
# each file's share of busy CPU: a file far below 100 % mostly waits
# (deadlines, sleeps) and could run beside others.
cpu_ticks() {
	awk '/^cpu /{b=$2+$3+$4+$7+$8+$9; print b, b+$5+$6}' /proc/stat 2>/dev/null || echo "0 0"
}

# busy_pct "B0 T0" "B1 T1": the busy share between two cpu_ticks.
busy_pct() {
	set -- $1 $2
	(($4 > $2)) && echo "$(((($3 - $1) * 100) / ($4 - $2))) % CPU" || echo "CPU n/a"
}

# The files beside the others run one after the other in a second lane:
# its pid and folder.
beside_pid="" beside_dir=""

# beside_start FILE...: the second lane, in the background, in its own
# RB_TMP, on its own default port (RB_LANE_PORT: rb_cmd adds -p).
beside_start() {
	beside_dir=$RB_TMP/beside
	mkdir -p "$beside_dir"
	(
		export RB_TMP=$beside_dir RB_LANE_PORT=${RB_BESIDE_PORT:-18600}
		export RB_PAIR_PORT=$RB_LANE_PORT
		for f in "$@"; do
			t0=$SECONDS
			tap_diag "$(basename "$f") (beside the others, default port $RB_LANE_PORT)"
			run_counted "$f"
			t0=$((SECONDS - t0))
			tap_diag "$(basename "$f"): $t0 s"
			echo "$(basename "$f" .sh) $t0" >>"$beside_dir/times"
		done
	) >"$beside_dir/out" 2>&1 </dev/null &
	beside_pid=$!
}

# beside_flush: wait for the second lane, then print its TAP with this
# run's numbers.
beside_flush() {
	local line n re='^(not )?ok [0-9]+ (.*)$'
	[ -n "$beside_pid" ] || return 0
	wait "$beside_pid"
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			tap_bump
			n=$TAP_N
			echo "${BASH_REMATCH[1]}ok $n ${BASH_REMATCH[2]}"
			[ -n "${BASH_REMATCH[1]}" ] && echo "$n ${BASH_REMATCH[2]#- }" >>"$RB_TMP/tap.failed"
		else
			echo "$line"
		fi
	done <"$beside_dir/out"
	# the lane's files that reported more cases than planned (run_counted)
	[ -s "$beside_dir/tap.failed" ] && grep '^0 ' "$beside_dir/tap.failed" >>"$RB_TMP/tap.failed"
	[ -s "$beside_dir/times" ] && mapfile -t -O "${#times[@]}" times <"$beside_dir/times"
	beside_pid=""
}

# run_file FILE: source it in a subshell, against the sanitizer build when
# its name matches RB_SAN_TESTS.
run_file() {
	(
		if [ -n "$san_bin" ] && [ "$(dirname "$1")" = "$here" ] &&
			matches "$(basename "$1")" "$RB_SAN_TESTS"; then
			RB_BIN=$san_bin
			export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}
			export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
			tap_diag "$(basename "$1"): the programs of $RB_BIN"
		fi
		. "$1"
	)
}

# plan_of FILE: FILE's plan in PLAN, "" when it declares none: the file
# sourced in a subshell (a fork, no exec) with RB_PLAN_TO set, where
# tap_plan writes its N and ends it (lib.sh).  Only a file with a tap_plan
# line is sourced so: the rest of a file never runs here.
plan_of() {
	local line
	PLAN=""
	while IFS= read -r line; do
		[[ $line == tap_plan\ * ]] && break
	done <"$1"
	[[ $line == tap_plan\ * ]] || return 0
	: >"$RB_TMP/plan"
	(
		RB_PLAN_TO=$RB_TMP/plan
		. "$1"
	) >/dev/null 2>&1 </dev/null
	read -r PLAN <"$RB_TMP/plan"
	[[ $PLAN =~ ^[0-9]+$ ]] || PLAN=""
}

# run_counted FILE: run_file FILE, held to its plan (plans[FILE]).
run_counted() {
	local f=$1 name=${1##*/} p=${plans[$1]} st got k why
	if [ -z "$p" ]; then
		tap_ok 1 "$name declares no plan (tap_plan N before its first case): not run"
		return
	fi
	tap_count
	got=$TAP_COUNT
	run_file "$f"
	st=$?
	tap_count
	got=$((TAP_COUNT - got))
	why="the file reported $got"
	[ "$st" = 0 ] || why="$why, then exited with status $st"
	for ((k = got + 1; k <= p; k++)); do
		tap_ok 1 "$name: planned case $k of $p not reported ($why)"
	done
	if ((got > p)); then
		tap_diag "$name reported $got cases, $p planned (its tap_plan): more than the run's plan"
		echo "0 $name: $got cases reported, $p planned" >>"$RB_TMP/tap.failed"
	fi
	# a case file must not exit by itself: if it did, that is a failure
	[ "$st" = 0 ] || ((got < p)) || tap_ok "$st" "$name exited with status $st"
}

times=() files=()
set -f
pats=(${RB_TESTS:-t_*.sh})
set +f
for pat in "${pats[@]}"; do
	for f in "$here"/$pat; do
		[ -f "$f" ] || continue
		[ -z "${RB_PART:-}" ] || matches "$(basename "$f")" "$RB_PART" && files+=("$f")
	done
done
if [ -n "${RB_PART:-}" ] && ((${#files[@]} == 0)); then
	# a person's RB_TESTS may leave a part nothing; CI's (all of them) not
	if [ "${CI:-}" = true ] && [ -z "${RB_TESTS:-}" ]; then
		echo "1..1"
		echo "not ok 1 - no case file in RB_PART ($RB_PART): CI=true runs every part"
		exit 1
	fi
	echo "1..0 # SKIP no case file both in RB_PART ($RB_PART) and in RB_TESTS (${RB_TESTS:-t_*.sh})"
	exit 0
fi
# every file's plan, then the run's, before any case
declare -A plans
total=$own
for f in "${files[@]}"; do
	plan_of "$f"
	plans[$f]=$PLAN
	total=$((total + ${PLAN:-1}))
	[ -n "$PLAN" ] || tap_diag "$(basename "$f"): no plan (tap_plan): it will not run"
done
echo "1..$total"
cached_case
[ -z "$san_bad" ] || tap_ok 1 "RB_SAN_BIN=$RB_SAN_BIN holds a sanitizer build (configure --enable-sanitizers)"

beside=()
if [ -n "${RB_BESIDE:-}" ]; then
	: "${RB_ALONE=t_[2-9]*.sh}"
	for f in "${files[@]}"; do
		matches "$(basename "$f")" "$RB_BESIDE" && beside+=("$f")
	done
	: "${RB_FIRST=t_0*.sh}"
	tap_diag "a second lane: ${beside[*]##*/}; before it: $RB_FIRST; after it: $RB_ALONE"
fi
for f in "${files[@]}"; do
	[ -n "${RB_BESIDE:-}" ] && matches "$(basename "$f")" "$RB_BESIDE" && continue
	# the second lane starts after the files of RB_FIRST (perftest's clock
	# calibration fits its model only on a quiet guest)
	[ -n "${RB_BESIDE:-}" ] && ((${#beside[@]})) && ! matches "$(basename "$f")" "$RB_FIRST" &&
		beside_start "${beside[@]}" && beside=()
	[ -n "${RB_BESIDE:-}" ] && matches "$(basename "$f")" "$RB_ALONE" && beside_flush
	t0=$SECONDS c0=$(cpu_ticks)
	tap_diag "$(basename "$f")"
	run_counted "$f"
	t0=$((SECONDS - t0))
	tap_diag "$(basename "$f"): $t0 s, $(busy_pct "$c0" "$(cpu_ticks)")"
	times+=("$(basename "$f" .sh) $t0")
done
((${#beside[@]})) && beside_start "${beside[@]}"
beside_flush
tap_diag "times: $(printf '%s s, ' "${times[@]}" | sed 's/, $//')"

tap_count
n=$TAP_COUNT
if [ "$n" != "$total" ]; then
	tap_diag "$n cases reported, $total planned"
	echo "0 the count of cases: $n reported, $total planned" >>"$RB_TMP/tap.failed"
fi
if [ -s "$RB_TMP/tap.failed" ]; then
	tap_diag "failed: $(cut -d' ' -f2- "$RB_TMP/tap.failed" | paste -sd, -)"
	exit 1
fi
[ "$n" -gt 0 ]
