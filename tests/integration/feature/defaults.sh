# needs: one-guest lane
# Defaults that change a figure, as they ran: inline (perftest's per-test
# values, never above the device's grant), PCIe relaxed ordering, -o agreed
# by both sides, the path MTU read back.  Sourced by run-all.sh (see lib.sh).
# Eight pairs; each check reads both sides' metadata.

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 8

A="-s 64 -n 100"
L="-s 64 -n 100 --warmup 10"
both() { # EXPR...: holds on the client's and the server's CSV
	rb_check "$(rb_file client.csv)" "$@" -- "$(rb_file server.csv)" "$@"
}
meta_of() { sed -n "s/^# $2=//p" "$1"; } # CSV KEY

# ---- inline, relaxed ordering, path MTU ----

# Bandwidth: nothing inline unless -I (perftest: 0).  Relaxed ordering is
# each side's own: requested by default, off with either spelling.
rb_csv "write_bw defaults" rb_write_bw "$A" "" "--disable-pcie-relaxed" &&
	both 'bw(r, 64, 100)' 'meta["inline_bytes"] == 0' 'meta["inline"] == "off"' &&
	rb_check "$(rb_file client.csv)" 'meta["relaxed_ordering"] == "requested"' \
		-- "$(rb_file server.csv)" 'meta["relaxed_ordering"] == "off"'
tap_ok $? "rb_write_bw: no inline by default; relaxed ordering requested, off with --disable-pcie-relaxed"

rb_csv "write_bw -I 64 -m 512" rb_write_bw "$A -I 64 -m 512" "--disable_pcie_relaxed" &&
	both 'bw(r, 64, 100)' 'meta["inline_bytes"] == 64' 'meta["inline"] == "sizes <= 64 B"' \
		'meta["inline_granted"] >= 64' 'meta["mtu_bytes"] == 512' &&
	rb_check "$(rb_file client.csv)" 'meta["relaxed_ordering"] == "off"'
tap_ok $? "rb_write_bw -s 64 -I 64 -m 512: 64-byte writes inline, path MTU 512 read back from the QP, --disable_pcie_relaxed"

# Latency: perftest's values where the device grants them (rxe grants what
# it is asked up to 512), never more than the grant; rdma_cm QPs alike.
rb_csv "write_lat -R" rb_write_lat "$L -R" &&
	both 'lat(r, 64, 100)' 'meta["connect"] == "rdma_cm"' 'meta["inline_bytes"] > 0' \
		'meta["inline_bytes"] == min(220, meta["inline_granted"])' \
		'meta["inline"] == "sizes <= %d B" % meta["inline_bytes"]'
tap_ok $? "rb_write_lat -R: inline 220 (perftest's DEF_INLINE_WRITE) on rdma_cm QPs, not above the grant"

rb_csv "send_lat -c UD" rb_send_lat "$L -c UD" &&
	both 'lat(r, 64, 100)' 'meta["inline_bytes"] == min(188, meta["inline_granted"])' 'meta["inline_bytes"] > 0'
tap_ok $? "rb_send_lat -c UD: inline 188 (perftest's DEF_INLINE_SEND_UD), not above the grant"

# More than the device accepts: the QP is refused and the run fails, naming
# the largest size it takes (rxe: 512); a device that grants it anyway must
# have recorded the grant.
rb_csv "write_bw -I 4096" rb_write_bw "$A -I 4096"
if [ "$(cat "$(rb_file client.rc)")" = 0 ]; then
	both 'meta["inline_bytes"] == min(4096, meta["inline_granted"])'
else
	rb_failed 1 '-I/--inline-size 4096: the device refused .* it accepts at most [0-9]+ bytes .*use -I [0-9]+ or less'
fi
tap_ok $? "rb_write_bw -I 4096: exit 1 naming the largest inline size the device accepts (or the grant recorded)"

# ---- outstanding reads/atomics: both sides agree ----
# (powers of two: rxe rounds a QP's depth up to one, and the metadata says
# what the QP got)

rb_csv "read_bw -o 4 / -o 2" rb_read_bw "$A" "-o 4" "-o 2" &&
	both 'bw(r, 64, 100)' 'meta["outstanding"] == 2' 'meta["inline_bytes"] == 0'
tap_ok $? "rb_read_bw -o 4 (client), -o 2 (server): both use the smaller, 2; reads never inline"

rb_csv "atomic_bw -o 200" rb_atomic_bw "-n 100" "-o 200" &&
	rb_check "$(rb_file client.csv)" 'bw(r, 8, 100)' '0 < meta["outstanding"] < 200' \
		-- "$(rb_file server.csv)" 'bw(r, 8, 100)' &&
	[ "$(meta_of "$(rb_file client.csv)" outstanding)" = "$(meta_of "$(rb_file server.csv)" outstanding)" ] &&
	grep -q -- '-o/--outs 200 is more than both sides allow .*; using' "$(rb_file client.err)"
tap_ok $? "rb_atomic_bw -o 200: lowered to both devices' limit ($(meta_of "$(rb_file client.csv)" outstanding)), said on stderr, the same on both sides"

rb_csv "read_bw -R -o 1" rb_read_bw "$A -R" "-o 1" &&
	both 'bw(r, 64, 100)' 'meta["outstanding"] == 1' 'meta["connect"] == "rdma_cm"'
tap_ok $? "rb_read_bw -R -o 1 on the client only: rdma_cm's connect request carries it, both sides record 1"
