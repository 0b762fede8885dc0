# shellcheck shell=bash
# tests/integration/lib/prometheus.sh, sourced by the case files that scrape
# metrics (rb_mesh's /metrics, a node_exporter textfile...): one Debian
# prometheus (package prometheus, 2.42 in Debian 12; the test bed's guests
# see the host's, scripts/testbed/rb-testbed --install) at a time.
#
#   prom_start DIR TARGET...  writes DIR/prometheus.yml (scrape and evaluation
#                             interval 1 s, job "rb", the TARGETs HOST:PORT,
#                             path /metrics), starts prometheus with its TSDB
#                             in DIR/data, its log in DIR/prometheus.log, on
#                             127.0.0.1:$PROM_PORT (default 19090), and waits
#                             (PROM_WAIT_S, default 120 s: under emulation it
#                             starts in ~5-30 s) for /-/ready.  Returns 1,
#                             with the log's tail on stderr, when it did not
#                             become ready (it is then stopped), or at once
#                             when something answers on that port already.
#   prom_query EXPR           the instant query EXPR (/api/v1/query) as plain
#                             lines "LABELS VALUE", LABELS as in the text
#                             format (name{k="v",...}, keys sorted; "{}" for
#                             none), one a series (a range vector: one a
#                             sample); a scalar or string: "VALUE" alone.
#                             Nothing when the result is empty.  Returns 1
#                             (the error on stderr) when the query failed or
#                             no answer came within PROM_HTTP_S (10 s).
#   prom_wait EXPR [S]        prom_query EXPR until it prints something,
#                             at most S seconds (default 30); its lines.
#                             Returns 1 (the log's tail on stderr) when none
#                             came: a target is scraped only every second.
#   prom_stop                 stops it (TERM, then KILL after 10 s).
#   prom_mesh_ready N LABEL [TOOL...]
#                             0 when rb_mesh is built and prometheus (and
#                             each TOOL) installed; else N tap_skips
#                             "LABEL, check I" saying which, and 1.
#
# The HTTP calls go through python3 (json, urllib), the readiness polls
# through bash's /dev/tcp (no process: each costs ~50 ms under emulation).

PROM_PID="" PROM_DIR="" PROM_ADDR=""

# prom_yml TARGET...: the configuration, on stdout.
prom_yml() {
	local t
	printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n'
	printf 'scrape_configs:\n  - job_name: rb\n    metrics_path: /metrics\n'
	printf '    static_configs:\n      - targets:\n'
	for t in "$@"; do printf "          - '%s'\n" "$t"; done
}

# prom_connect: a connection to PROM_ADDR, its descriptor in fd (bash's /dev/tcp).
prom_connect() {
	{ exec {fd}<>"/dev/tcp/${PROM_ADDR%:*}/${PROM_ADDR##*:}"; } 2>/dev/null
}

# prom_http_ok PATH: true when GET PATH answers 200 (2 s at most).
prom_http_ok() {
	local fd line
	prom_connect || return 1
	printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" "$PROM_ADDR" >&"$fd"
	IFS= read -r -t 2 -u "$fd" line
	exec {fd}>&-
	[[ $line == HTTP/1.?\ 200* ]]
}

# prom_nap [S]: S seconds (0.5), through lib.sh's rb_nap (no process) if there.
prom_nap() {
	if declare -F rb_nap >/dev/null; then rb_nap "${1:-0.5}"; else sleep "${1:-0.5}"; fi
}

# prom_log_tail: the log's last lines, on stderr.
prom_log_tail() {
	echo "prometheus's log (${PROM_DIR:-?}/prometheus.log), its tail:" >&2
	tail -n 15 "$PROM_DIR/prometheus.log" 2>/dev/null | sed 's/^/  /' >&2
}

