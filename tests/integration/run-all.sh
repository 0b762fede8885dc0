#!/bin/bash
# Runs the case files of tests/integration (bench/, feature/, robust/,
# prog/: every */*.sh but lib/) against one RDMA device and prints TAP: the
# plan first (the sum of the files' tap_plan, read before any case runs:
# lib.sh), one line per case, each file's wall time as a "# FILE: N s" line
# and all of them in a "# times:" line at the end.  A file that reports
# fewer cases than it planned gets a "not ok" for each one missing; one that
# reports more fails the run.  Exits 0 only when all cases passed and the
# count matches the plan.
#
# RB_BOOT (tests/BOOT.sh sets it: rxe, rxe-quiet, rxe-mpi, rxe-two...): only
# the files that boot runs, by what each declares it needs ("# needs:
# WORD...": tests/integration/needs.sh), so that CI can run the boots side
# by side.  A file that declares no need, or one that no boot offers, is a
# failed case in boot rxe (and when RB_BOOT is unset).  Unset: every file.
#
# RB_TESTS (globs, e.g. 'bench/*' or 'send_lat*' or 'prog/mpi*.sh'): only the
# files whose path under tests/integration, or whose name, matches one.
#
# RB_SAN_BIN, a sanitizer build (configure --enable-sanitizers): the files
# matching RB_SAN_TESTS (default 'bench/*.sh', the benchmark cases) run
# against its programs rather than $top_builddir's, with sanitizer findings
# given exit statuses no case expects (86 ASan/LSan, 87 UBSan).  That is how
# CI runs the benchmark cases under ASan+UBSan without running them twice.
#
# RB_LANES=2: a second lane.  The files that declare "lane" run one after
# the other in the background, beside the others (once those that declare
# "first" are done), in their own RB_TMP and on their own default port
# (RB_BESIDE_PORT, default 18600: rb_cmd adds -p; fixed ports of their own
# are fine too); their TAP lines come out as one block, renumbered, when the
# lane is done; once the others are done, this lane takes the second
# lane's files from the end, those not started yet.  The guest's CPUs are idle much of the time a pair starts,
# connects and ends, which the other lane then uses.  The files that declare
# "quiet" wait for the second lane to end, and those that declare "last"
# run after all the others.  Without RB_LANES=2 (a person's run) the
# "lane" files run in the one lane, in name order.
#
# Normally run inside the test bed: scripts/testbed/rb-testbed -- tests/integration/run-all.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/needs.sh"
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
		tap_diag "${RB_SAN_TESTS:=bench/*.sh} against the sanitizer build in $san_bin"
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
beside_pid="" beside_dir="" claims=$RB_TMP/claims

