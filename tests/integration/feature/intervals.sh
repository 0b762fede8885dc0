# needs: one-guest quiet
# Watching a link over time (--interval, --run_infinitely, --min-bw).
# Sourced by run-all.sh (see lib.sh).
#
# Interval rows (row_kind=interval) tile the measured window: the first
# starts at 0, each starts where the last ended, the last ends with the
# window, and their messages and bytes add up to the whole-run row's
# exactly.  Never an absolute speed: counts, sums and ratios.

# ---- memory stays flat: peak RSS at 6 s and at 18 s of one run ----
# (the issue asks 10 min against 10 s; 18 s against 6 s here, 0.01 s
# intervals so that ~1200 rows stream out after the first reading.)  It
# starts first, on a port of its own, and the next two cases run meanwhile
# (its client's loop takes half the guest's CPU, so it stops at 18 s: until
# 2026-12-02 it ran to 30 s at 0.02 s, the same rows, for 3 more cases and
# ~15 s of the guest's CPU more); the -W counters case, which reads the
# device-wide packet counter, comes after it has ended.  (Its limit is 300
# s, not 120, for a loaded host.)
# The cases below, skips included (tap_plan: lib.sh).
tap_plan "$(rb_fast_full 21 22)"

hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
# rb_child SIDE [DIR]: the benchmark under rb_start's SIDE (its timeout's
# child), in the case folder DIR (default: this case's).
rb_child() { pgrep -P "$(cat "${2:-$RB_CASE_DIR}/$1.pid")" | head -1; }
rb_case "run_infinitely rss"
rss_dir=$RB_CASE_DIR rss_t0=$SECONDS rss_port=18532
RB_PAIR_TIMEOUT=300 rb_start server "$(rb_cmd rb_write_bw) -p $rss_port -s 1024 --run_infinitely --timeout 20"
wait_listen "$rss_port"
RB_PAIR_TIMEOUT=300 rb_start client "$(rb_cmd rb_write_bw) -p $rss_port -s 1024 --run_infinitely --timeout 20 --interval=0.01 \"\$RB_IP\""
# rss_at SECONDS: the client's peak RSS once SECONDS have passed since it started
rss_at() {
	local left=$(($1 - (SECONDS - rss_t0)))
	((left > 0)) && sleep "$left"
	hwm "$(rb_child client "$rss_dir")"
}

# ---- 5 s with --interval=1: 5 intervals (+-1), bytes add up ----
rb_csv "interval 1s write_bw" rb_write_bw "-s 4096 -t 32 -D 6 --warmup-time 1 --interval=1" &&
	rb_check "$(rb_file client.csv)" \
		"status == 'complete'" \
		"4 <= len([x for x in rows if x['row_kind'] == 'interval']) <= 6" \
		"sum(x['iterations'] for x in rows if x['row_kind'] == 'interval') == rows[-1]['iterations']" \
		"sum(x['bytes'] for x in rows if x['row_kind'] == 'interval') == rows[-1]['bytes']" \
		"rows[-1]['row_kind'] == 'total' and rows[-1]['interval_count'] == len(rows) - 1" \
		"rows[0]['t_start_s'] == 0 and all(close(a['t_end_s'], b['t_start_s']) for a, b in zip(rows[:-2], rows[1:-1]))" \
		"close(rows[-2]['t_end_s'], rows[-1]['window_s'])" \
		"all(x['t_end_s'] >= (int(x['t_start_s'] + 1e-9) + 1) - 1e-9 for x in rows[:-2])"
tap_ok $? "rb_write_bw -D 6 --warmup-time 1 --interval=1: 4..6 intervals tiling the window, each ending past its 1 s grid point, messages and bytes add up to the total exactly"
rss_short=$(rss_at 6)