prom_start() {
	local dir=$1 i deadline
	shift
	command -v prometheus >/dev/null ||
		{ echo "prom_start: no prometheus (Debian: prometheus; rb-testbed --install)" >&2; return 1; }
	[ -z "$PROM_PID" ] || prom_stop
	PROM_DIR=$dir PROM_ADDR=127.0.0.1:${PROM_PORT:-19090}
	# another server there would answer for ours
	local fd
	if prom_connect; then
		exec {fd}>&-
		echo "prom_start: $PROM_ADDR is in use already (PROM_PORT)" >&2
		PROM_ADDR=""
		return 1
	fi
	mkdir -p "$dir/data" || return 1
	prom_yml "$@" >"$dir/prometheus.yml" || return 1
	prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
		--web.listen-address="$PROM_ADDR" --log.level=info \
		</dev/null >"$dir/prometheus.log" 2>&1 &
	PROM_PID=$!
	deadline=$((SECONDS + ${PROM_WAIT_S:-120}))
	for ((i = 0; SECONDS < deadline; i++)); do
		kill -0 "$PROM_PID" 2>/dev/null || break
		prom_http_ok /-/ready && return 0
		prom_nap
	done
	if kill -0 "$PROM_PID" 2>/dev/null; then
		echo "prom_start: prometheus on $PROM_ADDR not ready after ${PROM_WAIT_S:-120} s" >&2
	else
		echo "prom_start: prometheus exited before it was ready" >&2
	fi
	prom_log_tail
	prom_stop
	return 1
}

# The query and its answer's lines, in python3 (argv: the address, the
# expression, the timeout).
PROM_QUERY_PY='
import json, sys, urllib.parse, urllib.request
addr, expr, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
url = "http://%s/api/v1/query?%s" % (addr, urllib.parse.urlencode({"query": expr}))
try:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        d = json.load(r)
except urllib.error.HTTPError as e:
    d = json.load(e)
except Exception as e:
    sys.exit("prom_query: %s: %s" % (url, e))
if d.get("status") != "success":
    sys.exit("prom_query %s: %s: %s" % (expr, d.get("errorType"), d.get("error")))
def labels(m):
    name = m.get("__name__", "")
    rest = ",".join("%s=%s" % (k, json.dumps(v)) for k, v in sorted(m.items()) if k != "__name__")
    return "%s{%s}" % (name, rest)
res = d["data"]["result"]
kind = d["data"]["resultType"]
if kind in ("scalar", "string"):
    print(res[1])
elif kind == "vector":
    for s in res:
        print(labels(s["metric"]), s["value"][1])
else:
    for s in res:
        for v in s["values"]:
            print(labels(s["metric"]), v[1])
'

prom_query() {
	[ -n "$PROM_ADDR" ] || { echo "prom_query: no prometheus started (prom_start)" >&2; return 1; }
	"${RB_PY:-/usr/bin/python3}" -I -S -c "$PROM_QUERY_PY" "$PROM_ADDR" "$1" "${PROM_HTTP_S:-10}"
}

prom_wait() {
	local out deadline=$((SECONDS + ${2:-30}))
	while :; do
		out=$(prom_query "$1") || return 1
		[ -n "$out" ] && { echo "$out"; return 0; }
		((SECONDS < deadline)) || break
		prom_nap
	done
	echo "prom_wait: no result for '$1' after ${2:-30} s" >&2
	prom_log_tail
	return 1
}

prom_stop() {
	local i
	[ -n "$PROM_PID" ] || return 0
	kill -TERM "$PROM_PID" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$PROM_PID" 2>/dev/null || break
		prom_nap 0.1
	done
	kill -0 "$PROM_PID" 2>/dev/null && kill -KILL "$PROM_PID" 2>/dev/null
	wait "$PROM_PID" 2>/dev/null
	PROM_PID=""
	return 0
}

prom_mesh_ready() {
	local n=$1 label=$2 t i why=""
	shift 2
	[ -x "$RB_BIN/rb_mesh" ] || why="rb_mesh not built (libmicrohttpd-dev missing at ./configure?)"
	for t in prometheus "$@"; do
		command -v "$t" >/dev/null || why="${why:+$why; }$t not installed (Debian's prometheus package)"
	done
	[ -z "$why" ] && return 0
	for ((i = 1; i <= n; i++)); do tap_skip "$label, check $i" "$why"; done
	return 1
}
