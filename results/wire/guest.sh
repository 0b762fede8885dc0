#!/bin/bash
# Inside the two-guest test bed (results/wire/make.sh): "server" in guest A
# starts one benchmark server per case, each on its own port; "client" in
# guest B runs each client under rb-wire capture on eth0, then one
# rb_write_bw with 5 % of the UDP 4791 packets guest B sends dropped
# (tc netem behind a u32 filter).  OUT: where the files go (shared tree).
# The cases: "NAME PROGRAM ARGS", the same on both sides.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${RB_BIN:?}" "${OUT:?}"
cases() {
	local b s lat="-n 50 --warmup 10" bw="-n 50"
	for b in send write read; do
		for s in 2 1024 8192; do
			echo "${b}_lat-$s rb_${b}_lat -s $s $lat"
			echo "${b}_bw-$s rb_${b}_bw -s $s $bw"
		done
	done
	echo "atomic_lat-8 rb_atomic_lat $lat"
	echo "atomic_bw-8 rb_atomic_bw $bw"
	echo "write_bw-8192-loss5 rb_write_bw -s 8192 $bw"
}

server() {
	local i=0 name prog args
	while read -r name prog args; do
		"$RB_BIN/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" -p $((18600 + i)) $args \
			>/dev/null 2>"$OUT/$name.server.err" &
		i=$((i + 1))
	done <"$OUT/cases.txt"
	wait
	# the test bed stops a guest 30 s after the other ended: wait for B
	for _ in $(seq 2000); do [ -e "$OUT/done" ] && break; sleep 0.2; done
}

# netem on 1 in 20 of the UDP 4791 packets this guest sends; the modules
# come from the test bed's kernel cache (the guest boots that kernel)
loss_on() {
	local k
	k=$(ls -d "${RB_TESTBED_CACHE:-/var/cache/rdmabench-testbed}"/kernels/*/lib/modules/"$(uname -r)" | head -n1)
	for m in sch_prio sch_netem cls_u32; do modprobe -d "${k%/lib/modules/*}" "$m" || return 1; done
	tc qdisc add dev eth0 root handle 1: prio &&
		tc qdisc add dev eth0 parent 1:3 handle 30: netem loss "$1" &&
		tc filter add dev eth0 parent 1:0 protocol ip u32 match ip protocol 17 0xff \
			match ip dport 4791 0xffff flowid 1:3
}

client() {
	local i=0 name prog args t0
	while read -r name prog args; do
		case $name in *-loss*) loss_on 5% || echo "loss: tc netem failed" >&2 ;; esac
		t0=$(date +%s.%N)
		python3 "$here/../../scripts/tools/rb-wire.in" capture -i eth0 -o "$OUT/$name.pcap" \
			--result "$OUT/$name.csv" -- \
			"$RB_BIN/$prog" -d "$RB_DEV" -x "$RB_GID_INDEX" -p $((18600 + i)) $args \
			--csv="$OUT/$name.csv" "$RB_PEER" >"$OUT/$name.wire.txt" 2>"$OUT/$name.client.err" </dev/null
		echo "$name: exit $? in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2
		i=$((i + 1))
	done <"$OUT/cases.txt"
	tc -s qdisc show dev eth0 >"$OUT/loss-qdisc.txt" 2>&1
	touch "$OUT/done"
}

cases >"$OUT/cases.txt.$1" && mv "$OUT/cases.txt.$1" "$OUT/cases.txt"
"$1"
