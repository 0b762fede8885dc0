#!/bin/bash
# Each integration case file says what it needs ("# needs: WORD...",
# tests/integration/needs.sh), and that alone chooses the boot that runs it:
#   - every case file of tests/integration (bench/ feature/ robust/ prog/)
#     declares known words and belongs to exactly one boot (a case each);
#   - every boot of needs_boots is a test of Makefile.am's
#     INTEGRATION_TESTS (or NIGHTLY_TESTS), hands run-all.sh its name (RB_BOOT) and no file
#     list of its own, and runs at least one file;
#   - run-all.sh, on planted files in a copy (no device needed: none of
#     them reaches one): a file with no need, an unknown word, two guests,
#     or words no boot offers, is a failed case in boot rxe (not skipped),
#     and in no other boot; a valid file runs in its boot only; the order
#     is "first", the rest beside the "lane" files (RB_LANES=2; the first
#     lane, its own done, takes the second's unstarted files), "quiet",
#     "last"; RB_TESTS picks files by path or by name.
# Runs on the host (make check), no test bed.
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${top_builddir:-$top}
export top_srcdir=$top top_builddir=$build
tn=0
ok() { # STATUS NAME
	tn=$((tn + 1))
	if [ "$1" = 0 ]; then echo "ok $tn - $2"; else echo "not ok $tn - $2"; fi
}
. "$top/tests/integration/needs.sh"
needs_files "$top/tests/integration"
boots=()
for b in "${needs_boots[@]}"; do boots+=("${b%%:*}"); done
echo "1..$((${#FILES[@]} + ${#boots[@]} + 10))"

# ---- every case file: its needs, its boot ----
declare -A per_boot
for f in "${FILES[@]}"; do
	if needs_check "$top/tests/integration/$f"; then
		per_boot[$BOOT]=$((${per_boot[$BOOT]:-0} + 1))
		ok 0 "$f needs '$NEEDS': boot $BOOT"
	else
		ok 1 "$f: $WHY"
	fi
done

# ---- every boot: a test of the Makefile, given its name, with files ----
mk=$(sed -n -e '/^INTEGRATION_TESTS *=/,/[^\\]$/p' -e '/^NIGHTLY_TESTS *=/,/[^\\]$/p' "$top/Makefile.am")
for b in "${boots[@]}"; do
	t=$top/tests/$b.sh st=0 why=""
	[ -f "$t" ] || { st=1; why="$why; no tests/$b.sh"; }
	[[ $mk == *"tests/$b.sh"* ]] || { st=1; why="$why; not in Makefile.am's INTEGRATION_TESTS or NIGHTLY_TESTS"; }
	grep -Eq "(RB_BOOT|RXE_BOOT)=\\\$?\{?(RXE_BOOT:-)?$b\b" "$t" 2>/dev/null ||
		{ st=1; why="$why; does not set RB_BOOT=$b"; }
	! grep -q 'RB_TESTS=' "$t" 2>/dev/null || { st=1; why="$why; names files itself (RB_TESTS=)"; }
	((${per_boot[$b]:-0} > 0)) || { st=1; why="$why; no case file needs it"; }
	ok "$st" "boot $b: tests/$b.sh in INTEGRATION_TESTS or NIGHTLY_TESTS, RB_BOOT=$b, ${per_boot[$b]:-0} case files chosen by their needs$why"
done

