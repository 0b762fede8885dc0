# shellcheck shell=bash
# needs: one-guest lane
# The compatibility list: each real perftest command line of
# tests/integration/compat/lines.txt (its head says where each came from,
# the substitution and the checks) runs under rdmabench's name, server and
# client on $RB_DEV, and must either mean what perftest's options asked
# (the client's metadata and rows) or be refused as documented (exit 2 on
# both sides, stderr naming the option).  Every run is cut short (-D 2, a
# few iterations), on the case's own port, so it may run beside the others.
# The fast run takes 20 of the 46 lines (every refused and failed one, and
# twelve runs: lines.txt's "tier:"), the full run all of them.
# Two Python processes in all (each start costs about a second in the
# guest): tests/integration/compat/plan.py writes every case's commands
# (through scripts/dev/vsperftest/line.py), check.py checks every case
# folder once the pairs have run.  Sourced by run-all.sh (see lib.sh).

compat_dir=$top_srcdir/tests/integration/compat
# every entry in the full run; the fast one leaves out those marked "tier:
# full" (plan.py does; counted here from the list, not from its output)
compat_all=$(grep -c '^expect:' "$compat_dir/lines.txt")
tap_plan "$(rb_fast_full "$((compat_all - $(grep -c '^tier: full$' "$compat_dir/lines.txt")))" "$compat_all")"

compat_plan=$RB_TMP/compat.plan
python3 "$compat_dir/plan.py" "$compat_dir/lines.txt" "$RB_BIN" "$RB_DEV" "$RB_GID_INDEX" \
	"${RB_PAIR_PORT:-18515}" "$RB_IP" "$RB_TMP" >"$compat_plan"

# Each pair (40 s at most: a line that would run on is a failure).  A run
# that the tool itself failed as a stall through its whole -D window ("no
# message completed in the ... measuring window": rxe on the 6.1 guest
# carries each posted message inside ibv_post_send, 0.1-0.5 s per 8 MiB
# here, and a loaded CI emulator has stalled a side for a whole window in
# about one run of three) runs once more, as the tool's message advises; the
# first try's stderr goes to the TAP diagnostics, so a rerun is never silent.
compat_pair() {
	RB_PAIR_TIMEOUT=40 rb_pair "compat $compat_n" "$compat_srv" "$compat_cli" && return
	grep -qs 'no message completed in the' "$compat_d/server.err" "$compat_d/client.err" || return
	tail -n 3 "$compat_d/server.err" "$compat_d/client.err" >"$RB_TMP/compat_$compat_n.stall"
	RB_PAIR_TIMEOUT=40 rb_pair "compat $compat_n" "$compat_srv" "$compat_cli"
}
while IFS=$'\t' read -r compat_n compat_name compat_d compat_srv compat_cli compat_expect; do
	[ -z "$compat_srv" ] || compat_pair
done <"$compat_plan"

# then the checks, a TAP line each (tap_ok shows the case's files on failure)
python3 "$compat_dir/check.py" --plan "$compat_plan" >"$RB_TMP/compat.checked"
while IFS=$'\t' read -r compat_n compat_name compat_d compat_srv compat_cli compat_expect &&
	IFS=$'\t' read -r -u 3 compat_st compat_why; do
	RB_CASE_DIR=$compat_d
	[ -z "$compat_why" ] || tap_diag "${compat_why// | /$'\n'}"
	compat_again=
	if [ -e "$RB_TMP/compat_$compat_n.stall" ]; then
		tap_diag "the first try stalled through its window:"$'\n'"$(cat "$RB_TMP/compat_$compat_n.stall")"
		compat_again=" (run twice: the first try stalled)"
	fi
	tap_ok "${compat_st:-1}" "$compat_name: $compat_expect$compat_again"
done <"$compat_plan" 3<"$RB_TMP/compat.checked"
