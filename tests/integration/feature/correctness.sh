# needs: one-guest quiet delay-build
# Correctness of what the programs report, checked against independent
# sources: the --raw samples, the rxe port counters (read before and after a
# run, or sampled through it), the peer's own count, the requested duration,
# and CLOCK_MONOTONIC; and which clock --clock=auto picks.  Sourced by
# run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh): --raw 2 x 10
# (LAT_RAW_CHECKS), counters 2 x 2, duration 7 + 4 (DUR_CHECKS_*), stall
# 2 x 2, test_clock 1, --clock=auto 1, -W 4, its usage errors 2.
tap_plan '2 * 10 + 2 * 2 + 7 + 4 + 2 * 2 + 1 + 1 + 4 + 2'

RB_DEV_ARGS="-d $RB_DEV -x $RB_GID_INDEX"

# ---- latency statistics against the --raw dump ----

# raw_vs_csv CSV RAW: one line per statistic of CSV's row,
# "STATUS NAME CSV_VALUE RECOMPUTED" (STATUS ok or FAIL), recomputed from
# the samples of RAW in exact arithmetic where it can be: the mean with
# fsum, the population stdev in two passes, nearest-rank percentiles with
# rank = ceil(p/100 * n) in fractions.  Agreement: 1e-9 relative.
raw_vs_csv() {
	rb_py "$1" "$2" <<'EOF'
import csv, math, sys
from fractions import Fraction

def rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if l.strip() and not l.startswith('#')))

row = rows(sys.argv[1])[0]
x = sorted(float(r['latency_ns']) for r in rows(sys.argv[2]))
n = len(x)
mean = math.fsum(x) / n
want = {'iterations': n, 'lat_min_us': x[0] / 1e3, 'lat_max_us': x[-1] / 1e3,
        'lat_avg_us': mean / 1e3,
        'lat_stdev_us': math.sqrt(math.fsum((v - mean) ** 2 for v in x) / n) / 1e3}
for col in row:
    if col.startswith('lat_p') and col.endswith('_us'):
        p = Fraction(col[5:-3].replace('_', '.'))          # lat_p99_9_us -> 99.9
        rank = max(1, min(n, math.ceil(p * n / 100)))
        want[col] = x[rank - 1] / 1e3
for col, w in want.items():
    got = float(row[col])
    good = abs(got - w) <= 1e-9 * max(abs(got), abs(w))
    print('%s %s %.9f %.9f' % ('ok' if good else 'FAIL', col, got, w))
EOF
}

# lat_raw_case PROG SIZE: run PROG with --csv and --raw, then one TAP line
# per statistic: LAT_RAW_CHECKS of them (iterations, min, max, mean, stdev,
# five percentiles), each one missing a "not ok" (tap_expect).
LAT_RAW_CHECKS=10
lat_raw_case() {
	local prog=$1 size=$2 args st csvf rawf rc
	tap_mark
	args="$RB_DEV_ARGS -s $size -n 2000"
	csvf=$RB_TMP/$prog-raw.csv rawf=$RB_TMP/$prog-raw.txt
	rb_pair "$prog raw" "$RB_BIN/$prog $args" "$RB_BIN/$prog $args --csv=$csvf --raw=$rawf $RB_IP"
	st=$?
	if [ "$st" != 0 ] || [ ! -s "$rawf" ]; then
		tap_ok 1 "$prog: runs with --csv and --raw"
		tap_expect "$LAT_RAW_CHECKS" "$prog --raw (the pair failed)"
		return
	fi
	raw_vs_csv "$csvf" "$rawf" >"$RB_TMP/$prog-raw.check" 2>&1
	rc=$?
	[ "$rc" = 0 ] || tap_diag "$(cat "$RB_TMP/$prog-raw.check")"
	while read -r status name got want; do
		case $status in ok | FAIL) ;; *) continue ;; esac
		[ "$status" = ok ]
		tap_ok $? "$prog: $name from the CSV equals its recomputation from --raw ($got vs $want)"
	done <"$RB_TMP/$prog-raw.check"
	tap_expect "$LAT_RAW_CHECKS" "$prog: raw_vs_csv" "$rc"
}

