#!/bin/bash
# Guest A of tests/rxe-two.sh for prog/mesh_two.sh: the agents a1 and a2
# (rb_mesh watch, tests/integration/lib/two-mesh-pinglist.sh), /metrics on
# 0.0.0.0:19611 and :19612 for guest B's Prometheus, JSON lines in the
# shared folder, until guest B writes DIR/done (or 600 s); meanwhile it
# answers guest B's questions for its clock (DIR/clock.ask: N) with
# DIR/clock.a (N and this guest's time: mesh/two.py's clock_skew).
# two-mesh-server.sh DIR BIN
dir=$1 bin=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/two-mesh-pinglist.sh"
mesh_two_pinglist "$RB_IP" "$RB_IP1" "$RB_PEER" "$RB_PEER1" >"$dir/pinglist.a" || exit 1
pids=()
for h in a1:19611 a2:19612; do
	"$bin/rb_mesh" watch --pinglist "$dir/pinglist.a" --host "${h%:*}" --listen "0.0.0.0:${h#*:}" \
		--jsonl "$dir/${h%:*}.jsonl" "${MESH_TWO_ARGS[@]}" 2>"$dir/${h%:*}.err" &
	pids+=($!)
done
. "$here/nap.sh"
for ((i = 0; i < 12000; i++)); do
	[ -e "$dir/done" ] && break
	if [ -e "$dir/clock.ask" ] && read -r n <"$dir/clock.ask"; then
		rm -f "$dir/clock.ask"    # first: the next question comes after this answer
		echo "$n $EPOCHREALTIME" >"$dir/clock.tmp" && mv -f "$dir/clock.tmp" "$dir/clock.a"
	fi
	nap 0.05
done
kill -TERM "${pids[@]}" 2>/dev/null
st=0
for p in "${pids[@]}"; do wait "$p" || st=1; done
exit "$st"
