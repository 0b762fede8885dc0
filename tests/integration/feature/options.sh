# needs: one-guest lane
# Cases that cut across the benchmarks: output formats, GID choice, the
# parameter check between the sides, how a server takes its clients, usage
# errors.  Sourced by run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 22

# ---- output ----

# The human table (server, MiB/s) and --report_gbits (client, Gb/s).
table_row() { # FILE HEADER-PART: the fields of the line after the header
	awk -v h="$2" 'found { print; exit } index($0, "#bytes") && index($0, h) { found = 1 }' "$1"
}
rb_bench "human bw" rb_write_bw "-s 4096 -n 200" '--report_gbits' &&
	table_row "$(rb_file server.out)" 'BW average[MiB/sec]' | grep -Eq '^ *4096 +200 ' &&
	table_row "$(rb_file client.out)" 'BW average[Gb/sec]' | grep -Eq '^ *4096 +200 ' &&
	! grep -q 'MiB/sec' "$(rb_file client.out)"
tap_ok $? "human table: '#bytes' and 'BW average[MiB/sec]' header and row; --report_gbits: [Gb/sec]"

rb_bench "human lat" rb_read_lat "-n 200" &&
	table_row "$(rb_file client.out)" 't_typical[usec]' | grep -Eq '^ *2 +200 '
tap_ok $? "human table: '#bytes' and 't_typical[usec]' header and row"

# --csv without a file: stdout is CSV only, diagnostics go to stderr.
csv_only=('lat(r, 2, 200)' 'comments == 0' 'side is None'
	'all(l.count(",") == len(header) - 1 for l in lines)')
rb_bench "csv stdout" rb_read_lat "-n 200 --csv" &&
	rb_check "$(rb_file client.out)" "${csv_only[@]}" -- "$(rb_file server.out)" "${csv_only[@]}" &&
	grep -q 'waiting for a client' "$(rb_file server.err)"
tap_ok $? "--csv on stdout: the header and rows of its width, nothing else; diagnostics on stderr"

# --json to a file (client) and to stdout (server).
json_ok=('doc["schema_version"] == 1' 'status == "complete"' 'doc["error"] is None'
	'meta["device"] == E["RB_DEV"]' 'bw(r, 4096, 500)' 'isinstance(doc["title"], str)')
rb_bench "json" rb_send_bw "-s 4096 -n 500" '--json=$RB_CASE_DIR/client.json' '--json' &&
	rb_check "$(rb_file client.json)" "${json_ok[@]}" -- "$(rb_file server.out)" "${json_ok[@]}"
tap_ok $? "--json: schema_version 1, meta.device, status complete, one result"

# ---- GID: chosen (server) or -x (client); --verbose says why ----

rb_csv "gid" rb_send_bw "-s 4096 -n 200 --verbose" '-x $RB_GID_INDEX' &&
	rb_check "$(rb_file server.csv)" 'meta["gid_index"] == int(E["RB_GID_INDEX"])' \
	-- "$(rb_file client.csv)" 'meta["gid_index"] == int(E["RB_GID_INDEX"])' &&
	grep -Eq "GID index $RB_GID_INDEX \((RoCE|IB).+\)" "$(rb_file server.err)" &&
	grep -Eq "GID index $RB_GID_INDEX \(-x $RB_GID_INDEX\)" "$(rb_file client.err)"
tap_ok $? "GID: chosen without -x is index $RB_GID_INDEX, with the reason on stderr; -x $RB_GID_INDEX is used"

# ---- both sides must run the same test ----

rb_bench "mismatch -s" rb_send_bw "-n 100" '-s 65536' '-s 4096'
rb_failed 1 'size \(-s\) differs: (server 4096, client 65536|client 65536, server 4096)' &&
	! grep -v 'size (-s)' "$(rb_file server.err)" "$(rb_file client.err)" | grep -q differs
tap_ok $? "-s 4096 vs -s 65536: both exit 1 naming only the size"

rb_bench "mismatch -n -q -c" rb_send_bw "-s 4096" '-n 200 -q 2 -c UC' '-n 100 -q 1 -c RC'
rb_failed 1 'iterations \(-n\) differs' && rb_failed 1 'QPs \(-q\) differs' &&
	rb_failed 1 'transport \(-c\) differs: (server RC, client UC|client UC, server RC)'