# ---- --interval=0.1 over 2 s, both sides of rb_send_bw ----
# Boundaries are checked once per burst of posts: -t 8 keeps a burst
# shorter than 0.1 s on a loaded emulator (rxe posts one message per system call).
rb_csv "interval 0.1s send_bw" rb_send_bw "-s 1024 -t 8 -Q 4 -D 2.5 --warmup-time 0.5 --interval=0.1" &&
	rb_check "$(rb_file client.csv)" \
		"status == 'complete'" \
		"5 <= len([x for x in rows if x['row_kind'] == 'interval']) <= 21" \
		"sum(x['iterations'] for x in rows if x['row_kind'] == 'interval') == rows[-1]['iterations']" \
		"close(rows[-2]['t_end_s'], rows[-1]['window_s'])" \
		"all(x['t_end_s'] >= (int(x['t_start_s'] * 10 + 1e-6) + 1) / 10 - 1e-9 for x in rows[:-2])" \
	-- "$(rb_file server.csv)" \
		"status == 'complete'" \
		"len([x for x in rows if x['row_kind'] == 'interval']) >= 5" \
		"sum(x['iterations'] for x in rows if x['row_kind'] == 'interval') == rows[-1]['iterations']"
tap_ok $? "rb_send_bw -D 2.5 --interval=0.1: sender's and receiver's intervals each add up to their total"

# ---- memory stays flat (started at the top): the reading at 18 s ----
rss_long=$(rss_at 18)
RB_CASE_DIR=$rss_dir
kill -INT "$(rb_child client)"
st=1
rb_wait client server && st=0
tap_diag "client VmHWM: $rss_short kB at ~6 s, $rss_long kB at ~18 s ($((SECONDS - rss_t0)) s); $(grep -c . "$(rb_file client.out)") lines out"
[ "$st" = 0 ] && [ -n "$rss_short" ] && [ -n "$rss_long" ] &&
	awk -v a="$rss_short" -v b="$rss_long" 'BEGIN { exit !(b <= a * 1.03) }' &&
	[ "$(grep -c . "$(rb_file client.out)")" -gt 300 ]
tap_ok $? "--run_infinitely --interval=0.01: peak RSS at 18 s within 3 % of that at 6 s ($rss_short -> $rss_long kB), rows streamed"

# ---- JSON: an intervals array per size, one valid document ----
rb_bench "interval json" rb_send_bw "-s 1024 -D 2 --warmup-time 0.5 --interval=0.5 -b" "--json=\$RB_CASE_DIR/client.json" &&
	rb_check "$(rb_file client.json)" \
		"status == 'complete' and len(rows) == 1" \
		"len(rows[0]['intervals']) >= 2 and all(x['row_kind'] == 'interval' for x in rows[0]['intervals'])" \
		"sum(x['iterations'] for x in rows[0]['intervals']) == rows[0]['iterations']" \
		"sum(x['rx_iterations'] for x in rows[0]['intervals']) == rows[0]['rx_iterations']" \
		"rows[0]['row_kind'] == 'total' and rows[0]['interval_count'] == len(rows[0]['intervals'])"
tap_ok $? "rb_send_bw -b --interval=0.5 --json: an intervals array in the size's object, sent and received counts add up"

# ---- latency: per-interval histograms ----
rb_csv "interval write_lat" rb_write_lat "-D 2 --warmup-time 0.5 --interval=0.5" &&
	rb_check "$(rb_file client.csv)" \
		"status == 'complete' and len(rows) >= 3 and rows[-1]['row_kind'] == 'total'" \
		"sum(x['iterations'] for x in rows[:-1]) == rows[-1]['iterations']" \
		"min(x['lat_min_us'] for x in rows[:-1] if x['iterations']) == rows[-1]['lat_min_us']" \
		"max(x['lat_max_us'] for x in rows[:-1] if x['iterations']) == rows[-1]['lat_max_us']" \
		"all(x['lat_min_us'] <= x['lat_p50_us'] <= x['lat_p99_us'] <= x['lat_max_us'] for x in rows[:-1] if x['iterations'])"