# beside_start FILE...: the second lane, in the background, in its own
# RB_TMP, on its own default port (RB_LANE_PORT: rb_cmd adds -p).
beside_start() {
	beside_dir=$RB_TMP/beside
	mkdir -p "$beside_dir" "$claims"
	(
		export RB_TMP=$beside_dir RB_LANE_PORT=${RB_BESIDE_PORT:-18600}
		export RB_PAIR_PORT=$RB_LANE_PORT
		i=-1
		for f in "$@"; do
			i=$((i + 1))
			mkdir "$claims/$i" 2>/dev/null || break
			t0=$SECONDS
			rel=${f#"$here"/}
			tap_diag "$rel (beside the others, default port $RB_LANE_PORT)"
			run_counted "$f"
			t0=$((SECONDS - t0))
			tap_diag "$rel: $t0 s"
			echo "${rel%.sh} $t0" >>"$beside_dir/times"
		done
	) >"$beside_dir/out" 2>&1 </dev/null &
	beside_pid=$!
}

# beside_steal FILE...: the second lane's files (beside_start's list), from
# the end, each one the second lane has not started yet (a claim: mkdir of
# its index, which one lane wins), run in this lane once its own files are
# done: on this lane's port, beside the second lane's file (each "lane"
# file keeps to its own port and leaves the device alone).  The second lane
# stops at the first file claimed here.
beside_steal() {
	local i
	for ((i = $# - 1; i >= 0; i--)); do
		mkdir "$claims/$i" 2>/dev/null || return 0
		tap_diag "${beside[$i]#"$here"/}: taken from the second lane"
		run_one "${beside[$i]}"
	done
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
		if [ -n "$san_bin" ] && matches "${1#"$here"/}" "$RB_SAN_TESTS"; then
			RB_BIN=$san_bin
			export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}
			export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
			tap_diag "${1#"$here"/}: the programs of $RB_BIN"
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
	local f=$1 name=${1#"$here"/} p=${plans[$1]} st got k why
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

# The case files: those RB_BOOT runs (all when it is unset) that match
# RB_TESTS, in name order; those that belong to no boot (needs_check) are
# reported by boot rxe, one failed case each.
times=() files=() bad=() bad_why=()
declare -A file_needs
set -f
pats=(${RB_TESTS:-*})
set +f
needs_files "$here"
for rel in "${FILES[@]}"; do
	matches "$rel" "${pats[*]}" || matches "${rel##*/}" "${pats[*]}" || continue
	if ! needs_check "$here/$rel"; then
		[ -z "${RB_BOOT:-}" ] || [ "$RB_BOOT" = rxe ] || continue
		bad+=("$rel") bad_why+=("$WHY")
		continue
	fi
	[ -z "${RB_BOOT:-}" ] || [ "$BOOT" = "$RB_BOOT" ] || continue
	files+=("$here/$rel")
	file_needs[$here/$rel]=$NEEDS
done
if ((${#files[@]} + ${#bad[@]} == 0)); then
	# a person's RB_TESTS may leave a boot nothing; CI's (all of them) not
	if [ "${CI:-}" = true ] && [ -z "${RB_TESTS:-}" ]; then
		echo "1..1"
		echo "not ok 1 - no case file for boot ${RB_BOOT:-(any)}: CI=true runs every boot"
		exit 1
	fi
	echo "1..0 # SKIP no case file both for boot ${RB_BOOT:-(any)} and in RB_TESTS (${RB_TESTS:-*})"
	exit 0
fi
# every file's plan, then the run's, before any case
declare -A plans
total=$((own + ${#bad[@]}))
for f in "${files[@]}"; do
	plan_of "$f"
	plans[$f]=$PLAN
	total=$((total + ${PLAN:-1}))
	[ -n "$PLAN" ] || tap_diag "${f#"$here"/}: no plan (tap_plan): it will not run"
done
echo "1..$total"
cached_case
[ -z "$san_bad" ] || tap_ok 1 "RB_SAN_BIN=$RB_SAN_BIN holds a sanitizer build (configure --enable-sanitizers)"
for k in "${!bad[@]}"; do
	tap_ok 1 "${bad[$k]} runs in no boot: ${bad_why[$k]}"
done

# run_one FILE: FILE in this lane, timed.
run_one() {
	local f=$1 rel=${1#"$here"/} t0 c0
	t0=$SECONDS c0=$(cpu_ticks)
	tap_diag "$rel"
	run_counted "$f"
	t0=$((SECONDS - t0))
	tap_diag "$rel: $t0 s, $(busy_pct "$c0" "$(cpu_ticks)")"
	times+=("${rel%.sh} $t0")
}

# The order, by what each file declares: "first", then the rest with the
# "lane" files in a second lane beside them (RB_LANES=2), then "quiet" once
# that lane is done, then "last".
first=() main=() beside=() quiet=() last=()
for f in "${files[@]}"; do
	w=${file_needs[$f]}
	if needs_has "$w" first; then first+=("$f")
	elif needs_has "$w" last; then last+=("$f")
	elif needs_has "$w" quiet; then quiet+=("$f")
	elif needs_has "$w" lane && [ "${RB_LANES:-1}" = 2 ]; then beside+=("$f")
	else main+=("$f")
	fi
done
((${#beside[@]})) && tap_diag "a second lane: ${beside[*]#"$here"/}"
for f in "${first[@]}"; do run_one "$f"; done
((${#beside[@]})) && beside_start "${beside[@]}"
for f in "${main[@]}"; do run_one "$f"; done
((${#beside[@]})) && beside_steal "${beside[@]}"
beside_flush
for f in "${quiet[@]}" "${last[@]}"; do run_one "$f"; done
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
