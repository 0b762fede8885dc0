# needs: one-guest quiet
# Latency under load in one pair (--load, --load-compare).  Sourced by
# run-all.sh (see lib.sh).
#
# The load is a bandwidth benchmark on QPs, a thread and a CPU of its own,
# running from before the first latency sample to after the last; its
# bytes in the latency window come from its 10 ms intervals.  Under
# emulation the figures are the emulator's: the checks are on the method
# (a load that ran, its bytes agreeing with the device's counters, idle and
# loaded rows in turn), never on a speed.

# ---- 1, 2: send_lat under 64 KiB writes, CSV; the load's bytes vs rxe ----
# Both ends share one rxe device: sent_pkts counts the load's request
# packets (P = 64 KiB / MTU a message) and its ACKs (A = 1 per 66 packets,
# see feature/correctness.sh), the latency's sends (each a packet and its ACK: 2 per send
# completed, which rdma_sends counts, writes not) and any packet sent again
# (go-back-N after a loss: the responder counts them as duplicate_request
# and out_of_seq_request).  The load drains its last messages when halted,
# so its whole run (load_run_bytes, from its intervals) is every load
# message the device sent: the counter's share once the latency's packets
# are taken out, less what was sent again (-10 %, +1 %).  Its bytes in the
# latency window are part of that run (how large a part depends on how long
# the pair takes to start and end: seconds on a loaded host), at a rate
# within 3x of the run's.  -D 2: a round trip under the load took 8 ms at
# the median in a loaded CI run (13 us on a quiet host).
# The cases below, skips included (tap_plan: lib.sh).
tap_plan 9