tap_ok $? "rb_write_lat --interval=0.5: interval samples add up, their min and max are the run's"

# ---- --min-bw above and below the rate ----
rb_bench "min-bw above" rb_write_bw "-s 4096 -t 32 -D 3 --warmup-time 0.5 --interval=1" \
	"--min-bw=100Tb/s --csv=\$RB_CASE_DIR/client.csv"
rb_failed 1 "interval\(s\) below --min-bw 100Tb/s: 0\.000-[0-9.]+ s, " client &&
	rb_check "$(rb_file client.csv)" "status == 'complete'" \
		"rows[-1]['ivl_below_min_bw'] == rows[-1]['interval_count'] >= 2"
tap_ok $? "--min-bw=100Tb/s above the rate: exit 1 naming the intervals, every one counted below"

rb_bench "min-bw below" rb_write_bw "-s 4096 -t 32 -D 3 --warmup-time 0.5 --interval=1" \
	"--min-bw=1Kb/s --csv=\$RB_CASE_DIR/client.csv" &&
	rb_check "$(rb_file client.csv)" "status == 'complete'" "rows[-1]['ivl_below_min_bw'] == 0" &&
	! grep -q "below --min-bw" "$(rb_file client.err)"
tap_ok $? "--min-bw=1Kb/s below the rate: exit 0, none below"

# ---- --run_infinitely: a stopped peer shows as a dip; SIGINT ends it ----
# rxe's RDMA writes land without the peer process: the receiver of sends
# has to repost, so stopping it stalls the sender (RNR) for as long.
# Traffic resumed: the last two whole intervals (rows[-3], rows[-4]) carry
# messages; the last interval row, rows[-2], is the one SIGINT cut short,
# as short as a few ms, with no -Q 100 batch completed in it (a clean-clone
# CI run failed on it once).
rows_at_least() {  # FILE N DEADLINE_S: wait until FILE has N interval rows
	local t n
	for ((t = 0; t < $3 * 10; t++)); do
		rb_count n "$1" ',interval,'
		((n >= $2)) && return 0
		rb_nap 0.1
	done
	return 1
}
rb_case "run_infinitely dip"
rb_start server "$(rb_cmd rb_send_bw) -s 1024 --run_infinitely --timeout 20 --csv=\$RB_CASE_DIR/server.csv"
wait_listen 18515
rb_start client "$(rb_cmd rb_send_bw) -s 1024 --run_infinitely --timeout 20 --interval=0.5 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
st=1
if rows_at_least "$(rb_file client.csv)" 4 90; then
	spid=$(rb_child server)
	kill -STOP "$spid"; sleep 2.5; kill -CONT "$spid"
	n=$(grep -c ',interval,' "$(rb_file client.csv)")
	rows_at_least "$(rb_file client.csv)" $((n + 4)) 60
	kill -INT "$(rb_child client)"
	rb_wait client server
	st=$?
else
	tap_diag "no 4 interval rows in 90 s: $(tail -c 600 "$(rb_file client.err)")"
	kill -INT "$(rb_child client)" "$(rb_child server)"
	rb_wait client server
fi
[ "$st" = 0 ] &&
	rb_check "$(rb_file client.csv)" "status == 'complete'" "rows[-1]['row_kind'] == 'total'" \
		"sorted(x['bw_avg_mibps'] for x in rows[:-1])[0] < 0.5 * sorted(x['bw_avg_mibps'] for x in rows[:-1])[len(rows) // 2]" \
		"sum(1 for x in rows[:-1] if x['bw_avg_mibps'] < 0.2 * sorted(y['bw_avg_mibps'] for y in rows[:-1])[len(rows) // 2]) >= 3" \
		"rows[-3]['bw_avg_mibps'] > 0 and rows[-4]['bw_avg_mibps'] > 0" \
		"sum(x['iterations'] for x in rows[:-1]) == rows[-1]['iterations']" \
	-- "$(rb_file server.csv)" "status == 'complete'"
