# needs: one-guest lane
# perftest's output options (#35): --output's one number, captured as a
# script captures it; --out_json's document, read by key as a script reads
# it (python json) and held against our own CSV of the same row;
# --cpu_util's columns held against the kernel's count of the client's CPU
# (getrusage of the child, read by this harness, not by rdmabench); -N;
# --report-both; the refusals.  Four short pairs (-D 2 or a few hundred
# iterations).

tap_plan 7

# pt_check FILE EXPR...: each Python expression holds over d, the JSON
# document in FILE (c: the CSV's rows by column when CSV=FILE is given).
pt_check() {
	local f=$1
	shift
	rb_py "$f" "${PT_CSV:-}" "$@" <<'EOF' || return 1
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2]))) if sys.argv[2] else []
c = rows[-1] if rows else {}
F = lambda k: float(c[k])
for e in sys.argv[3:]:
    if not eval(e):
        print("# failed: %s\n# over %s\n# csv: %s" % (e, json.dumps(d), c))
        sys.exit(1)
EOF
}

# ---- refusals: no device needed ----
usage_case '--output=latency does not fit rb_write_bw, a bandwidth test' rb_write_bw --output=latency &&
	usage_case '--output=bandwidth does not fit rb_read_lat, a latency test' rb_read_lat --output bandwidth &&
	usage_case '--output=message_rate does not fit rb_send_lat' rb_send_lat --output=message_rate &&
	usage_case 'only one number on stdout|--csv/--json' rb_send_bw --output=bandwidth --json &&
	usage_case "--output: 'bw' is not a valid value" rb_send_bw --output=bw
tap_ok $? "--output that does not fit the test (latency on a bw test, bandwidth on a lat test), with --json, or misspelt: exit 2 naming both"

# ---- --output=bandwidth, the cluster script's line (issue #35): the client's
# stdout captured by $(...) is one number, the sum of -b in Gb/s, equal to
# the server's CSV figure; its --out_json holds only bw_avg ----
# (-s 4096, not the default 64 KiB: a loaded guest completed a signalled
# batch of 128 64 KiB writes less often than the window, CI run 5)
rb_case "output bandwidth"
rb_start server "$(rb_cmd rb_write_bw) -F --report_gbits -b -q 2 -s 4096 -D 2 --csv=\$RB_CASE_DIR/server.csv --out_json --out_json_file=\$RB_CASE_DIR/server.pt.json"
sleep 1
rb_start client "bw=\$($(rb_cmd rb_write_bw) -F --report_gbits -b -q 2 -s 4096 -D 2 --report-both --output=bandwidth --out_json --out_json_file=\$RB_CASE_DIR/client.pt.json \"\$RB_IP\") && printf '%s\n' \"\$bw\" >\$RB_CASE_DIR/client.bw"
rb_wait client server &&
	[ "$(wc -l <"$(rb_file client.out)")" = 0 ] && [ "$(wc -l <"$(rb_file client.bw)")" = 1 ] &&
	grep -Eq '^[0-9]+\.[0-9]{6}$' "$(rb_file client.bw)" &&
	PT_CSV=$(rb_file server.csv) pt_check "$(rb_file client.pt.json)" \
		'list(d) == ["test_info", "results"]' 'list(d["results"]) == ["bw_avg"]' \
		"abs(d['results']['bw_avg'] - $(cat "$(rb_file client.bw)")) < 1e-6" \
		"abs(d['results']['bw_avg'] - F('bw_sum_avg_gbps')) < 1e-5" 'd["results"]["bw_avg"] > 0' \
		'd["test_info"]["test"] == "RDMA_Write_Bidirectional_BW_Test"' \
		'd["test_info"]["Number_of_qps"] == 2' 'd["test_info"]["Connection_type"] == "RC"' \
		'd["test_info"]["Link_type"] == "Ethernet"' 'd["test_info"]["Data_ex_method"] == "Ethernet"'
tap_ok $? "--output=bandwidth -b --report_gbits: \$(...) captures one number ($(cat "$(rb_file client.bw)" 2>/dev/null) Gb/s), the server's bw_sum_avg_gbps; --out_json {test_info, results: {bw_avg}}"

