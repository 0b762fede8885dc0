# needs: two-guests two-nics
# The test bed's rail 1 (rb-testbed --two-guests --nics 2, tests/rxe-two.sh),
# what rb_mesh will be proven on, and prometheus in the guest.  In guest B:
#   - rxe1 is on eth1 (MAC 52:54:00:00:03:02) with RB_IP1, and its GID at
#     RB_GID_INDEX1 is RB_IP1's IPv4-mapped RoCE v2 GID (worked out here);
#   - rb_send_bw -d rxe1 against guest A's rail-1 server
#     (tests/integration/lib/two-nics-server.sh, port 18720) at RB_PEER1:
#     the figures whole, rxe1's and eth1's packet counters grown by at
#     least the 200 x 64 KiB messages' packets, rxe0's not;
#   - netem on eth1 (sch_netem, loaded by the guest's init): 30 % loss
#     shown by tc and dropping UDP datagrams sent to the peer, then removed;
#   - tests/integration/lib/prometheus.sh: prometheus scrapes a static
#     exporter (python3 -m http.server serving a file "metrics") and
#     prom_query returns its metric, with the value written there.
# Writes $RB_NICS_SHARED/done once the RDMA case is over: guest A's server
# then ends.  Skips (not a pass) outside that test bed.
. "$top_srcdir/tests/integration/lib/prometheus.sh"

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 5

# nics_gid IP: IP's IPv4-mapped GID as sysfs writes it.
nics_gid() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
}

# nics_counter DEV NAME: port 1's hw counter NAME (sysfs).
nics_counter() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2" 2>/dev/null || echo 0; }

# nics_done: tell guest A's rail-1 server to end.
nics_done() { [ -z "${RB_NICS_SHARED:-}" ] || touch "$RB_NICS_SHARED/done"; }

nics_names="rxe1 on eth1|rdma across rail 1|netem applied|netem removed|prometheus"
if [ -z "${RB_DEV1:-}" ] || [ -z "${RB_PEER1:-}" ]; then
	IFS='|' read -ra n <<<"$nics_names"
	for c in "${n[@]}"; do
		tap_skip "test bed rail 1: $c" "not in tests/rxe-two.sh's test bed (rb-testbed --two-guests --nics 2: RB_DEV1, RB_PEER1 unset)"
	done
	nics_done
	return 0
fi

# ---- rxe1 on eth1, its GID ----
p=/sys/class/infiniband/$RB_DEV1/ports/1
gid=$(cat "$p/gids/$RB_GID_INDEX1" 2>/dev/null)
type=$(cat "$p/gid_attrs/types/$RB_GID_INDEX1" 2>/dev/null)
ndev=$(cat "$p/gid_attrs/ndevs/$RB_GID_INDEX1" 2>/dev/null)
mac=$(cat /sys/class/net/eth1/address 2>/dev/null)
tap_diag "$RB_DEV1: GID $RB_GID_INDEX1 $gid ($type) on $ndev; eth1 $mac, $(ip -4 -o addr show dev eth1 2>/dev/null | awk '{ print $4 }'); rail 0: $RB_DEV on $RB_NETDEV $RB_IP"
[ "$RB_DEV1" = rxe1 ] && [ "$RB_NETDEV1" = eth1 ] && [ "$gid" = "$(nics_gid "$RB_IP1")" ] &&
	[ "$type" = "RoCE v2" ] && [ "$ndev" = eth1 ] && [ "$mac" = 52:54:00:00:03:02 ] &&
	[[ $RB_IP1 == 198.51.100.* && $RB_PEER1 == 198.51.100.* && $RB_IP1 != "$RB_PEER1" ]] &&
	ip -4 -o addr show dev eth1 | grep -q " $RB_IP1/24 " &&
	grep -q ACTIVE "$p/state"
tap_ok $? "test bed rail 1: rxe1 on eth1 (ACTIVE), GID $RB_GID_INDEX1 the RoCE v2 GID of $RB_IP1, peer $RB_PEER1"

# ---- RDMA across rail 1 ----
rb_case "nics rail 1"
s0=$(nics_counter rxe0 sent_pkts) s1=$(nics_counter "$RB_DEV1" sent_pkts) r1=$(nics_counter "$RB_DEV1" rcvd_pkts)
e1=$(cat /sys/class/net/eth1/statistics/tx_packets)
timeout -k 5 300 "$RB_BIN/rb_send_bw" -d "$RB_DEV1" -x "$RB_GID_INDEX1" -p 18720 --timeout 60 \
	-s 65536 -n 200 --csv="$RB_CASE_DIR/client.csv" "$RB_PEER1" \
	>"$RB_CASE_DIR/client.out" 2>"$RB_CASE_DIR/client.err" </dev/null
