#!/bin/bash
# The bandwidth loop's option matrix on a real device (branch lpost's
# bw_mode: every kind of post it picks), run in a test-bed guest:
#
#   flock /tmp/rb-testbed.lock scripts/testbed/rb-testbed -- \
#       bash results/icount/2026-12-03-lpost/matrix/matrix.sh BIN_DIR OUT_FILE BENCH...
#
# BENCH: write send read atomic atomic_cas.  For each: -l 1, 2, 7, 32 x
# -Q 1, 16, 100 and -Q = -l (the ring of whole lists) at -t 128; -l 1, 2 x
# -Q 1, -l, 5 at -t 5; -l 1 -Q 1 at -t 1; each with -q 1 and -q 4, each
# without and with --validate; -n 103 per QP (not a multiple of any list:
# the run's last, shorter list), -s 64.  A run passes when both sides exit
# 0, the client's row counts 103 x q operations of 64 B (atomics 8) with
# the cq_mod given and at most min(-Q, -t) WRs per completion, and the
# server's row is the client's (rb_send_bw's server: it received as many).
# One line per run on OUT_FILE: ok|FAIL, the bench, the mode lpost's
# bw_mode picks (bw.c bw_mode_of, by the options: RING, LISTS, LISTS_V,
# ONES_RING, ONES, ONES_V), the options, seconds, and why it failed.
# Exit status: 0 when every run passed.
set -u
bin=$1 out=$2
shift 2
port=19500 n=103 size=64 fail=0 runs=0
dir=$(mktemp -d)
: >"$out"

listening() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

col() {
	awk -F, -v col="$2" '/^[ \t]*#/ || /^[ \t]*$/ { next }
		!hdr { hdr = 1; for (i = 1; i <= NF; i++) if ($i == col) k = i; next }
		{ print (k ? $k : "") }' "$1"
}

# the kind of post bw_mode_of picks for these options (atomic_cas: no ring)
mode_of() {
	local bench=$1 l=$2 q=$3 v=$4
	if [ "$v" = 1 ]; then
		[ "$l" -gt 1 ] && echo LISTS_V || echo ONES_V
	elif [ "$l" -gt 1 ]; then
		[ "$bench" != atomic_cas ] && [ "$q" = "$l" ] && echo RING || echo LISTS
	else
		[ "$bench" != atomic_cas ] && echo ONES_RING || echo ONES
	fi
}

# BENCH L Q T QPS V
one() {
	local bench=$1 l=$2 q=$3 t=$4 qps=$5 v=$6 prog args sz why="" t0 spid src crc it want
	prog=$bin/rb_${bench%_cas}_bw
	args="-d $RB_DEV -x $RB_GID_INDEX -n $n -l $l -Q $q -t $t -q $qps --timeout 10"
	sz=$size
	case $bench in
	atomic) sz=8 ;;
	atomic_cas) sz=8 args="$args -A CMP_AND_SWAP" ;;
	*) args="$args -s $size" ;;
	esac
	[ "$v" = 1 ] && args="$args --validate"
	port=$((port + 1))
	rm -f "$dir"/*
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	timeout -k 5 60 "$prog" $args -p "$port" --csv="$dir/s.csv" >"$dir/s.out" 2>"$dir/s.err" </dev/null &
	spid=$!
	for _ in $(seq 100); do listening "$port" && break; sleep 0.1; done
	# shellcheck disable=SC2086
	timeout -k 5 60 "$prog" $args -p "$port" --csv="$dir/c.csv" "$RB_IP" >"$dir/c.out" 2>"$dir/c.err" </dev/null
	crc=$?
	wait "$spid"
	src=$?
	want=$((n * qps))
	if [ "$src" != 0 ] || [ "$crc" != 0 ]; then
		why="exit: server $src, client $crc: $(tail -n 2 "$dir/s.err" "$dir/c.err" | tr '\n' ' ')"
	else
		it=$(col "$dir/c.csv" iterations)
		why=$(awk -v it="$it" -v want="$want" -v by="$(col "$dir/c.csv" bytes)" -v sz="$sz" \
			-v cq="$(col "$dir/c.csv" cq_mod)" -v q="$q" -v w="$(col "$dir/c.csv" wrs_per_cqe)" -v t="$t" '
			BEGIN { lim = q < t ? q : t
				if (it != want) print "iterations " it " (want " want ")"
				else if (by != it * sz) print "bytes " by " (want " it * sz ")"
				else if (cq != q) print "cq_mod " cq " (want " q ")"
				else if (w == "" || w < 1 || w > lim) print "wrs_per_cqe " w " (want 1.." lim ")" }')
		if [ -z "$why" ] && [ "$bench" = send ]; then
			[ "$(col "$dir/s.csv" iterations)" = "$want" ] ||
				why="the server received $(col "$dir/s.csv" iterations) (want $want)"
		elif [ -z "$why" ]; then
			# (files: the guest has no /dev/fd for <(...))
			grep -v '^#' "$dir/c.csv" >"$dir/c.rows"
			grep -v '^#' "$dir/s.csv" >"$dir/s.rows"
			cmp -s "$dir/c.rows" "$dir/s.rows" || why="the server's row differs from the client's"
		fi
	fi
	runs=$((runs + 1))
	[ -z "$why" ] || fail=$((fail + 1))
	printf '%s %-10s %-9s -l %-2s -Q %-3s -t %-3s -q %s validate %s %5s s %s\n' \
		"$([ -z "$why" ] && echo ok || echo FAIL)" "$bench" "$(mode_of "$bench" "$l" "$q" "$v")" \
		"$l" "$q" "$t" "$qps" "$v" "$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')" "$why" >>"$out"
}

for bench in "$@"; do
	for qps in 1 4; do
		for v in 0 1; do
			for l in 1 2 7 32; do
				qs="1 16 100"
				[ "$l" -gt 1 ] && qs="$qs $l"
				for q in $qs; do one "$bench" "$l" "$q" 128 "$qps" "$v"; done
			done
			for l in 1 2; do
				qs="1 5"
				[ "$l" -gt 1 ] && qs="1 $l 5"
				for q in $qs; do one "$bench" "$l" "$q" 5 "$qps" "$v"; done
			done
			one "$bench" 1 1 1 "$qps" "$v"
		done
	done
done
rm -rf "$dir"
echo "# $runs runs, $fail failed" >>"$out"
[ "$fail" = 0 ]