lat_raw_case rb_send_lat 64
lat_raw_case rb_read_lat 64

# ---- bandwidth counters against the rxe port counters ----

# Both ends of the pair share one rxe device, so its counters see both
# directions: sent_pkts counts the client's request packets AND the
# server's acknowledgements (rcvd_pkts the same packets on arrival).  A
# message of SIZE bytes over an RC QP with path MTU MTU is
#     P = ceil(SIZE / MTU)  request packets, each carrying min(SIZE, MTU)
#                           payload bytes when SIZE < MTU or SIZE % MTU == 0,
#     A = ceil(P / 66)      ACKs: rxe's requester asks for an ACK on the
#                           last packet of each message and after 65
#                           unacknowledged ones (RXE_MAX_PKT_PER_ACK = 64),
#                           the responder answers each such request;
# so sent_pkts grows by M * (P + A) for M messages, giving
#     M_counted = delta / (P + A),  bytes_counted = M_counted * P * min(SIZE, MTU).
# The 6.1 rxe of the test bed has no byte counter (counters/port_xmit_data
# is absent; hw_counters/sent_bytes only came in 2026, and counts whole UDP
# datagrams), which is why bytes go through the packet count and the sizes
# are chosen so that every packet's payload is known exactly.
# Retransmissions and RNR NAKs add a few packets; 1 % covers them.
counter_case() {
	local prog=$1 size=$2 iters=$3 mtu before after csvf st rc
	tap_mark
	csvf=$RB_TMP/$prog-counters.csv
	mtu=$(ibv_devinfo -d "$RB_DEV" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
	before=$(rb_hw_counter sent_pkts)
	if [ -z "$before" ] || [ -z "$mtu" ]; then
		tap_skip "$prog: messages agree with the rxe packet counters" \
			"no hw_counters/sent_pkts or active MTU on $RB_DEV"
		tap_skip "$prog: bytes agree with the rxe packet counters" \
			"no hw_counters/sent_pkts or active MTU on $RB_DEV"
		return
	fi
	rb_pair "$prog counters" "$RB_BIN/$prog $RB_DEV_ARGS -s $size -n $iters" \
		"$RB_BIN/$prog $RB_DEV_ARGS -s $size -n $iters --csv=$csvf $RB_IP"
	st=$?
	after=$(rb_hw_counter sent_pkts)
	rb_py "$csvf" "$size" "$mtu" "$before" "$after" >"$RB_TMP/$prog-counters.check" <<'EOF'
import csv, math, sys
path, size, mtu, before, after = sys.argv[1], *map(int, sys.argv[2:])
row = [r for r in csv.DictReader(l for l in open(path) if l.strip() and not l.startswith('#'))][0]
P = math.ceil(size / mtu)
A = math.ceil(P / 66)
msgs = (after - before) / (P + A)
nbytes = msgs * P * min(size, mtu)
for name, got, want in (('messages', int(row['iterations']), msgs),
                        ('bytes', int(row['bytes']), nbytes)):
    good = abs(got - want) <= 0.01 * want
    print('%s %s %d %.1f sent_pkts+%d P=%d A=%d' % ('ok' if good else 'FAIL', name, got, want,
                                                     after - before, P, A))
EOF
	rc=$?
	if [ "$st" != 0 ] || [ "$rc" != 0 ]; then
		tap_diag "$(cat "$RB_TMP/$prog-counters.check")"
		tap_ok 1 "$prog: messages and bytes agree with the rxe packet counters (the pair exited $st, the check $rc)"
		tap_expect 2 "$prog: the rxe packet counters"
		return
	fi
	tap_diag "$prog -s $size: counters $(for c in sent_pkts rcvd_pkts duplicate_request send_rnr_err rcvd_rnr_err completer_retry_err rdma_sends rdma_recvs; do printf '%s=%s ' $c "$(rb_hw_counter $c)"; done)"
	while read -r status name got want detail; do
		[ "$status" = ok ]
		tap_ok $? "$prog -s $size: $name counted ($got) within 1 % of the rxe counters ($want; $detail)"
	done <"$RB_TMP/$prog-counters.check"
	tap_expect 2 "$prog: the rxe packet counters"
}

counter_case rb_write_bw 4096 2000
counter_case rb_send_bw 64 5000

# ---- duration mode: the figures cover the measured window only ----

# duration_case PROG KIND: -D 6 with a 2 s warm-up, so a 4 s window.  The
# row must cover that window (within 10 %), and its counts must be those of
# that window, warm-up excluded, as two witnesses outside the program saw
# them (dur_check):
#  - the rxe device: its hw_counters/rdma_recvs (one per message delivered
#    into a receive: a send_lat iteration is two) read by the shell every
#    50 ms, with the shell's clock ($EPOCHREALTIME, not the program's), all
#    through the run.  The window ends where the traffic ends (the client
#    stops posting at the deadline and drains at most -t messages), so the
#    messages the row counts are those the device carried in the last
#    window_s seconds of the traffic, bounded from the samples on either
#    side of each edge, within 5 %.  A warm-up counted in the window would
#    count a further 2/4 of it: 50 % over that bound.  The rates and the
#    bandwidth are checked the same way: the device's messages over that
#    span, per second of it.
#  - rb_send_bw's server: it counts the messages it received in a window of
#    its own (its warm-up starts at its first arrival), so its count is the
#    client's within 5 %.  (rb_send_lat's server prints the client's row.)
# The window closes at the first loop turn after the deadline, so a latency
# run may overrun it by one round trip: under a loaded host the test bed's
# guest stalled for up to a second (seen: a 1.4 s round trip, when polling
# loops still took turns at the guest's 4 ms tick), hence 4 s rather than
# one, and a second, exact bound on the overrun.  (10 s until 2026-12-02:
# the two pairs, flat out, were 44 s of the guest's CPU.)
DUR_S=6 DUR_WARMUP_S=2
DUR_COUNTER=/sys/class/infiniband/$RB_DEV/ports/1/hw_counters/rdma_recvs
# DUR_CHECKS_bw and DUR_CHECKS_lat: how many lines the check prints for each
# kind (dur_check); a check that crashed or printed fewer is a "not ok" for
# each missing.
DUR_CHECKS_bw=7 DUR_CHECKS_lat=4
duration_case() {
	local prog=$1 kind=$2 csvf st args spid v rc want
	local samples=$RB_TMP/$prog-duration.samples stop=$RB_TMP/$prog-duration.stop
	want=DUR_CHECKS_$kind
	want=${!want}
	tap_mark
	csvf=$RB_TMP/$prog-duration.csv
	args="$RB_DEV_ARGS -s 1024 -D $DUR_S --warmup-time=$DUR_WARMUP_S"
	rm -f "$stop" "$samples"
	[ -r "$DUR_COUNTER" ] && { dur_sample "$samples" "$stop" & spid=$!; }
	rb_pair "$prog duration" "$RB_BIN/$prog $args --csv=${csvf%.csv}-server.csv" \
		"$RB_BIN/$prog $args --csv=$csvf $RB_IP"
	st=$?
	if [ -n "${spid:-}" ]; then
		: >"$stop"
		wait "$spid"
		read -r v <"$DUR_COUNTER" && echo "$EPOCHREALTIME $v" >>"$samples"
	fi
	if [ "$st" != 0 ]; then
		tap_ok 1 "$prog -D $DUR_S: runs"
		tap_expect "$want" "$prog -D $DUR_S (the pair failed)"
		return
	fi
	dur_check "$kind" "$csvf" "${csvf%.csv}-server.csv" "$samples" "$((DUR_S - DUR_WARMUP_S))" \
		>"$RB_TMP/$prog-duration.check" 2>&1
	rc=$?
	[ "$rc" = 0 ] || tap_diag "$(cat "$RB_TMP/$prog-duration.check")"
	while read -r status name; do
		case $status in
		ok | FAIL)
			[ "$status" = ok ]
			tap_ok $? "$prog -D $DUR_S --warmup-time=$DUR_WARMUP_S: $name"
			;;
		SKIP) tap_skip "$prog -D $DUR_S --warmup-time=$DUR_WARMUP_S: ${name%% -- *}" "${name#* -- }" ;;
		*) tap_diag "$status $name" ;;
		esac
	done <"$RB_TMP/$prog-duration.check"
	tap_expect "$want" "$prog -D $DUR_S: the duration check" "$rc"
}