# ---- run-all.sh on planted files ----
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-needs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/integration"
cp "$top"/tests/integration/*.sh "$top"/tests/integration/*.py "$tmp/integration/"
mkdir -p "$tmp/integration/bench" "$tmp/integration/feature" "$tmp/integration/prog"
# plant NAME "HEADER" CASE-NAME: a case file with one passing case
plant() {
	printf '%s\n# a planted case file (tests/needs.sh)\ntap_plan 1\ntap_ok 0 "%s ran"\n' "$2" "$3" \
		>"$tmp/integration/$1"
}
plant bench/zz_none.sh "# no needs line here" none
plant bench/zz_unknown.sh "# needs: one-guest gpu" unknown
plant bench/zz_twoguests.sh "# needs: one-guest two-nodes" twoguests
plant bench/zz_noboot.sh "# needs: two-nodes mpi" noboot
plant prog/zz_first.sh "# needs: one-guest quiet first" first
plant feature/zz_lane.sh "# needs: one-guest lane" lane
plant bench/zz_main.sh "# needs: one-guest" main
plant feature/zz_quiet.sh "# needs: one-guest quiet" quiet
plant prog/zz_last.sh "# needs: two-guests last" last
# run BOOT [VAR=VALUE...]: run-all.sh in the copy, its TAP in $tmp/out
run() {
	local b=$1
	shift
	env RB_BOOT="$b" RB_TESTS='zz_*' RB_DEV=none RB_SAN_BIN= "$@" \
		timeout 120 bash "$tmp/integration/run-all.sh" >"$tmp/out" 2>&1
}
# order: the "ran" lines' names, in the order they came out
order() { sed -nE 's/^ok [0-9]+ - ([a-z]+) ran$/\1/p' "$tmp/out" | paste -sd' ' -; }

run rxe RB_LANES=2
st=0
for w in "none:no '# needs: WORD...' line" "unknown:unknown need 'gpu'" \
	"twoguests:2 guest words" "noboot:no boot offers all of 'two-nodes mpi'"; do
	grep -q "^not ok [0-9]* - bench/zz_${w%%:*}.sh runs in no boot: ${w#*:}" "$tmp/out" || st=1
done
grep -q '^1\.\.6$' "$tmp/out" || st=1
ok "$st" "run-all.sh (boot rxe): a file with no need, an unknown word, two guests, or words no boot offers: a failed case each, named, in the plan"
[ "$st" = 0 ] || sed 's/^/# /' "$tmp/out"

[ "$(order)" = "main lane" ]
ok $? "run-all.sh (boot rxe): runs only its own files: one-guest, one-guest lane ($(order))"

run rxe-quiet
st=0
[ "$(order)" = "first quiet" ] && ! grep -q '^not ok' "$tmp/out" && grep -q '^1\.\.2$' "$tmp/out" || st=1
ok "$st" "run-all.sh (boot rxe-quiet): first, then quiet; the files of no boot are boot rxe's to report ($(order))"

run rxe-two
[ "$(order)" = "last" ] && grep -q '^1\.\.1$' "$tmp/out"
ok $? "run-all.sh (boot rxe-two): the two-guests file alone ($(order))"

run rxe-numa
grep -q '^1\.\.0 # SKIP no case file' "$tmp/out"
ok $? "run-all.sh (boot rxe-numa, RB_TESTS matching none of its files): a skip, not a pass"

run rxe-numa CI=true RB_TESTS=
grep -q '^not ok 1 - no case file for boot rxe-numa' "$tmp/out"
ok $? "run-all.sh (boot rxe-numa, CI=true, no file of its own): a failure"

# the whole copy, no boot: every file, in the order of the words
(
	cd "$tmp/integration" && rm bench/zz_none.sh bench/zz_unknown.sh bench/zz_twoguests.sh bench/zz_noboot.sh
)
run "" RB_LANES=2
[ "$(order)" = "first main lane quiet last" ] && ! grep -q '^not ok' "$tmp/out"
ok $? "run-all.sh (no RB_BOOT, RB_LANES=2): first, the rest with the lane beside it, quiet, last ($(order))"

# the first lane's files done, it takes the second lane's not started yet,
# from the end: each file runs once (zz_lane_a holds the second lane)
printf '# needs: one-guest lane\ntap_plan 1\nsleep 3\ntap_ok 0 "la ran"\n' >"$tmp/integration/feature/zz_lane_a.sh"
plant feature/zz_lane_b.sh "# needs: one-guest lane" lb
plant feature/zz_lane_c.sh "# needs: one-guest lane" lc
run rxe RB_LANES=2 RB_TESTS='zz_main.sh zz_lane_*'
[ "$(order)" = "main lc lb la" ] && ! grep -q '^not ok' "$tmp/out" && grep -q '^1\.\.4$' "$tmp/out" &&
	grep -q 'feature/zz_lane_c.sh: taken from the second lane' "$tmp/out"
ok $? "run-all.sh (RB_LANES=2): its own files done, the first lane takes the second's unstarted files from the end, each once ($(order))"
rm "$tmp"/integration/feature/zz_lane_[abc].sh

run "" RB_TESTS='zz_lane.sh'
[ "$(order)" = "lane" ]
a=$?
run "" RB_TESTS='prog/*'
[ "$(order)" = "first last" ] && [ "$a" = 0 ]
ok $? "RB_TESTS picks by name (zz_lane.sh) and by path (prog/*: $(order))"

# no boot chooses by number or folder: no tests/rxe*.sh names a glob of files
st=0
for t in "$top"/tests/rxe*.sh; do
	grep -Eq "RB_TESTS=|RB_PART|t_\[|/t_\*" "$t" && { st=1; echo "# $t names its files"; }
done
ok "$st" "the boots (tests/rxe*.sh) name no files: each passes RB_BOOT only"