tap_ok $? "--run_infinitely --interval=0.5: the peer stopped 2.5 s shows as >= 3 intervals under 20 % of the median, traffic resumes, SIGINT ends both with exit 0 and status complete"

# ---- --run_infinitely stopped by SIGINT: the last interval is partial ----
# The loop sees SIGINT after a completion, mostly just after the interval
# that completion closed, so the last interval is a ms or so with no
# completion in it (1 MiB writes on rxe: a pass of the loop, 16 of them,
# takes ~0.3 s).  It is marked partial and, too short to show a rate under
# --min-bw 1Kb/s, not judged: exit 0 every time.  Until 2026-12-03 it counted:
# exit 1 in 6 runs of 6, "below --min-bw 1Kb/s: 0.353-0.355 s".  On a
# loaded host the stop may come a post of 16 MiB after the close, past
# the next boundary (1 run of 6 beside 3 busy loops): the interval the
# stop ended is partial wherever its boundary (test_interval: the stopped
# cases), and ends the window where the total does.  Four runs,
# stopped at other moments after the third row, each in another format on stdout, each line
# stamped as it came out with the shell's clock, not the program's: the
# rows' widths (t_end_s - t_start_s) are what the stamps show, whole rows
# are as wide as the passes make them (stderr says so when over twice the
# asked 0.05 s), and only the last row is partial.  After the third row,
# not the first: on a loaded host a pass took up to 1.05 s (2 busy loops
# beside the boot, 10 runs), and CI's run on 5f5abcc failed this case
# once, stopped 1.3 s after its first row (its log kept no reason).
ivl_stamp() { while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
export -f ivl_stamp
# ivl_rows_out FILE N: wait (60 s at most) for N interval rows in
# any format (CSV, JSON, human: to[s], then its partial column 0), so that the stop
# falls in the measured window however long the connection took
ivl_rows_out() {
	local t n
	for ((t = 0; t < 600; t++)); do
		rb_count n "$1" ',interval,|"row_kind":"interval"|[0-9]\.[0-9]{3} +0$'
		((n >= $2)) && return 0
		rb_nap 0.1
	done
	return 1
}
# ivl_sigint N FORMAT STOP_S: run N of rb_write_bw -s 1M --interval=0.05
# --min-bw=1Kb/s, FORMAT (csv, json, human) on stdout, SIGINT STOP_S s
# after its third interval row
ivl_sigint() {
	local fmt=() rb
	[ "$2" = human ] || fmt=("--$2")
	rb_case "run_infinitely sigint $1"
	rb_start server "$(rb_cmd rb_write_bw) -s 1M --run_infinitely --timeout 20"
	wait_listen 18515
	rb_start client "set -o pipefail; $(rb_cmd rb_write_bw) -s 1M --run_infinitely --timeout 20 --interval=0.05 --min-bw=1Kb/s ${fmt[*]} \"\$RB_IP\" | ivl_stamp"
	ivl_rows_out "$(rb_file client.out)" 3 || tap_diag "run $1: not 3 interval rows in 60 s"
	rb_nap "$3"
	rb=$(pgrep -x -P "$(rb_child client)" rb_write_bw)
	kill -INT "$rb"
	rb_wait client server || tap_diag "run $1 ($2, SIGINT at $3 s): client exited $(cat "$(rb_file client.rc)"): $(cat "$(rb_file client.err)")"
	cut -d' ' -f2- "$(rb_file client.out)" >"$(rb_file client.$2)"
}
# ivl_stamps: "stamp,t_end_s,t_start_s" of each interval row of a stamped CSV
ivl_stamps() {
	awk 'BEGIN { print "stamp,t_end_s,t_start_s" }
		$2 ~ /^size_bytes,/ { n = split($2, h, ","); for (i = 1; i <= n; i++) c[h[i]] = i }
		$2 ~ /,interval,/ { split($2, v, ","); print $1 "," v[c["t_end_s"]] "," v[c["t_start_s"]] }' "$1"
}
# ivl_coarse_ok FILE: when the whole rows came out over twice 0.05 s wide,
# stderr says how wide (the widest, to the ms); else it says nothing
ivl_coarse_ok() {
	local said
	said=$(grep -Eo 'intervals up to [0-9.]+ s wide for --interval=0.05' "$(rb_file client.err)" | awk '{ print $4 }')
	rb_check "$1" "(max(x['t_end_s'] - x['t_start_s'] for x in rows[:-2]) > 0.1) == ('$said' != '')" \
		"'$said' == '' or abs(max(x['t_end_s'] - x['t_start_s'] for x in rows[:-2]) - float('$said' or 0)) <= 0.0015"
}
# ivl_lag_note RUN: each row's lag (its stamp less its t_end_s) over the
# least one's: a row held back in a buffer shows as a lag as long as the
# rows after it (the stamps span over 1 s of rows: one buffer would put
# 1 s between the first row's and the last's); 0.15 s allowed for the
# reader's scheduling in a guest on a loaded host
ivl_lag_note() {
	tap_diag "run $1: $(awk -F, 'NR > 1 { l[++n] = $1 - $2; w = $2 - $3; if (w > mw) mw = w }
		END { m = l[1]; for (i = 2; i <= n; i++) if (l[i] < m) m = l[i]
			for (i = 1; i <= n; i++) if (l[i] - m > x) x = l[i] - m
			printf "%d interval rows, widest %.3f s, lag over the least at most %.3f s", n, mw, x }' "$(rb_file stamps.csv)")"
}
ivl_sigint_csv() {
	ivl_sigint "$1" csv "$2"
	[ "$(cat "$(rb_file client.rc)")" = 0 ] && [ "$(cat "$(rb_file server.rc)")" = 0 ] &&
		rb_check "$(rb_file client.csv)" "rows[-1]['row_kind'] == 'total' and rows[-1]['ivl_below_min_bw'] == 0" \
			"len(rows) >= 4 and rows[-2]['ivl_partial'] == 1 and rows[-1]['ivl_partial'] is None" \
			"all(x['ivl_partial'] == 0 for x in rows[:-2])" \
			"sum(x['iterations'] for x in rows[:-1]) == rows[-1]['iterations']" \
			"all(x['t_end_s'] >= (int(x['t_start_s'] * 20 + 1e-6) + 1) / 20 - 1e-9 for x in rows[:-2])" \
			"rows[-2]['t_end_s'] == rows[-1]['t_end_s'] and rows[-2]['t_start_s'] == rows[-3]['t_end_s']" &&
		ivl_coarse_ok "$(rb_file client.csv)" &&
		ivl_stamps "$(rb_file client.out)" >"$(rb_file stamps.csv)" &&
		ivl_lag_note "$1" &&
		rb_check "$(rb_file stamps.csv)" "len(rows) >= 4 and rows[-1]['t_end_s'] - rows[0]['t_end_s'] >= 1.0" \
			"max((x['stamp'] - x['t_end_s']) - min(y['stamp'] - y['t_end_s'] for y in rows) for x in rows) <= 0.15"
}
ivl_sigint_csv 1 1.3
tap_ok $? "rb_write_bw -s 1M --run_infinitely --interval=0.05 --min-bw=1Kb/s, SIGINT 1.3 s after the third row (CSV): exit 0, only the last row partial, none below; rows as wide as the stamps of their arrival show (lag +0.15 s), stderr names the widest when over 0.1 s"
# a second CSV run, stopped later, in the full run (RB_FULL=1) only: each
# format's partial row is proven once in the fast one
if rb_full; then
	ivl_sigint_csv 2 2.1
	tap_ok $? "the same, SIGINT 2.1 s after the third row (CSV): exit 0, the last row partial, widths as stamped"
fi
ivl_sigint 3 json 1.7
rb_wait client server &&
	rb_check "$(rb_file client.json)" "status == 'complete' and len(rows) == 1 and rows[0]['ivl_below_min_bw'] == 0" \
		"rows[0]['intervals'][-1]['ivl_partial'] == 1 and all(x['ivl_partial'] == 0 for x in rows[0]['intervals'][:-1])" \
		"rows[0]['ivl_partial'] is None and len(rows[0]['intervals']) >= 2"
tap_ok $? "the same, SIGINT 1.7 s after the third row (JSON): exit 0, the last of the intervals partial"
ivl_sigint 4 human 1.5
# human: "partial" a column of each interval row (the last one's 1), the
# summary line says so and that it was not judged
rb_wait client server && awk '
	NF >= 9 && $NF ~ /^[01]$/ && $2 ~ /^[0-9]+$/ { rows++; last = $NF; ones += $NF }
	END { exit !(rows >= 2 && last == 1 && ones == 1) }' "$(rb_file client.out)" &&
	grep -q "partial$" "$(rb_file client.out)" &&
	grep -q "the last partial).*below --min-bw 1Kb/s: none (the partial one too short to judge)" "$(rb_file client.human)"
tap_ok $? "the same, SIGINT 1.5 s after the third row (human): exit 0, a partial column with the last row's 1, the Intervals line says it was not judged"

# ---- the README's --run_infinitely --interval=1 --min-bw row ----
# Both sides as the README has them, the floor one rxe reaches (10 Mb/s;
# the README's 10 Gb/s is a real link's), stopped by SIGINT as soon as a
# second row is out: the last interval is short.
rb_case "run_infinitely min-bw readme"
rb_start server "$(rb_cmd rb_send_bw) --run_infinitely --interval=1 --min-bw=10Mb/s --timeout 20 --csv=\$RB_CASE_DIR/server.csv"
wait_listen 18515
rb_start client "$(rb_cmd rb_send_bw) --run_infinitely --interval=1 --min-bw=10Mb/s --timeout 20 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
rows_at_least "$(rb_file client.csv)" 2 60
kill -INT "$(rb_child client)"
rb_wait client server &&
	rb_check "$(rb_file client.csv)" "status == 'complete' and rows[-1]['row_kind'] == 'total'" \
		"rows[-1]['ivl_below_min_bw'] == 0 and rows[-2]['ivl_partial'] == 1" \
		"all(x['bw_avg_gbps'] >= 0.01 for x in rows[:-2])" \
	-- "$(rb_file server.csv)" "status == 'complete' and rows[-1]['ivl_below_min_bw'] == 0"
tap_ok $? "README: rb_send_bw --run_infinitely --interval=1 --min-bw=10Mb/s (both sides), SIGINT after 2 rows: exit 0 both, the last interval partial"

# ---- a partial interval that can show a stall is judged ----
# The receiver (16 receives posted, -r 16) stopped right after the first
# row (the sender then stalls, RNR), SIGINT 6 s later: a partial interval
# (of 10 s asked) of ~6 s with the traffic until the stop.  At rxe's ~400
# Mb/s it stays under 100 Mb/s while the stop lands within 2 s of the row
# (a loaded CI guest once took long enough to spoil a 2 s pause: the
# partial interval passed the floor, exit 0): it is named below --min-bw,
# exit 1.
# ivl_last_span FILE: "START-END s" of the last interval row of a CSV
ivl_last_span() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		/,interval,/ { a = $c["t_start_s"]; b = $c["t_end_s"] }
		END { printf "%.3f-%.3f s\n", a, b }' "$1"
}
rb_case "run_infinitely min-bw stall"
rb_start server "$(rb_cmd rb_send_bw) -r 16 --run_infinitely --timeout 40"
wait_listen 18515
rb_start client "$(rb_cmd rb_send_bw) -r 16 --run_infinitely --interval=10 --min-bw=100Mb/s --timeout 40 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
st=1
if rows_at_least "$(rb_file client.csv)" 1 60; then
	spid=$(rb_child server)
	kill -STOP "$spid"; rb_nap 6
	kill -INT "$(rb_child client)"; rb_nap 0.3; kill -CONT "$spid"
	rb_wait client server
	[ "$(cat "$(rb_file client.rc)")" = 1 ] && [ "$(cat "$(rb_file server.rc)")" = 0 ] &&
		rb_check "$(rb_file client.csv)" "status == 'complete' and rows[-2]['ivl_partial'] == 1" \
			"rows[-2]['t_end_s'] - rows[-2]['t_start_s'] >= 1.5" \
			"rows[-1]['ivl_below_min_bw'] >= 1" &&
		grep -Fq "below --min-bw 100Mb/s: " "$(rb_file client.err)" &&
		grep -Fq "$(ivl_last_span "$(rb_file client.csv)")" "$(rb_file client.err)"
	st=$?
