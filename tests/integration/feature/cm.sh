# needs: one-guest lane
# -R (rdma_cm) honours -m, -u, -S and --tclass on both sides, as the manual
# connection does, and --source-ip binds the client.  Each side's QP
# attributes are read back with ibv_query_qp (--verbose: "QP 0x.. attributes:
# ...") and recorded in the metadata; rxe does not report the SL back, so
# the SL is checked as given at RTR ("SL n (given 3)", service_level).
# Sourced by run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 7

# Every "QP 0x.. attributes" line of FILE matches the ERE; there are N of them.
qp_lines() { # FILE N ERE
	local got
	got=$(grep -c 'QP 0x[0-9a-f]* attributes:' "$1")
	[ "$got" = "$2" ] || { tap_diag "$1: $got QP attribute lines, expected $2"; return 1; }
	grep 'QP 0x[0-9a-f]* attributes:' "$1" | grep -Evq -- "$3" || return 0
	tap_diag "$1: $(grep 'QP 0x[0-9a-f]* attributes:' "$1" | grep -Ev -- "$3" | head -n 1)"
	return 1
}

opts="-m 512 -u 16 -S 3 --tclass 96"
want='path MTU 512, timeout 16, SL [0-9]+ \(given 3\), traffic class 96,'
meta_ok=('meta["mtu_bytes"] == 512' 'meta["qp_timeout"] == 16' 'meta["service_level"] == 3'
	'meta["traffic_class"] == 96' 'bw(r, 4096, 200)')

# The options on both sides, with and without -R: the same attributes.
rb_csv "cm options" rb_write_bw "-s 4096 -n 200 --verbose -R $opts" &&
	qp_lines "$(rb_file server.err)" 1 "$want" && qp_lines "$(rb_file client.err)" 1 "$want" &&
	rb_check "$(rb_file client.csv)" "${meta_ok[@]}" 'meta["connect"] == "rdma_cm"' \
		'meta["source_address"] == E["RB_IP"]' \
	-- "$(rb_file server.csv)" "${meta_ok[@]}" 'meta["connect"] == "rdma_cm"'
tap_ok $? "-R $opts: both QPs read back path MTU 512, timeout 16, SL given 3, traffic class 96"

rb_csv "manual options" rb_write_bw "-s 4096 -n 200 --verbose $opts" &&
	qp_lines "$(rb_file server.err)" 1 "$want" && qp_lines "$(rb_file client.err)" 1 "$want" &&
	rb_check "$(rb_file client.csv)" "${meta_ok[@]}" '"source_address" not in meta' \
	-- "$(rb_file server.csv)" "${meta_ok[@]}"
tap_ok $? "without -R, $opts: the same attributes on both QPs"

# Client-only options: --tclass reaches the server in the connect request
# (rdma_cm's ToS); -u and -S are each side's own (the server keeps 14 and
# 0); -m above the path MTU is lowered to it with a warning; --source-ip
# (perftest's --bind_source_ip spelling) binds the client.
rb_csv "cm client only" rb_read_bw "-s 4096 -n 200 --verbose -R" \
	"--tclass 32 -u 18 -S 5 -m 4096 --bind_source_ip=$RB_IP" &&
	qp_lines "$(rb_file client.err)" 1 'timeout 18, SL [0-9]+ \(given 5\), traffic class 32,' &&
	qp_lines "$(rb_file server.err)" 1 'timeout 14, SL [0-9]+ \(given 0\), traffic class 32,' &&
	grep -q "\-m/--mtu 4096 is larger than rdma_cm's path MTU" "$(rb_file client.err)" &&
	rb_check "$(rb_file client.csv)" 'meta["source_address"] == E["RB_IP"]' \
		'meta["traffic_class"] == 32' 'meta["qp_timeout"] == 18' 'meta["service_level"] == 5' \
	-- "$(rb_file server.csv)" 'meta["traffic_class"] == 32' 'meta["qp_timeout"] == 14' \
		'meta["service_level"] == 0' 'meta["source_address"] == E["RB_IP"]' \
		"meta['mtu_bytes'] == $(rb_meta_lines "$(rb_file client.csv)" | sed -n 's/^# mtu_bytes=//p')"
tap_ok $? "-R, client-only --tclass 32 reaches the server; -u/-S stay per side; -m 4096 lowered with a warning; --bind_source_ip"

# UC with two QPs: every QP of both sides gets -m.
rb_bench "cm uc" rb_write_bw "-s 4096 -n 200 --verbose -R -c UC -q 2 -m 512 --tclass 8" &&
	qp_lines "$(rb_file server.err)" 2 'path MTU 512, .*traffic class 8,' &&
	qp_lines "$(rb_file client.err)" 2 'path MTU 512, .*traffic class 8,'
tap_ok $? "-R -c UC -q 2 -m 512 --tclass 8: all four QPs read back MTU 512 and traffic class 8"

# A source address that is not on this host: the client exits 1 at once
# naming it (no wait for --timeout 60), and its server with it.  (Starting
# the pair alone takes 5-15 s on a loaded emulator.)
t0=$SECONDS
rb_bench "cm bad source" rb_write_bw "-s 4096 -n 200 -R --timeout 60" '--source_ip=198.51.100.7'
took=$((SECONDS - t0))
tap_diag "client with a foreign --source-ip and its server: $took s"
rb_failed 1 '--source-ip 198.51.100.7: rdma_cm cannot bind' client && rb_failed 1 '.' server &&
	[ "$took" -lt 40 ]
tap_ok $? "-R --source_ip=198.51.100.7 (not here): both exit 1 well before --timeout 60, the client naming --source-ip"

usage_case "--source-ip: '1.2.3' is not a valid value" rb_write_bw -R --source_ip=1.2.3 192.0.2.99
tap_ok $? "usage: --source_ip=1.2.3 exits 2 naming --source-ip"
usage_case '--source-ip applies to a client with -R' rb_write_bw --source-ip=192.0.2.99 192.0.2.99
tap_ok $? "usage: --source-ip without -R exits 2"