# dur_sample FILE STOP: "TIME VALUE" lines in FILE, the shell's clock and
# $DUR_COUNTER, every 50 ms until the file STOP exists (no process started:
# rb_nap_ms).
dur_sample() {
	local v
	while [ ! -e "$2" ]; do
		read -r v <"$DUR_COUNTER" && echo "$EPOCHREALTIME $v"
		rb_nap_ms 50
	done >"$1"
}

# dur_check KIND CLIENT.csv SERVER.csv SAMPLES WINDOW: "ok NAME", "FAIL
# NAME" or "SKIP NAME -- WHY" lines, 7 for KIND bw, 4 for lat.
dur_check() {
	rb_py "$@" <<'EOF'
import csv, sys
kind, cpath, spath, spath_samples, want = sys.argv[1:6]
want = float(want)
def row(path):
    return [r for r in csv.DictReader(l for l in open(path) if l.strip() and not l.startswith('#'))][0]
C = row(cpath)
w, n, size = float(C['window_s']), int(C['iterations']), int(C['size_bytes'])
per = 1 if kind == 'bw' else 2          # device receives per counted message / iteration
out = [('window_s %.6f is -D less the warm-up, %g s, within 10 %%' % (w, want),
        abs(w - want) <= 0.1 * want)]

try:
    samples = [(float(t), int(v)) for t, v in (l.split() for l in open(spath_samples))]
except OSError:
    samples = []
final = samples[-1][1] if samples else 0
ends = [k for k, (t, v) in enumerate(samples) if v == final]
# The traffic ended between samples[i - 1] and samples[i]: it must have been
# sampled before the window opened and after the run ended.
i = ends[0] if ends else 0
sampled = len(samples) > 2 and 0 < i and samples[0][0] < samples[i][0] - want

def trailing(span):
    """(lo, hi): the device's messages in the last SPAN s of the traffic."""
    t_lo, t_hi = samples[i - 1][0], samples[i][0]
    after = [v for t, v in samples if t >= t_hi - span]
    before = [v for t, v in samples if t <= t_lo - span] or [samples[0][1]]
    return (samples[i - 1][1] - after[0]) / per, (final - before[-1]) / per

def device(name, got, span, scale=1.0, fmt='%d'):
    if not sampled:
        return ('SKIP %s -- no samples of %s around the run' % (name, 'rdma_recvs'), None)
    lo, hi = trailing(span)
    lo, hi = lo * scale * 0.95, hi * scale * 1.05
    total = (final - samples[0][1]) / per * scale
    return (('%s (' + fmt + ') is the device\'s over the last %.3f s of the traffic ('
             + fmt + '..' + fmt + ', 5 %% margins; all the run\'s traffic: ' + fmt + ')')
            % (name, got, span, lo, hi, total), lo <= got <= hi)

if kind == 'bw':
    S = row(spath)
    sn = int(S['iterations'])
    out += [
        ('the server counted %d messages in its own window, within 5 %% of the client\'s %d'
         % (sn, n), abs(sn - n) <= 0.05 * n),
        device('messages counted', n, w),
        device('the server\'s messages counted', sn, float(S['window_s'])),
        device('bytes', int(C['bytes']), w, size),
        device('msg_rate_mpps', float(C['msg_rate_mpps']), w, 1e-6 / w, '%.6f'),
        device('bw_avg_mibps', float(C['bw_avg_mibps']), w, size / 1048576 / w, '%.3f')]
else:
    rtt_max = 2e-6 * float(C['lat_max_us'])          # one-way figures: RTT / 2
    out += [
        # one ping-pong at a time: n round trips cannot take longer than the window
        ('%d samples of mean %s us fit in the window' % (n, C['lat_avg_us']),
         n > 0 and n * float(C['lat_avg_us']) * 2e-6 <= w * 1.001),
        ('window_s overruns %g s by at most its longest round trip (%.6f s) + 10 ms' % (want, rtt_max),
         w <= want + rtt_max + 0.01),
        device('iterations counted', n, w)]
for name, good in out:
    print(name if good is None else '%s %s' % ('ok' if good else 'FAIL', name))
EOF
}

