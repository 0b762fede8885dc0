# needs: one-guest lane
# What can fail without the peer fails before the peer is reached, at once,
# and every --json/--csv run leaves one document with status failed and the
# error (issue #20).  The host-side half (no device needed) is tests/cli.sh.
# Sourced by run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 7

# doc_failed FILE ROLE ERE: a failed document of ROLE whose error matches ERE.
doc_failed() {
	rb_check "$1" 'status == "failed"' "meta[\"role\"] == \"$2\"" 'meta["test"].startswith("rb_")' \
		"__import__('re').search(r'''$3''', str(doc['error'] if doc else meta.get('error')))"
}

# Nobody listens on the port: the client retries until --timeout, then says so.
rb_case "unreachable"
rb_start client "$(rb_cmd rb_send_bw) --json --timeout=0.3 -p 19999 \"\$RB_IP\""
rb_wait client
rb_failed 1 'connect' client &&
	doc_failed "$(rb_file client.out)" client 'connect|refused|reach'
tap_ok $? "rb_send_bw --json --timeout=0.3, nobody listening: exit 1, one JSON document, status failed, the error"

# -x 200: an empty entry (rxe's table has two), named before any connection.
rb_case "gid 200 client"
t0=$SECONDS
rb_start client "$(rb_cmd rb_send_bw) -x 200 --json --timeout=60 \"\$RB_IP\""
rb_wait client
secs=$((SECONDS - t0))
rb_failed 2 'GID index 200 .* is (empty|out of range).*valid indexes' client &&
	doc_failed "$(rb_file client.out)" client 'GID index 200' && [ "$secs" -lt 30 ]
tap_ok $? "client -x 200, no server: exit 2 in $secs s (--timeout=60) naming the GID index, failed document"

rb_case "gid 200 server"
rb_start server "$(rb_cmd rb_write_lat) -x 200 --json"
rb_wait server
rb_failed 2 'GID index 200' server && doc_failed "$(rb_file server.out)" server 'GID index 200'
tap_ok $? "server -x 200 --json: exit 2 when it starts, a document with status failed"

rb_case "nosuch json"
rb_start server "\"\$RB_BIN/rb_read_bw\" -d nosuch --json"
rb_start client "\"\$RB_BIN/rb_read_bw\" -d nosuch --json --timeout=60 \"\$RB_IP\""
rb_wait server client
rb_failed 1 "no RDMA device named nosuch; the devices are: .*$RB_DEV" &&
	doc_failed "$(rb_file server.out)" server 'nosuch' && doc_failed "$(rb_file client.out)" client 'nosuch'
tap_ok $? "-d nosuch --json, both sides: exit 1 listing $RB_DEV, one failed document each"

# -H to a folder that does not exist: the client never reaches the server.
rb_case "hist path"
rb_start client "$(rb_cmd rb_send_lat) -H \$RB_CASE_DIR/none/h.csv --json --timeout=60 \"\$RB_IP\""
t0=$SECONDS
rb_wait client
secs=$((SECONDS - t0))
rb_failed 1 '-H/--histogram: cannot write .*none/h.csv' client &&
	doc_failed "$(rb_file client.out)" client 'histogram' && [ "$secs" -lt 30 ]
tap_ok $? "client -H into a missing folder: exit 1 in $secs s naming -H, failed document"

# A server opens its results file when it starts; the run fills it.
rb_case "server file"
rb_start server "exec $(rb_cmd rb_send_bw) -s 4096 -n 200 --json=\$RB_CASE_DIR/server.json"
wait_listen "${RB_PAIR_PORT:-18515}"
[ -e "$(rb_file server.json)" ]
opened=$?
rb_start client "$(rb_cmd rb_send_bw) -s 4096 -n 200 \"\$RB_IP\""
rb_wait client server && [ "$opened" = 0 ] &&
	rb_check "$(rb_file server.json)" 'status == "complete"' 'bw(r, 4096, 200)'
tap_ok $? "a server's --json=FILE exists before any client comes and holds the run"

# A server stopped before any client: a failed document, exit 1.
rb_case "server stopped"
rb_start server "exec $(rb_cmd rb_send_bw) --json"
wait_listen "${RB_PAIR_PORT:-18515}"
kill -TERM "$(cat "$(rb_file server.pid)")"
rb_wait server
[ "$(cat "$(rb_file server.rc)")" = 1 ] &&
	doc_failed "$(rb_file server.out)" server 'before any client'
tap_ok $? "a --json server stopped by SIGTERM before any client: exit 1, status failed"