# ---- --cpu_util and --out_json's full results (send_bw -D 2: a window of
# 1.5 s after --warmup-time 0.5; up to 2.5 s: in a loaded lane the client
# ran 1341 messages/s and its window ended 0.29 s late, CI run of
# 2026-12-04; the window's own precision is feature/defaults.sh's): the
# client under a python3 that reads the child's CPU from the kernel
# (RUSAGE_CHILDREN) ----
cpu_run='import resource, subprocess, sys, time
t = time.monotonic(); rc = subprocess.call(sys.argv[2:]); w = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%f %f\n" % (r.ru_utime + r.ru_stime, w)); sys.exit(rc)'
rb_case "cpu_util"
rb_start server "$(rb_cmd rb_send_bw) -s 4096 -D 2 --warmup-time 0.5 --cpu_util --json=\$RB_CASE_DIR/server.json"
sleep 1
rb_start client "$RB_PY -c '$cpu_run' \$RB_CASE_DIR/client.cpu \"\$RB_BIN/rb_send_bw\" -d \"\$RB_DEV\"${RB_LANE_PORT:+ -p $RB_LANE_PORT} -s 4096 -D 2 --warmup-time 0.5 --cpu_util --csv=\$RB_CASE_DIR/client.csv --out_json --out_json_file=\$RB_CASE_DIR/client.pt.json \"\$RB_IP\""
rb_wait client server &&
	read -r kcpu kwall <"$(rb_file client.cpu)" &&
	tap_diag "cpu_util: the client's CPU by the kernel: $kcpu s in $kwall s" &&
	PT_CSV=$(rb_file client.csv) pt_check "$(rb_file client.pt.json)" \
		'0 <= F("cpu_util_pct") <= 100' 'F("cpu_user_pct") >= 0 and F("cpu_sys_pct") >= 0' \
		"(F('cpu_user_pct') + F('cpu_sys_pct')) / 100 * F('window_s') <= $kcpu + 0.05" \
		"(F('cpu_user_pct') + F('cpu_sys_pct')) / 100 * F('window_s') >= 0.3 * $kcpu * F('window_s') / $kwall" \
		'1.3 <= F("window_s") <= 2.5' \
		'list(d["results"]) == ["MsgSize", "n_iterations", "BW_peak", "BW_average", "MsgRate", "CPU_util"]' \
		'd["results"]["MsgSize"] == 4096 and d["results"]["n_iterations"] == int(c["iterations"])' \
		'd["results"]["BW_average"] == round(F("bw_avg_mibps"), 2)' 'd["results"]["BW_peak"] == 0' \
		'd["results"]["MsgRate"] == round(F("msg_rate_mpps"), 6)' 'd["results"]["CPU_util"] == round(F("cpu_util_pct"), 2)' \
		'd["test_info"]["test"] == "Send_BW_Test" and d["test_info"]["TX_depth"] > 0 and "CQ_Moderation" in d["test_info"]' &&
	rb_check "$(rb_file server.json)" 'r["cpu_util_pct"] is not None and 0 <= r["cpu_user_pct"] + r["cpu_sys_pct"] <= 110' \
		'meta["cpu_util"] == "yes"'
tap_ok $? "--cpu_util: CPU_Util[%] within 0..100; the thread's user+sys over the window within the kernel's count of the process (CSV, JSON); --out_json's keys equal our CSV's figures"