duration_case rb_send_bw bw
duration_case rb_send_lat lat

# stall_case PROG EXTRA: a -D 2 run (0.5 s warm-up) whose client stalls from
# before its window opens to after it closes counts nothing; it must say
# failed (exit 1, the status line, a message), never complete with 0.  The
# stall is the --enable-test-delay build's busy wait before each post
# (RB_TEST_DELAY_NS, 3 s: longer than the whole run), in the client only.
stall_bin=${RB_DELAY_BIN:-$top_srcdir/build-delay}
stall_case() {
	local prog=$1 extra=$2 csvf=$RB_TMP/$1-stall.csv args name
	name="$prog -D 2, a stall over the whole window"
	if ! grep -qs 'define RB_TEST_DELAY 1' "$stall_bin/config.h" || ! [ -x "$stall_bin/$prog" ]; then
		tap_skip "$name: exit 1, status failed" "no --enable-test-delay build in $stall_bin"
		tap_skip "$name: the server does not say success" "no --enable-test-delay build in $stall_bin"
		return
	fi
	args="$RB_DEV_ARGS -s 64 -D 2 --warmup-time=0.5 $extra"
	rb_pair "$prog stall" "$RB_BIN/$prog $args" \
		"RB_TEST_DELAY_NS=3000000000 $stall_bin/$prog $args --csv=$csvf $RB_IP"
	[ "$(cat "$RB_CASE_DIR/client.rc")" = 1 ] && grep -q '"status":"failed"' "${csvf%.csv}.meta.json" &&
		grep -q 'no message completed in the' "$RB_CASE_DIR/client.err"
	tap_ok $? "$name: client exit 1 (got $(cat "$RB_CASE_DIR/client.rc")), status failed, a message"
	[ "$(cat "$RB_CASE_DIR/server.rc")" != 0 ]
	tap_ok $? "$name: the server does not say success either (exit $(cat "$RB_CASE_DIR/server.rc"))"
}