tap_ok $? "-n, -q and -c differ: both exit 1 naming each"

# ---- perftest's command-line forms (cli/compat.c, rdmabench(7)) ----

# As perftest's users type them: the host first, values attached (-q4,
# -n10, -s64), bundled flags (-bF), prefixes (--iter, --bidir,
# --report_gbit), perftest's names (--tos, --disable_numa), -m 65536 (not
# an MTU: the port's active one, with a warning, as perftest).
t_compat=$SECONDS
rb_pair "perftest forms" \
	"$(rb_cmd rb_write_bw) -q4 -n10 -s64 -bF -m 65536 --tos 0 --csv=\$RB_CASE_DIR/server.csv" \
	"$(rb_cmd rb_write_bw) \"\$RB_IP\" -q 4 --iter 10 --size 64 --bidir --report_gbit --disable_numa -F --csv=\$RB_CASE_DIR/client.csv"
forms=('bw(r, 64, 40)' 'meta["qps"] == 4' 'meta["bidirectional"] == "yes"')
rb_check "$(rb_file server.csv)" "${forms[@]}" 'meta["mtu_bytes"] in (256, 512, 1024, 2048, 4096)' \
	-- "$(rb_file client.csv)" "${forms[@]}" &&
	grep -q 'active MTU is used' "$(rb_file server.err)"
tap_ok $? "perftest forms: host first, -q4 -n10 -s64 -bF, --iter --bidir --report_gbit --tos --disable_numa; -m 65536 warns and runs the active MTU"

# -q 1024 (perftest takes up to 16384; the exchange here carries 1024): with
# -t 16 the CQs fit rxe's max_cqe; with perftest's -t 128 they do not, and
# the error says which option to lower (exit 2: the options ask more than
# the device has).  (-n counts per QP: the row's iterations are all QPs'.)
rb_pair "1024 QPs" "$(rb_cmd rb_write_bw) -q 1024 -t 16 -n 2 -s 64 --csv=\$RB_CASE_DIR/server.csv" \
	"$(rb_cmd rb_write_bw) -q 1024 -t 16 -n 2 -s 64 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
rb_check "$(rb_file client.csv)" 'bw(r, 64, 2048)' 'meta["qps"] == 1024' -- "$(rb_file server.csv)" 'meta["qps"] == 1024'
tap_ok $? "-q 1024 -t 16: 1024 QPs connect and run"
rb_case "1024 QPs, -t 128"
rb_start client "$(rb_cmd rb_write_bw) --loopback -q 1024 -n 2 -s 64"
rb_wait client
rb_failed 2 "send CQ needs 131072 entries \(-t 128 x 1024 QPs\), over .*max_cqe [0-9]+: give -t [0-9]+ or less" client
tap_ok $? "-q 1024 at -t 128: exit 2 naming the CQ, the device's max_cqe and the -t that fits"
tap_diag "perftest forms, 1024 QPs: $((SECONDS - t_compat)) s"

# ---- how a server takes clients ----

# A client started first retries until its server listens.
rb_case "client first"
rb_start client "$(rb_cmd rb_send_bw) -s 4096 -n 200 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
sleep 2
rb_start server "$(rb_cmd rb_send_bw) -s 4096 -n 200"
rb_wait client server &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 200)'
tap_ok $? "a client started 2 s before its server connects by retrying"

# A second client while one is served is refused with BUSY by the server's
# refuser, which runs only while a client is served.  (How long the refused
# client took is only reported: under a loaded emulator starting a process
# alone can take seconds.)
# The pair sleeps on events (-e) rather than polling both CPUs of the test
# bed: the second client opens its device before it connects, and must get
# there while the first run lasts (-D 8: a program starts in 0.03-0.1 s in
# the test bed, its pages cached; 15 s burnt ~10 s of the guest's CPU more).
rb_case "busy"
rb_start server "$(rb_cmd rb_send_bw) -s 4096 -D 8 -e --verbose"
wait_listen "${RB_PAIR_PORT:-18515}"
rb_start client "$(rb_cmd rb_send_bw) -s 4096 -D 8 -e --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
for i in $(seq 100); do
	rb_has "$(rb_file server.err)" 'client .* connected' && break
	rb_nap 0.1