st=$?
echo "$st" >"$RB_CASE_DIR/client.rc"
nics_done
ds0=$(($(nics_counter rxe0 sent_pkts) - s0)) ds1=$(($(nics_counter "$RB_DEV1" sent_pkts) - s1))
dr1=$(($(nics_counter "$RB_DEV1" rcvd_pkts) - r1)) de1=$(($(cat /sys/class/net/eth1/statistics/tx_packets) - e1))
# 200 messages of 64 KiB at rxe's active MTU (1024 B): 64 packets each
amtu=$(ibv_devinfo -d "$RB_DEV1" | awk '/active_mtu/ { print $2; exit }')
want=$((200 * 65536 / ${amtu:-1024}))
tap_diag "rb_send_bw -d $RB_DEV1 $RB_PEER1: exit $st; packets sent: rxe1 $ds1 (at least $want), eth1 $de1, rxe0 $ds0; received: rxe1 $dr1"
[ "$st" = 0 ] && rb_check "$RB_CASE_DIR/client.csv" 'bw(r, 65536, 200)' &&
	((ds1 >= want && de1 >= want && ds0 < 100 && dr1 > 0))
tap_ok $? "test bed rail 1: rb_send_bw -d rxe1 to guest A's rxe1 ($RB_PEER1): 200 x 64 KiB, all of it through rxe1 and eth1, none through rxe0"

# ---- netem on eth1 ----
if tc qdisc add dev eth1 root netem loss 30% 2>"$RB_TMP/netem.err"; then
	shown=$(tc qdisc show dev eth1)
	# 60 datagrams to the discard port: at 30 % loss P(none dropped) = 0.7^60 < 1e-9
	for ((i = 0; i < 60; i++)); do echo "rb $i" >"/dev/udp/$RB_PEER1/9"; done 2>/dev/null
	stats=$(tc -s qdisc show dev eth1)
	dropped=$(sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' <<<"$stats" | head -n 1)
	tap_diag "tc: $shown; dropped ${dropped:-?} of 60 datagrams"
	[[ $shown == *"netem"*"loss 30%"* ]] && ((${dropped:-0} > 0 && ${dropped:-0} < 60))
	tap_ok $? "test bed rail 1: netem loss 30% on eth1 applied: tc shows it, and it dropped ${dropped:-?} of 60 datagrams"
	tc qdisc del dev eth1 root
	shown=$(tc qdisc show dev eth1)
	[[ $shown != *netem* ]]
	tap_ok $? "test bed rail 1: netem removed from eth1 (tc: $shown)"
else
	tap_ok 1 "test bed rail 1: netem loss 30% on eth1 applied: tc qdisc add failed: $(cat "$RB_TMP/netem.err")"
	tap_ok 1 "test bed rail 1: netem removed from eth1 (never added)"
fi

# ---- prometheus against a static exporter ----
rb_case "nics prometheus"
mkdir -p "$RB_CASE_DIR/exporter"
value=$((1000 + RANDOM))
printf '# TYPE rb_testbed_smoke gauge\nrb_testbed_smoke{rail="1"} %s\n' "$value" >"$RB_CASE_DIR/exporter/metrics"
(cd "$RB_CASE_DIR/exporter" && exec "$RB_PY" -m http.server 19101 --bind 127.0.0.1) \
	>"$RB_CASE_DIR/exporter.log" 2>&1 </dev/null &
exporter=$!
got="" up="" t0=$SECONDS
if prom_start "$RB_CASE_DIR/prom" 127.0.0.1:19101; then
	tap_diag "prometheus ready in $((SECONDS - t0)) s"
	got=$(prom_wait rb_testbed_smoke 60)
	up=$(prom_query 'up{job="rb"}')
	tap_diag "prom_query rb_testbed_smoke: ${got:-nothing}; up: $up"
	prom_stop
fi
kill "$exporter" 2>/dev/null
wait "$exporter" 2>/dev/null
[ "$got" = "rb_testbed_smoke{instance=\"127.0.0.1:19101\",job=\"rb\",rail=\"1\"} $value" ] &&
	[ "$up" = "up{instance=\"127.0.0.1:19101\",job=\"rb\"} 1" ]
tap_ok $? "test bed: prometheus in the guest (prom_start, prom_query) scrapes a static exporter and returns its metric, value $value"
