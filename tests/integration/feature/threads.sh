# needs: 4-cpus
# -j/--threads: N measuring threads in one process, in one guest of
# --cpus 4 (tests/rxe-threads.sh).  Sourced by run-all.sh (see lib.sh).
#
# For rb_write_bw and rb_send_bw, -j 1, 2 and 4 side by side, the client's
# JSON checked: the total row counts exactly the sum of the threads'
# messages and bytes, each thread its own -n, the total's window spans the
# threads' windows; each thread ran on its own CPU (the cpu each thread
# read with sched_getcpu() when its loop ended is the one the metadata's
# thread_cpus lists for it, and they are distinct); and the messages the
# rxe packet counters saw agree with the total (the method of
# feature/correctness.sh).  Then read_bw and atomic_bw, -b, -D, --thread-rows,
# a thread count that differs between the sides, and the usage errors.
# The figures side by side go to $RB_TMP/threads.txt (results/threads/).

RB_DEV_ARGS="-d $RB_DEV -x $RB_GID_INDEX"
TH_TABLE=$RB_TMP/threads.txt

hw_counter() {
	local p=/sys/class/infiniband/$RB_DEV/ports/1 f
	for f in "$p/hw_counters/$1" "$p/counters/$1"; do
		[ -r "$f" ] && { cat "$f"; return; }
	done
}

# The packets sent, then those that only repeat or refuse others: an RNR
# NAK (send_rnr_err), a request sent again after one (rcvd_rnr_err) or after
# a timeout (completer_retry_err), a request that arrived again or out of
# sequence (duplicate_request, out_of_seq_request).  With eight threads
# busy on four vCPUs a receiver falls behind now and then: each such event
# is one packet more on the wire than the messages need, and a requester's
# retry (rcvd_rnr_err, completer_retry_err) sends again up to its send
# queue's worth of messages (th_check).
TH_COUNTERS="sent_pkts send_rnr_err rcvd_rnr_err completer_retry_err duplicate_request out_of_seq_request"
th_counters() {
	local c v
	for c in $TH_COUNTERS; do
		v=$(hw_counter "$c")
		printf '%s ' "${v:-0}"
	done
}

# th_check FILE J N SIZE MTU BEFORE AFTER PROG: the checks above on a
# client's JSON, one "ok WHAT" or "FAIL WHAT" line each (TH_CHECKS_1 of
# them with -j 1, TH_CHECKS_J with more), then a "row" line for the table.
# BEFORE empty: the counter check is a "skip WHAT" line.
TH_CHECKS_1=4 TH_CHECKS_J=12
th_check() {
	rb_py "$@" <<'EOF'
import json, math, sys
path, j, n, size, mtu, before, after, prog = sys.argv[1:9]
j, n, size = int(j), int(n), int(size)
d = json.load(open(path))
meta, r = d["meta"], d["results"][0]
out = []
def check(what, cond):
    out.append(("ok " if cond else "FAIL ") + what)
check("status complete (%s)" % d["status"], d["status"] == "complete")
threads = r.get("threads", [])
if j == 1:
    check("-j 1: no threads array, no thread column", not threads and "thread" not in r)
    check("-j 1: iterations %s == -n %d" % (r["iterations"], n), r["iterations"] == n)
else:
    cpus = [int(c) for c in str(meta.get("thread_cpus", "")).split(",") if c.isdigit()]
    check("meta threads %s == %d" % (meta.get("threads"), j), meta.get("threads") == j)
    check("%d threads in the row" % len(threads), len(threads) == j)
    check("total thread 'all', no CPU", r.get("thread") == "all" and r.get("cpu") is None)
    its = [t["iterations"] for t in threads]
    check("each thread counted -n %d: %s" % (n, its), its == [n] * j)
    check("total iterations %d == sum of the threads' %d" % (r["iterations"], sum(its)),
          r["iterations"] == sum(its))
    check("total bytes %d == sum of the threads' %d" % (r["bytes"], sum(t["bytes"] for t in threads)),
          r["bytes"] == sum(t["bytes"] for t in threads))
    check("thread_cpus %s: %d distinct CPUs" % (cpus, j), len(cpus) == j and len(set(cpus)) == j)
    seen = [t["cpu"] for t in threads]
    check("each thread ran on its CPU: sched_getcpu %s == thread_cpus %s" % (seen, cpus),
          seen == cpus)
    check("total window %.6f >= every thread's (%s)" % (r["window_s"], [t["window_s"] for t in threads]),
          all(r["window_s"] >= t["window_s"] - 1e-9 for t in threads))
    check("total has no peak", r["bw_peak_mibps"] is None)
if before.strip():
    delta = [int(a) - int(b) for a, b in zip(after.split(), before.split())]
    extra = sum(delta[1:])
    P = math.ceil(size / int(mtu))
    A = math.ceil(P / 66)
    msgs = (delta[0] - extra) / (P + A)
    # A requester that took an RNR NAK or timed out goes back to the first
    # unacknowledged message and sends again all that followed (go-back-N):
    # at most its send queue, tx_depth messages, each time.  Those packets
    # are no message of ours, and no counter says how many there were.
    rewinds = delta[2] + delta[3]
    depth = int(meta.get("tx_depth") or 0)
    lo = msgs - rewinds * depth
    check("rxe counters: %.1f messages (sent_pkts +%d, less %d retries and NAKs, P=%d A=%d; "
          "%d go-back-N rewinds of at most %d messages) within 1 %% of the total %d"
          % (msgs, delta[0], extra, P, A, rewinds, depth, r["iterations"]),
          lo - 0.01 * msgs <= r["iterations"] <= msgs * 1.01)
else:
    out.append("skip rxe counters: no hw_counters/sent_pkts or active MTU on the device")
per = " ".join("%.4f" % t["msg_rate_mpps"] for t in threads) or "-"
out.append("row %s %d %d %.4f %.2f %.6f %s" % (prog, j, size, r["msg_rate_mpps"], r["bw_avg_mibps"],
                                             r["window_s"], per))
print("\n".join(out))
EOF
}