stall_case rb_send_lat ""
stall_case rb_write_bw "-Q 1"

# ---- the clock, here (the unit test measures it on the build host) ----

if [ -x "$top_builddir/tests/unit/test_clock" ]; then
	"$top_builddir/tests/unit/test_clock" >"$RB_TMP/test_clock.out" 2>&1
	st=$?
	tap_diag "in the test bed ($(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) clocksource): $(grep -h '^# \|^not ok' "$RB_TMP/test_clock.out" | sed 's/^# //' | paste -sd';' -)"
	tap_ok "$st" "test_clock passes in the test bed (a 200 ms sleep agrees with CLOCK_MONOTONIC within 0.1 %)"
else
	tap_skip "test_clock passes in the test bed" "tests/unit/test_clock not built (make check builds it)"
fi

# The duration cases above ran on the default clock, --clock=auto: on x86-64
# it must be the TSC unless the kernel's clocksource already is (a VM on
# HPET, like the test bed, pays ~1.2 us per clock_gettime otherwise).
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
clk=$(rb_meta_lines "$RB_TMP/rb_send_lat-duration.csv" | sed -n 's/^# clock=//p')
case "$(uname -m):$cs" in
x86_64:tsc) want=CLOCK_MONOTONIC ;;
x86_64:?*) want=TSC ;;
*) want="" ;;
esac
if [ -n "$want" ]; then
	[ "$clk" = "$want" ]
	tap_ok $? "--clock=auto on the $cs clocksource reads $want (the -D run's clock: '$clk')"
else
	# the machine's architecture, not anything CI could install
	tap_skip_machine "--clock=auto reads the TSC where clock_gettime is slow" "not x86-64, or no clocksource ($(uname -m), '$cs')"
fi

# ---- -W/--report-counters against an outside read of the same counters ----