# ---- --output=latency (client, captured) against the server's CSV of the
# same traded row; the server's --out_json holds perftest's latency keys ----
rb_case "output latency"
rb_start server "$(rb_cmd rb_send_lat) -n 300 --csv=\$RB_CASE_DIR/server.csv --out_json --out_json_file=\$RB_CASE_DIR/server.pt.json"
sleep 1
rb_start client "lat=\$($(rb_cmd rb_send_lat) -n 300 --output=latency \"\$RB_IP\") && printf '%s\n' \"\$lat\" >\$RB_CASE_DIR/client.lat"
rb_wait client server &&
	[ "$(wc -l <"$(rb_file client.lat)")" = 1 ] && grep -Eq '^[0-9]+\.[0-9]{6}$' "$(rb_file client.lat)" &&
	PT_CSV=$(rb_file server.csv) pt_check "$(rb_file server.pt.json)" \
		"abs(F('lat_avg_us') - $(cat "$(rb_file client.lat)")) < 1e-5" \
		'list(d["results"]) == ["MsgSize", "n_iterations", "t_min", "t_max", "t_typical", "t_avg", "t_stdev", "percentile_99", "percentile_99.9"]' \
		'd["results"]["t_avg"] == round(F("lat_avg_us"), 2) and d["results"]["t_typical"] == round(F("lat_p50_us"), 2)' \
		'd["results"]["percentile_99.9"] == round(F("lat_p99_9_us"), 2) and d["results"]["t_min"] <= d["results"]["t_max"]' \
		'd["test_info"]["test"] == "Send_Latency_Test" and d["test_info"]["Max_inline_data"] >= 0'
tap_ok $? "--output=latency: \$(...) captures t_avg ($(cat "$(rb_file client.lat)" 2>/dev/null) usec), the server's lat_avg_us; --out_json's latency keys equal its CSV"

# ---- the human table with -N and --cpu_util under --perftest-headers:
# perftest's columns 1-5, then CPU_Util[%] (6th, as perftest's), without
# our user and system columns; -N leaves the peak empty ----
rb_bench "human -N cpu" rb_write_bw "-s 4096 -n 1000 -N --cpu_util" '--perftest-headers' '--csv=$RB_CASE_DIR/server.csv' &&
	rb_py "$(rb_file client.out)" <<'EOF' &&
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = next(k for k, l in enumerate(lines) if "#bytes" in l)
head = re.split(r"\s{2,}", lines[i].strip())
row = lines[i + 1].split()
want = ["#bytes", "#iterations", "BW peak[MiB/sec]", "BW average[MiB/sec]", "MsgRate[Mpps]", "CPU_Util[%]"]
assert head == want, head
assert len(row) == 6 and row[0] == "4096" and row[1] == "1000" and row[2] == "-", row
assert float(row[3]) > 0 and 0 <= float(row[5]) <= 100, row
EOF
	rb_check "$(rb_file server.csv)" 'r["bw_peak_mibps"] is None and r["bw_avg_mibps"] > 0' 'meta["no_peak"] == "not measured (-N)"'
tap_ok $? "human table: perftest's five columns then CPU_Util[%]; -N: the peak '-' (CSV: empty)"

# ---- --perftest-headers, a -D latency run: perftest's four columns; its
# tps average times its t_avg (read_lat: a whole round trip) is the share
# of the window spent in round trips, at most 1 ----
rb_bench "perftest headers -D" rb_read_lat "-D 1.5 --warmup-time 0.5" '--perftest-headers' &&
	rb_py "$(rb_file client.out)" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
i = next(k for k, l in enumerate(lines) if "#bytes" in l)
head = re.split(r"\s{2,}", lines[i].strip())
row = lines[i + 1].split()
assert head == ["#bytes", "#iterations", "t_avg[usec]", "tps average"], head
assert len(row) == 4 and row[0] == "2" and int(row[1]) > 0, row
busy = float(row[3]) * float(row[2]) * 1e-6
assert 0.3 < busy <= 1.01, (row, busy)
print("# tps average x t_avg = %.3f of the window" % busy)
EOF
tap_ok $? "--perftest-headers, -D latency: #bytes #iterations t_avg[usec] 'tps average', tps x t_avg within the window"

# ---- --out_json_file alone writes nothing (perftest), and says so ----
rb_bench "json file alone" rb_read_bw "-s 4096 -n 200" '--out_json_file=$RB_CASE_DIR/none.json' &&
	[ ! -e "$(rb_file none.json)" ] && grep -q 'written only with --out_json' "$(rb_file client.err)"
tap_ok $? "--out_json_file without --out_json: no file, a warning on stderr (as perftest writes none)"