# th_report NAME FILE: one tap_ok per check line; the row to the table.
th_report() {
	local name=$1 status what
	while read -r status what; do
		case $status in
		ok) tap_ok 0 "$name: $what" ;;
		FAIL) tap_ok 1 "$name: $what" ;;
		skip) tap_skip "$name: ${what%%:*}" "${what#*: }" ;;
		row) echo "$what" >>"$TH_TABLE" ;;
		esac
	done <"$2"
}

# th_run PROG J SIZE N: a pair with -j J, the client's JSON checked.
th_run() {
	local prog=$1 j=$2 size=$3 n=$4 mtu before after name="$1 -j $2" want=$TH_CHECKS_J rc
	[ "$j" = 1 ] && want=$TH_CHECKS_1
	tap_mark
	mtu=$(ibv_devinfo -d "$RB_DEV" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
	before=$(th_counters)
	[ -n "$mtu" ] && [ -n "$(hw_counter sent_pkts)" ] || before=""
	rb_bench "$name" "$prog" "-x $RB_GID_INDEX -s $size -n $n -j $j" '--json=$RB_CASE_DIR/client.json'
	if [ $? != 0 ]; then
		tap_ok 1 "$name -s $size -n $n: both sides exit 0"
		tap_expect "$want" "$name (the pair failed)"
		return
	fi
	after=$(th_counters)
	th_check "$RB_CASE_DIR/client.json" "$j" "$n" "$size" "${mtu:-0}" "$before" "$after" "$prog" \
		>"$RB_CASE_DIR/check" 2>&1
	rc=$?
	[ "$rc" = 0 ] || tap_diag "$(cat "$RB_CASE_DIR/check")"
	th_report "$name" "$RB_CASE_DIR/check"
	# a checker that crashed (a python3 exception: no line) is a "not ok" for each check
	tap_expect "$want" "$name: th_check" "$rc"
}

# The cases below (tap_plan: lib.sh): two programs at -j 1, 2 and 4, each
# run's checks, then 11.
tap_plan "2 * (TH_CHECKS_1 + 2 * TH_CHECKS_J) + 11"

: >"$TH_TABLE"
tap_diag "guest: $(nproc) CPUs"
for j in 1 2 4; do
	th_run rb_write_bw "$j" 4096 1000
	th_run rb_send_bw "$j" 64 2000
done
tap_diag "prog threads size total_mpps total_mibps window_s per-thread_mpps:"
tap_diag "$(cat "$TH_TABLE")"

# ---- the other bandwidth tests, -b, -D ----

# th_sum NAME PROG ARGS CHECK...: a pair with -j 2 and ARGS; rb_check on
# the client's JSON (r: the total row, T: its threads).
th_sum() {
	local name=$1 prog=$2 args=$3
	shift 3
	rb_bench "$name" "$prog" "-x $RB_GID_INDEX -j 2 $args" '--json=$RB_CASE_DIR/client.json' &&
		rb_check "$RB_CASE_DIR/client.json" "status == 'complete'" \
			"len(rows[0]['threads']) == 2" \
			"rows[0]['iterations'] == sum(t['iterations'] for t in rows[0]['threads'])" "$@"
}

th_sum "read_bw -j 2" rb_read_bw "-s 1024 -n 1000" "[t['iterations'] for t in rows[0]['threads']] == [1000, 1000]"
tap_ok $? "rb_read_bw -j 2: the total counts the sum of the threads' reads, 1000 each"
th_sum "atomic_bw -j 2" rb_atomic_bw "-n 1000 -q 2" "[t['iterations'] for t in rows[0]['threads']] == [2000, 2000]"
tap_ok $? "rb_atomic_bw -j 2 -q 2: each thread 2 QPs x 1000, the total their sum"
th_sum "write_bw -j 2 -b" rb_write_bw "-s 1024 -n 1000 -b" \
	"rows[0]['rx_iterations'] == sum(t['rx_iterations'] for t in rows[0]['threads']) == 2000" \
	"rows[0]['sum_iterations'] == 4000"
tap_ok $? "rb_write_bw -j 2 -b: tx and rx totals are the sums of the threads'"
th_sum "send_bw -j 2 -b" rb_send_bw "-s 64 -n 2000 -b" \
	"rows[0]['rx_iterations'] == sum(t['rx_iterations'] for t in rows[0]['threads']) == 4000"
tap_ok $? "rb_send_bw -j 2 -b: the receives' total is the sum of the threads'"
th_sum "write_bw -j 2 -D" rb_write_bw "-s 1024 -D 4 --warmup-time=1" \
	"all(2.7 <= t['window_s'] <= rows[0]['window_s'] for t in rows[0]['threads'])" \
	"rows[0]['window_s'] <= 4.5" \
	"rows[0]['bytes'] == sum(t['bytes'] for t in rows[0]['threads'])"
tap_ok $? "rb_write_bw -j 2 -D 4: both threads measured the 3 s window (at least 2.7 s), the total spans theirs (at most 4.5 s: a stalled guest closes a window late)"

# ---- --thread-rows: a row per thread in CSV ----
rb_bench "thread rows" rb_send_bw "-x $RB_GID_INDEX -j 2 -s 64 -n 500" '--csv=$RB_CASE_DIR/client.csv --thread-rows' &&
	rb_check "$RB_CASE_DIR/client.csv" "[x['thread'] for x in rows] == ['all', 0, 1]" \
		"rows[0]['iterations'] == rows[1]['iterations'] + rows[2]['iterations'] == 1000" \
		"rows[0]['cpu'] is None and rows[1]['cpu'] is not None"
tap_ok $? "--thread-rows: CSV has the total, then thread 0 and 1 with their CPU"

# ---- a thread count that differs, usage errors ----
rb_pair "threads differ" "$(rb_cmd rb_write_bw) -x $RB_GID_INDEX -s 64 -n 100 -j 2" \
	"$(rb_cmd rb_write_bw) -x $RB_GID_INDEX -s 64 -n 100 -j 1 \"\$RB_IP\""
rb_failed 1 'threads \(-j\) differs: (client 1, server 2|server 2, client 1)'
tap_ok $? "-j 2 against -j 1: both sides exit 1 naming the thread counts"
usage_case '-j/--threads: 0 is out of range' rb_write_bw -j 0 127.0.0.1
tap_ok $? "-j 0: usage error (exit 2)"
usage_case '-j/--threads 2 cannot be combined with -R' rb_write_bw -j 2 -R 127.0.0.1
tap_ok $? "-j 2 -R: usage error naming both"
usage_case '-j/--threads 2 cannot be combined with --cpu' rb_send_bw -j 2 --cpu 0 127.0.0.1
tap_ok $? "-j 2 --cpu: usage error naming both"
usage_case 'not supported by rb_write_lat' rb_write_lat -j 2 127.0.0.1
tap_ok $? "rb_write_lat -j 2: usage error (bandwidth tests only)"