# The row's ctr_ columns cover the client's measuring loop only; reads of
# the same files before the server starts and after the client ends cover
# that and more (connection setup, the OOB exchange's neighbours, teardown).
# So each delta lies between the packets the writes must take (each 2-byte
# write is at least one packet: 5000) and the outside delta.  The server
# only serves the memory: its row is the client's, counters included.
report_counters_case() {
	local p=/sys/class/infiniband/$RB_DEV/ports/1/hw_counters w=hw_counters/sent_pkts,rcvd_pkts
	local args="$RB_DEV_ARGS -s 2 -n 5000 -W $w" s0 r0 s1 r1 st
	tap_mark
	if [ ! -r "$p/sent_pkts" ] || [ ! -r "$p/rcvd_pkts" ]; then
		for w in ctr_sent_pkts ctr_sent_pkts_server ctr_rcvd_pkts ctr_rcvd_pkts_server; do
			tap_skip "-W: rb_write_bw's $w agrees with an outside read" "no $p/sent_pkts, rcvd_pkts"
		done
		return
	fi
	s0=$(cat "$p/sent_pkts") r0=$(cat "$p/rcvd_pkts")
	rb_pair "rb_write_bw -W" "$RB_BIN/rb_write_bw $args --csv=$RB_TMP/W-server.csv" \
		"$RB_BIN/rb_write_bw $args --csv=$RB_TMP/W-client.csv $RB_IP"
	st=$?
	s1=$(cat "$p/sent_pkts") r1=$(cat "$p/rcvd_pkts")
	if [ "$st" != 0 ]; then
		tap_ok 1 "-W $w: rb_write_bw runs (client $(cat "$RB_CASE_DIR/client.rc"), server $(cat "$RB_CASE_DIR/server.rc"))"
		tap_diag "$(cat "$RB_CASE_DIR/client.err" "$RB_CASE_DIR/server.err")"
		tap_expect 4 "-W (the pair failed)"
		return
	fi
	rb_py "$RB_TMP/W-client.csv" "$RB_TMP/W-server.csv" $((s1 - s0)) $((r1 - r0)) \
		>"$RB_TMP/W.check" 2>&1 <<'PY'
import csv, sys
def row(path):
    return [r for r in csv.DictReader(l for l in open(path) if l.strip() and not l.startswith('#'))][0]
client, server = row(sys.argv[1]), row(sys.argv[2])
for col, outside in (('ctr_sent_pkts', int(sys.argv[3])), ('ctr_rcvd_pkts', int(sys.argv[4]))):
    got = int(client.get(col) or -1)
    print('%s %s %d 5000..%d' % ('ok' if 5000 <= got <= outside else 'FAIL', col, got, outside))
    print('%s %s_server %s %d' % ('ok' if server.get(col) == client.get(col) else 'FAIL', col,
                                  server.get(col), got))
PY
	if [ $? != 0 ]; then
		tap_ok 1 "-W: the rows carry ctr_sent_pkts and ctr_rcvd_pkts"
		tap_diag "$(cat "$RB_TMP/W.check" "$RB_TMP/W-client.csv")"
		tap_expect 4 "-W: the counter check"
		return
	fi
	while read -r status col got want; do
		[ "$status" = ok ]
		case $col in
		*_server) tap_ok $? "-W: the server prints the client's ${col%_server} ($got; client $want)" ;;
		*) tap_ok $? "-W: $col $got within $want (5000 writes, at most the outside read's delta)" ;;
		esac
	done <"$RB_TMP/W.check"
	tap_expect 4 "-W: the counter check"
}

report_counters_case
usage_case 'nosuch.*'"$RB_DEV"'|'"$RB_DEV"'.*nosuch' rb_write_bw -d "$RB_DEV" -x "$RB_GID_INDEX" -W nosuch
tap_ok $? "usage: rb_write_bw -W nosuch (a server) exits 2 naming the counter and the device"
usage_case '-W/--report-counters.*a/b' rb_write_bw -W a/b
tap_ok $? "usage: rb_write_bw -W a/b exits 2 naming -W/--report-counters and the entry"