mtu=$(ibv_devinfo -d "$RB_DEV" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
pk0=$(rb_hw_counter sent_pkts) dup0=$(rb_hw_counter duplicate_request) oos0=$(rb_hw_counter out_of_seq_request)
snd0=$(rb_hw_counter rdma_sends)
rb_csv "load send_lat" rb_send_lat "-s 64 -D 2 --warmup-time 0.5 --load=write_bw --load-size=64K"
st=$?
pk1=$(rb_hw_counter sent_pkts) dup1=$(rb_hw_counter duplicate_request) oos1=$(rb_hw_counter out_of_seq_request)
snd1=$(rb_hw_counter rdma_sends)
[ "$st" = 0 ] && rb_check "$(rb_file client.csv)" \
	"status == 'complete' and len(rows) == 1" \
	"rows[0]['load'] == 'write_bw' and rows[0]['load_size'] == 65536 and rows[0]['load_qps'] == 1" \
	"rows[0]['load_bw_mibps'] > 0 and rows[0]['load_bytes'] > 0 and rows[0]['load_msgs'] > 0" \
	"close(rows[0]['load_bytes'] / rows[0]['window_s'] / 1048576, rows[0]['load_bw_mibps'], 1e-4)" \
	"rows[0]['load_bytes'] <= rows[0]['load_run_bytes'] and rows[0]['window_s'] <= rows[0]['load_run_s']" \
	"0 < rows[0]['lat_p50_us'] <= rows[0]['lat_p99_us']" \
	"meta['load'] == 'write_bw' and meta['load_size'] == 65536" \
	"rows[0]['load_cpu'] is not None and rows[0]['load_cpu'] != meta['cpu']" \
	-- "$(rb_file server.csv)" \
	"status == 'complete' and rows[0]['load_bw_mibps'] > 0" \
	"rows[0]['load_run_bytes'] > 0 and rows[0]['load_run_s'] > 0" \
	"rows[0]['load_cpu'] is not None and rows[0]['load_cpu'] != meta['cpu']"
tap_ok $? "rb_send_lat -s 64 --load=write_bw --load-size=64K: p50 and p99 next to the load's bandwidth (> 0), in both sides' CSV, the window's load within its whole run, each side's load on a CPU apart from its latency loop's"
tap_diag "send_lat under write_bw 64K: $(grep -v '^#' "$(rb_file client.csv)" | tr '\n' ' ')"

if [ -z "$pk0" ] || [ -z "$snd0" ] || [ -z "$mtu" ] || [ "$st" != 0 ]; then
	tap_skip "--load: the load's whole run agrees with the rxe packet counter" "no sent_pkts or rdma_sends, MTU or no run"
else
	rb_py "$(rb_file client.csv)" "$mtu" "$((pk1 - pk0))" "$((${dup1:-0} - ${dup0:-0} + ${oos1:-0} - ${oos0:-0}))" "$((snd1 - snd0))" >"$RB_CASE_DIR/counted" <<'EOF2'
import csv, sys
path, mtu, pk, again, sends = sys.argv[1], *map(int, sys.argv[2:])
r = [x for x in csv.DictReader(l for l in open(path) if l.strip() and not l.startswith('#'))][0]
P = -(-65536 // mtu)
A = -(-P // 66)
lat_pkts = 2 * sends
hi = (pk - lat_pkts) / (P + A) * 65536
lo = (pk - again - lat_pkts) / (P + A) * 65536
run, win = float(r['load_run_bytes']), float(r['load_bytes'])
rate = (win / float(r['window_s'])) / (run / float(r['load_run_s']))
ok = 0.9 * lo <= run <= 1.01 * hi and 1 / 3 <= rate <= 3
print('%s the whole run %d bytes, the counter %d..%d (sent_pkts +%d, %d sent again, %d of latency, P=%d A=%d); '
      'the window %d bytes, its rate %.2f x the run\'s' %
      ('ok' if ok else 'FAIL', run, lo, hi, pk, again, lat_pkts, P, A, win, rate))
EOF2
	grep -q '^ok' "$RB_CASE_DIR/counted"
	tap_ok $? "--load: the load's whole run agrees with the rxe packet counter, its window's bytes at the run's rate: $(cat "$RB_CASE_DIR/counted")"
fi

# ---- 3: --load-compare: idle and loaded rows in turn, ratios ----
# Each repetition's window is -D 0.5 less 0.1 s of warm-up: a -n 400 window
# (a few ms) could close before the load's first completion (its first -t
# 128 messages of 64 KiB took 0.12 s on rxe) and show a loaded row with no
# load; 4 KiB messages complete a few packets after they start.
rb_csv "load compare" rb_write_lat "-s 64 -D 0.5 --warmup-time 0.1 --load=write_bw --load-size=4K --load-compare" \
	"-H \$RB_CASE_DIR/h.csv" &&
	rb_check "$(rb_file client.csv)" \
		"status == 'complete' and len(rows) == 6" \
		"[x['phase'] for x in rows] == ['idle', 'loaded'] * 3" \
		"all(x['load_bw_mibps'] is None and x['ratio_p50'] is None and x['ratio_p99'] is None for x in rows[0::2])" \
		"all(x['load_bw_mibps'] > 0 and x['load_bytes'] <= x['load_run_bytes'] for x in rows[1::2])" \
		"all(close(b['ratio_p50'], b['lat_p50_us'] / a['lat_p50_us']) and close(b['ratio_p99'], b['lat_p99_us'] / a['lat_p99_us']) for a, b in zip(rows[0::2], rows[1::2]))" \
		"meta['load_compare_reps'] == 6" &&
	ls "$(rb_file h-idle-1.csv)" "$(rb_file h-idle-2.csv)" "$(rb_file h-idle-3.csv)" \
		"$(rb_file h-loaded-1.csv)" "$(rb_file h-loaded-2.csv)" "$(rb_file h-loaded-3.csv)" >/dev/null &&
	n_idle2=$(csv_col "$(rb_file client.csv)" iterations | sed -n 3p) &&
	n_loaded3=$(csv_col "$(rb_file client.csv)" iterations | sed -n 6p) &&
	rb_check "$(rb_file h-idle-2.csv)" "meta['load_phase'] == 'none (idle)'" "hist('$(rb_file h-idle-2.csv)', $n_idle2)" \
		-- "$(rb_file h-loaded-3.csv)" "meta['load_phase'] == 'write_bw'" "hist('$(rb_file h-loaded-3.csv)', $n_loaded3)"
tap_ok $? "rb_write_lat --load-compare: idle and loaded rows interleaved, each loaded row's ratios to the idle one before it; -H: one histogram per repetition (h-idle-1 .. h-loaded-3.csv), its phase in the sidecar"
tap_diag "write_lat idle/loaded p50: $(rb_py "$(rb_file client.csv)" 2>/dev/null <<'PY'
import csv,sys
r=[x for x in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
print(' '.join('%s=%s/%s' % (x['phase'], x['lat_p50_us'], x['lat_p99_us']) for x in r))
PY
)"

# ---- JSON ----
# (-D: a window long enough for the load's first completions, as above)
rb_bench "load json" rb_read_lat "-s 64 -D 0.5 --warmup-time 0.1 --load=read_bw --load-size=16K" \
	"--json=\$RB_CASE_DIR/client.json" &&
	rb_check "$(rb_file client.json)" \
		"status == 'complete' and len(rows) == 1" \
		"rows[0]['load'] == 'read_bw' and rows[0]['load_bw_mibps'] > 0 and rows[0]['load_size'] == 16384" \
		"meta['load'] == 'read_bw'"
tap_ok $? "rb_read_lat --load=read_bw --json: the load's columns and metadata"

# ---- 5: atomic_lat under send_bw, 2 QPs ----
rb_csv "load atomic" rb_atomic_lat "-D 0.5 --warmup-time 0.1 --load=send_bw --load-size=4K --load-qps=2" &&
	rb_check "$(rb_file client.csv)" \
		"status == 'complete' and rows[0]['load'] == 'send_bw' and rows[0]['load_qps'] == 2" \
		"rows[0]['load_bw_mibps'] > 0"
tap_ok $? "rb_atomic_lat --load=send_bw --load-qps=2: runs, the load's bandwidth > 0"

# ---- human: the load's name and bandwidth in the table ----
rb_bench "load human" rb_write_lat "-s 64 -n 100 --load=write_bw --load-size=8K" &&
	grep -q 'load BW\[MiB/sec\]' "$(rb_file client.out)" &&
	grep -Eq '^ *64 +100 .*write_bw +[0-9]+\.[0-9]{2}' "$(rb_file client.out)"
tap_ok $? "rb_write_lat --load=write_bw, human table: the load's name and bandwidth in the row"
tap_diag "$(tail -3 "$(rb_file client.out)")"

# ---- HELLO: a server without --load faces a client with it ----
rb_bench "load mismatch" rb_send_lat "-s 64 -n 100" "--load=write_bw"
rb_failed 1 "background load \(--load\) differs: .*write_bw.*none|none.*write_bw"
tap_ok $? "--load on the client only: both sides exit 1 naming --load"

# ---- 4: a side killed during a loaded run ----
# load_kill VICTIM SURVIVOR: SIGKILL to VICTIM 2 s into a loaded -D 30 run
# (both headers out: connected, the load running); SURVIVOR must exit 1
# within --timeout 3 x 2 + slack, naming the lost peer, no process left.
load_kill() {
	local victim=$1 survivor=$2 rc el t0 left
	rb_case "load $victim killed"
	rb_start server "$(rb_cmd rb_send_lat) -s 64 -D 30 --timeout 3 --load=write_bw"
	sleep 1
	rb_start client "$(rb_cmd rb_send_lat) -s 64 -D 30 --timeout 3 --load=write_bw \$RB_IP"
	for _ in $(seq 1 150); do
		rb_has "$RB_CASE_DIR/client.out" . && rb_has "$RB_CASE_DIR/server.out" . && break
		rb_nap 0.1
	done
	sleep 2
	kill -KILL "$(pgrep -P "$(cat "$RB_CASE_DIR/$victim.pid")" rb_send_lat)" 2>/dev/null
	t0=$SECONDS
	wait "$(cat "$RB_CASE_DIR/$victim.pid")" 2>/dev/null
	rb_wait "$survivor"
	rc=$?
	el=$((SECONDS - t0))
	left=$(pgrep -f "rb_send_lat.*--load" | tr '\n' ' ')
	[ "$rc" = 1 ] && [ "$el" -le 15 ] && [ -z "$left" ] &&
		grep -Eq "peer is gone|closed the connection|did not finish" "$RB_CASE_DIR/$survivor.err"
	tap_ok $? "--load, the $victim killed mid-run: the $survivor exits 1 within 15 s ($el s, rc $rc), naming the lost peer, nothing left (${left:-none})"
	tap_diag "$(head -4 "$RB_CASE_DIR/$survivor.err")"
	[ -z "$left" ] || kill -KILL $left 2>/dev/null || true
}
load_kill server client
load_kill client server