else
	kill -INT "$(rb_child client)" "$(rb_child server)"
	rb_wait client server
fi
tap_ok $st "--run_infinitely --interval=10 --min-bw=100Mb/s, the receiver stopped 6 s before SIGINT: the partial last interval is named below the floor, exit 1"

# ---- stopped in the warm-up: the message names what was measured ----
# Until 2026-12-03: "no message completed in the 9223372031.855 s measuring
# window" (--run_infinitely's unset end).
rb_case "run_infinitely warm-up stop"
rb_start server "$(rb_cmd rb_write_bw) --run_infinitely --warmup-time 8 --timeout 20"
wait_listen 18515
rb_start client "$(rb_cmd rb_write_bw) --run_infinitely --warmup-time 8 --timeout 20 \"\$RB_IP\""
rb_nap 3
kill -INT "$(rb_child client)"
rb_wait client server
rb_failed 1 "no message completed in the 0\.000 s measured" client && ! grep -q 922337 "$(rb_file client.err)"
tap_ok $? "--run_infinitely stopped in its warm-up: exit 1, 'no message completed in the 0.000 s measured', never INT64_MAX"

# ---- bad values: usage errors naming the option ----
for v in 0 -1 abc; do
	usage_case "--interval" rb_write_bw --interval="$v" 127.0.0.1
	tap_ok $? "--interval=$v: usage error naming --interval"