done
t0=$(date +%s%N)
rb_start client2 "$(rb_cmd rb_send_bw) -s 4096 -D 8 -e \"\$RB_IP\""
rb_wait client2
tap_diag "second client: exit $(cat "$(rb_file client2.rc)") after $((($(date +%s%N) - t0) / 1000000)) ms"
rb_failed 1 'busy' client2 || { tap_diag "client2.err: $(cat "$(rb_file client2.err)")"; false; }
refused=$?
rb_wait client server
[ "$refused" = 0 ] && grep -q 'refusing client .*busy' "$(rb_file server.err)" &&
	rb_wait client server && rb_check "$(rb_file client.csv)" 'r["iterations"] > 0'
tap_ok $? "a second client is refused while one is served (server busy); the first one completes"

# --persistent: two clients in a row, then SIGTERM ends the server, exit 0.
rb_case "persistent"
rb_start server "exec $(rb_cmd rb_send_bw) --persistent -s 4096 -n 200"
wait_listen "${RB_PAIR_PORT:-18515}"
rb_start client "$(rb_cmd rb_send_bw) -s 4096 -n 200 --csv=\$RB_CASE_DIR/client.csv \"\$RB_IP\""
rb_wait client &&
	rb_start client2 "$(rb_cmd rb_send_bw) -s 4096 -n 200 --csv=\$RB_CASE_DIR/client2.csv \"\$RB_IP\"" &&
	rb_wait client2
st=$?
kill -TERM "$(cat "$(rb_file server.pid)")"
rb_wait server && [ "$st" = 0 ] &&
	[ "$(grep -c 'BW average' "$(rb_file server.out)")" = 2 ] &&
	rb_check "$(rb_file client.csv)" 'bw(r, 4096, 200)' \
	-- "$(rb_file client2.csv)" 'bw(r, 4096, 200)'
tap_ok $? "--persistent: one server serves two clients in a row, exits 0 on SIGTERM"

# ---- errors ----

usage_case '-s/--size' rb_send_bw -s 0
tap_ok $? "usage: rb_send_bw -s 0 exits 2 naming -s/--size"
usage_case '-s/--size' rb_send_bw -c UD -s 8192
tap_ok $? "usage: rb_send_bw -c UD -s 8192 exits 2 naming -s/--size"
usage_case '-c/--connection' rb_read_bw -c UD
tap_ok $? "usage: rb_read_bw -c UD exits 2 naming -c/--connection"
usage_case '-q/--qp.*not supported' rb_send_lat -q 2
tap_ok $? "usage: rb_send_lat -q 2 exits 2 naming -q/--qp"
usage_case '-q/--qp: 1025 is out of range \(1\.\.1024: the QP exchange carries at most 1024' rb_write_bw -q 1025
tap_ok $? "usage: rb_write_bw -q 1025 exits 2 naming the limit and why"
usage_case '-n/--iters' rb_write_bw -n 10 -D 2
tap_ok $? "usage: rb_write_bw -n 10 -D 2 exits 2 naming -n/--iters"
usage_case '-R/--rdma-cm' rb_send_bw -c UD -R
tap_ok $? "usage: rb_send_bw -c UD -R exits 2 naming -R/--rdma-cm"

# An unknown device: a server fails before it waits for a client; a client
# fails before it reaches its server (feature/local_errors.sh: the documents).
rb_case "nosuch server"
rb_start server "\"\$RB_BIN/rb_send_bw\" -d nosuch"
rb_wait server
rb_failed 1 "no RDMA device named nosuch; the devices are: .*$RB_DEV" server
tap_ok $? "rb_send_bw -d nosuch (server) exits 1 at once naming the device and the devices there are"

rb_case "nosuch client"
rb_start client "\"\$RB_BIN/rb_send_bw\" -d nosuch --timeout=60 \"\$RB_IP\""
t0=$SECONDS
rb_wait client
rb_failed 1 "no RDMA device named nosuch; the devices are: .*$RB_DEV" client &&
	[ $((SECONDS - t0)) -lt 30 ]
tap_ok $? "rb_send_bw -d nosuch HOST (client, no server) exits 1 in $((SECONDS - t0)) s (--timeout=60) naming the device"
