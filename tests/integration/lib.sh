# tests/integration/lib.sh: what an integration case file (t_NN_name.sh) uses.
#
# run-all.sh sources this, then sources each t_*.sh in a subshell.  A case
# file calls tap_ok once per case; it must not exit by itself.
#
#   tap_ok STATUS NAME        one TAP line: "ok N - NAME" when STATUS is 0,
#                             else "not ok N - NAME" plus, as "# " comments,
#                             the tail of the last rb_pair's files.  Returns 0.
#   tap_skip NAME REASON      "ok N - NAME # SKIP REASON"
#   tap_diag TEXT...          a "# " comment line (stdout, TAP-safe)
#   rb_pair NAME 'SERVER' 'CLIENT'
#                             runs SERVER (bash -c) in the background, waits
#                             for it to listen (RB_PAIR_PORT, default 18515 as
#                             perftest and rb_* use; 10 s at most; "" = sleep
#                             1 s), then CLIENT; each under `timeout
#                             $RB_PAIR_TIMEOUT` (default 120 s), so it never
#                             hangs.  Leaves in $RB_CASE_DIR (a fresh folder):
#                             server.out server.err server.rc client.out
#                             client.err client.rc.  Returns 0 when both
#                             exited 0.
#   csv_col FILE COLUMN       the values of COLUMN (a header name or a 1-based
#                             number) of a CSV whose '#' lines are comments
#                             and whose first other line is the header.
#   json_get FILE EXPR        prints the Python expression EXPR over d, the
#                             JSON document in FILE (or the list of its
#                             objects when FILE is JSON lines), e.g.
#                             json_get f.json 'd["results"][0]["bw_avg"]'.
#   num_gt A B                true when the number A > B (floats allowed).
#
# Environment: RB_DEV, RB_GID_INDEX, RB_IP (from the test bed; RB_PEER in
# two-guest mode), RB_BIN (the built programs: $top_builddir), RB_TMP (a
# scratch folder removed at the end), top_srcdir and top_builddir.

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${RB_DEV:=rxe0}" "${RB_GID_INDEX:=1}" "${RB_IP:=192.0.2.1}"
: "${RB_PAIR_TIMEOUT:=120}" "${RB_PAIR_PORT=18515}"
RB_BIN=$top_builddir
export top_srcdir top_builddir RB_DEV RB_GID_INDEX RB_IP RB_BIN
if [ -z "${RB_TMP:-}" ]; then
	RB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rb-it.XXXXXX")
	export RB_TMP
fi
RB_CASE_DIR=""

# The TAP counter lives in a file so that case files can run in subshells.
tap_next() {
	local n
	n=$(($(cat "$RB_TMP/tap.n" 2>/dev/null || echo 0) + 1))
	echo "$n" >"$RB_TMP/tap.n"
	echo "$n"
}

tap_diag() { echo "$*" | sed 's/^/# /'; }

tap_ok() {
	local st=$1 name=$2 n f
	n=$(tap_next)
	if [ "$st" = 0 ]; then
		echo "ok $n - $name"
		return 0
	fi
	echo "not ok $n - $name"
	echo "$n $name" >>"$RB_TMP/tap.failed"
	[ -n "$RB_CASE_DIR" ] || return 0
	for f in server.rc server.err client.rc client.err client.out; do
		[ -s "$RB_CASE_DIR/$f" ] || continue
		tap_diag "--- $f"
		tail -n 15 "$RB_CASE_DIR/$f" | sed 's/^/#   /'
	done
	return 0
}

tap_skip() { echo "ok $(tap_next) - $1 # SKIP $2"; }

# Wait (at most 10 s) for a TCP listener on port $1.
wait_listen() {
	local i
	for i in $(seq 100); do
		ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

rb_pair() {
	local name=$1 server=$2 client=$3 spid src crc
	RB_CASE_DIR=$RB_TMP/$(echo "$name" | tr -c 'A-Za-z0-9_.-' _)
	rm -rf "$RB_CASE_DIR"; mkdir -p "$RB_CASE_DIR"
	timeout -k 5 "$RB_PAIR_TIMEOUT" bash -c "$server" \
		>"$RB_CASE_DIR/server.out" 2>"$RB_CASE_DIR/server.err" </dev/null &
	spid=$!
	if [ -n "$RB_PAIR_PORT" ]; then
		wait_listen "$RB_PAIR_PORT" || echo "rb_pair: nothing listens on $RB_PAIR_PORT after 10 s" >>"$RB_CASE_DIR/client.err"
	else
		sleep 1
	fi
	timeout -k 5 "$RB_PAIR_TIMEOUT" bash -c "$client" \
		>"$RB_CASE_DIR/client.out" 2>>"$RB_CASE_DIR/client.err" </dev/null
	crc=$?
	wait "$spid"
	src=$?
	echo "$src" >"$RB_CASE_DIR/server.rc"
	echo "$crc" >"$RB_CASE_DIR/client.rc"
	[ "$src" = 0 ] && [ "$crc" = 0 ]
}

csv_col() {
	awk -F, -v col="$2" '
		/^[ \t]*#/ || /^[ \t]*$/ { next }
		!hdr { hdr = 1
			if (col ~ /^[0-9]+$/) { k = col; next }
			for (i = 1; i <= NF; i++) if ($i == col) k = i
			if (!k) { print "csv_col: no column " col > "/dev/stderr"; exit 1 }
			next }
		{ print $k }' "$1"
}

json_get() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
try:
    d = json.loads(text)
except ValueError:
    d = [json.loads(l) for l in text.splitlines() if l.strip()]
v = eval(sys.argv[2], {"d": d})
print(json.dumps(v) if isinstance(v, (dict, list)) else v)
EOF
}

num_gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