done
usage_case "--interval: 3 s is longer than the measured window" rb_write_bw -D 2 --interval=3 127.0.0.1
tap_ok $? "--interval longer than -D: usage error"
usage_case "--min-bw: '10Gbit'" rb_write_bw --interval=1 --min-bw=10Gbit 127.0.0.1
tap_ok $? "--min-bw without a known unit: usage error naming the value"
usage_case "--run_infinitely .* drop -D" rb_write_bw --run_infinitely -D 5 127.0.0.1
tap_ok $? "--run_infinitely with -D: usage error"

# ---- per-interval -W counters against rxe's packet counter ----
# sent_pkts counts requests when posted and ACKs (see feature/correctness.sh): a whole
# interval's delta is M * (P + A) packets give or take the -t 32 messages
# in flight at its edges.  The first interval's delta includes the warm-up.
if [ -r "/sys/class/infiniband/$RB_DEV/ports/1/hw_counters/sent_pkts" ]; then
	rb_csv "interval counters" rb_write_bw "-s 4096 -t 32 -D 4 --warmup-time 0.5 --interval=1 -W sent_pkts" &&
		rb_check "$(rb_file client.csv)" "status == 'complete' and len(rows) >= 4" \
			"all(abs(x['ctr_sent_pkts'] / (4 + 1) - x['iterations']) <= 32 + 0.02 * x['iterations'] for x in rows[1:-2])" \
			"4096 // 1024 == 4"
	tap_ok $? "rb_write_bw --interval=1 -W sent_pkts: each inner interval's messages agree with rxe's packets (P=4 + A=1 each, +-32 in flight)"
else
	tap_skip "interval counters" "no hw_counters/sent_pkts on $RB_DEV"
fi
