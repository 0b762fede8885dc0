#!/bin/sh
# Automake test (TAP), no device needed: the command line as a user meets it.
#  - every benchmark's --help fits 80 columns, shows -s/-n defaults taken
#    from its bench/ file and only the transports it accepts;
#  - every option its --help lists is accepted, every option another
#    benchmark lists and it does not is refused (exit 2); both spellings of
#    every long option are accepted;
#  - what fails without a peer fails at once, before the peer, and leaves
#    one --json/--csv document with status failed and the error (a device
#    that does not exist: the same on a host with or without RDMA devices);
#  - rb_devices: --json without a device (or without DEV) is one valid
#    document listing none, exit 1; --ib-dev in both spellings.
# Needs the programs built; env top_srcdir and top_builddir (absolute).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-cli.XXXXXX") || exit 99
printf '0x01020304\n' >"$tmp/payload.txt"      # --payload_file_path's value
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
# the benchmarks: bench/list.h's BENCH(NAME) lines
benches=$(sed -n 's/^BENCH(\([a-z0-9_]*\))$/\1/p' "$top_srcdir/bench/list.h")
[ -n "$benches" ] || { echo "Bail out! no benchmark in $top_srcdir/bench/list.h"; exit 99; }
nodev=rb-no-such-device

ok() { # STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
diag() { sed 's/^/# /'; }

# The option heads of PROG --help: "-d --ib-dev=DEV", one a line (the short
# letter, then the long name with its argument).
heads() {
	"$top_builddir/$1" --help | sed -n 's/^ \{1,8\}\(-.*\)$/\1/p' | sed 's/   */\t/' | cut -f1 |
		sed 's/,//'
}

# value_for LONG ARG: sets value, a value each option takes (any valid one),
# by its argument's name.
value_for() {
	case $1 in
	ib-dev) value=rxe0 ;; connection) value=RC ;; mtu) value=1024 ;; clock) value=auto ;;
	atomic-type) value=FETCH_AND_ADD ;; percentiles) value=50,99 ;; cpu) value=0 ;;
	report-counters) value=port_xmit_data ;; bind | source-ip) value=127.0.0.1 ;;
	size) value=64 ;; numa-node) value=0 ;; min-bw) value=1Gb/s ;; load) value=write_bw ;;
	output) value=bandwidth ;; MGID) value=ff0e::1 ;; gpu-touch) value=once ;; rate-units) value=Mbps ;; rate-limit-type) value=SW ;;
	payload-file-path) value=$tmp/payload.txt ;;
	*) case $2 in FILE) value=$tmp/out.file ;; *) value=2 ;; esac ;;
	esac
}

# option_words HEAD SPELLING: sets words, the words that give the option
# HEAD ("-s --size=BYTES", "--csv[=FILE]") in SPELLING (dash or under).  In
# the shell, no process: it runs some 1,200 times (sed and tr here took
# more CPU than the programs under test).
option_words() {
	long="" arg=""
	case $1 in *--*) long=${1##*--} ;; esac
	case $long in *=*) arg=${long#*=}; arg=${arg%]} ;; esac
	long=${long%%=*}
	long=${long%[}
	spelt=$long
	if [ "$2" = under ]; then
		spelt="" rest=$long
		while :; do
			case $rest in *-*) spelt=$spelt${rest%%-*}_; rest=${rest#*-} ;; *) break ;; esac
		done
		spelt=$spelt$rest
	fi
	words=--$spelt
	[ -z "$arg" ] && return
	value_for "$long" "$arg"
	words=$words=$value
}

# Exit status of PROG WORDS... --help (the words are parsed before --help).
accepts() { # PROG WORD...
	p=$1
	shift
	# -R and --source-ip go together, on a client
	case "$*" in *source-ip* | *source_ip*) set -- "$@" -R ;; esac
	"$top_builddir/$p" "$@" --help >/dev/null 2>"$tmp/err"
}

# Every head any benchmark lists, one per option (the first -c head seen).
for b in $benches; do heads "rb_$b"; done | sort -u -t= -k1,1 >"$tmp/union"

for b in $benches; do
	p=rb_$b
	"$top_builddir/$p" --help >"$tmp/help"
	wide=$(awk 'length($0) > 80 { print NR ": " length($0) }' "$tmp/help")
	[ -z "$wide" ] && [ -s "$tmp/help" ]
	ok $? "$p --help fits 80 columns${wide:+ (too wide: $wide)}"

	size=$(sed -En 's/.*\.size = ([0-9]+).*/\1/p' "$top_srcdir/bench/$b.c")
	iters=$(sed -En 's/.*\.iters = ([0-9]+).*/\1/p' "$top_srcdir/bench/$b.c")
	st=0
	grep -q -- "--iters=N .*(default $iters)" "$tmp/help" || st=1
	if [ "${b#atomic}" = "$b" ]; then
		grep -q -- "--size=BYTES .*(default $size)" "$tmp/help" || st=1
	fi
	ok $st "$p --help: -n default $iters${size:+, -s default $size} as bench/$b.c sets them"

	transports=$(sed -En 's/.*\.transports = ([^,]*),.*/\1/p' "$top_srcdir/bench/$b.c" |
		sed 's/TR_//g; s/ | /|/g')
	grep -q -- "--connection=$transports\( \|\$\)" "$tmp/help"
	ok $? "$p --help: -c lists exactly $transports"

	heads "$p" >"$tmp/heads"
	bad=""
	while read -r head; do
		case $head in *--help | *--version) continue ;; esac
		for sp in dash under; do
			option_words "$head" "$sp"
			# shellcheck disable=SC2086 # the words, split
			accepts "$p" $words || bad="$bad $words"
		done
	done <"$tmp/heads"
	ok "$([ -z "$bad" ] && echo 0 || echo 1)" "$p accepts every option its --help lists, in both spellings ($(wc -l <"$tmp/heads"))${bad:+; refused:$bad}"

	mine="
$(sed 's/=.*//' "$tmp/heads")
"
	bad="" nrej=0
	while read -r head; do
		case $mine in *"
${head%%=*}
"*) continue ;; esac
		# accepted everywhere, with no effect outside its benchmarks, as
		# perftest does (the row's lax; checked below)
		case $head in *--report-gbits | *--mr-per-qp) continue ;; esac
		nrej=$((nrej + 1))
		option_words "$head" dash
		# shellcheck disable=SC2086 # the words, split
		accepts "$p" $words
		[ $? = 2 ] || bad="$bad ${head##* }"
	done <"$tmp/union"
	[ -z "$bad" ] && [ "$nrej" -gt 0 ]
	ok $? "$p refuses (exit 2) the $nrej options other benchmarks list and its --help does not${bad:+; accepted:$bad}"
done

# --report_gbits on a latency test: perftest takes it (scripts pass it to
# every test), so it is accepted with a note and no effect.
"$top_builddir/rb_send_lat" --report_gbits -d "$nodev" 127.0.0.1 >/dev/null 2>"$tmp/err"
st=$?
[ "$st" != 2 ] && grep -q -- '--report-gbits has no effect on rb_send_lat' "$tmp/err"
ok $? "rb_send_lat --report_gbits: accepted with a note, no effect (exit $st)"

# perftest's names (src/cli/compat.c), in every benchmark: a refused one
# exits 2 naming it as perftest's, with what to use instead; never
# "unknown option".  Its value, as a word of its own, goes with it.
bad=""
for b in $benches; do
	"$top_builddir/rb_$b" --use_musa 0 127.0.0.1 >/dev/null 2>"$tmp/err"
	st=$?
	{ [ "$st" = 2 ] && grep -q -- "--use_musa is perftest's option (GPU memory), not in rdmabench yet: it comes with the memory issue (#37)" "$tmp/err" &&
		grep -q 'instead: ' "$tmp/err" && ! grep -q 'unknown option' "$tmp/err"; } || bad="$bad rb_$b($st)"
	"$top_builddir/rb_$b" -B 00:11:22:33:44:55 >/dev/null 2>"$tmp/err"
	{ [ $? = 2 ] && grep -q -- "-B/--source_mac is perftest's option, refused here: raw Ethernet" "$tmp/err"; } || bad="$bad rb_$b(-B)"
	"$top_builddir/rb_$b" --use 2>"$tmp/err" >/dev/null
	{ [ $? = 2 ] && grep -q -- '--use is ambiguous: it could be' "$tmp/err"; } || bad="$bad rb_$b(--use)"
	"$top_builddir/rb_$b" -c XRC 127.0.0.1 2>"$tmp/err" >/dev/null
	{ [ $? = 2 ] && grep -q -- "-c/--connection XRC: perftest's transport; XRC" "$tmp/err" &&
		grep -q 'instead: -c RC' "$tmp/err"; } || bad="$bad rb_$b(-c XRC)"
done
[ -z "$bad" ]
ok $? "every benchmark: --use_musa 0, -B and -c XRC refused (exit 2) as perftest's, with what instead; --use ambiguous${bad:+; wrong:$bad}"

# rb_mpi --plan N: the number as the next word is --plan's, as --plan=N.
"$top_builddir/rb_mpi" --plan 64 --pattern ring >"$tmp/plan1" 2>&1
st=$?
"$top_builddir/rb_mpi" --plan=64 --pattern ring >"$tmp/plan2" 2>&1
[ "$st" = 0 ] && [ $? = 0 ] && cmp -s "$tmp/plan1" "$tmp/plan2" && grep -q 'ring' "$tmp/plan1"
ok $? "rb_mpi --plan 64 prints what --plan=64 prints (exit $st)"
"$top_builddir/rb_mpi" --plan=64 --pat ring >"$tmp/plan3" 2>&1
cmp -s "$tmp/plan2" "$tmp/plan3"
ok $? "rb_mpi --pat ring: a unique prefix of its own option"

# rb_read_lat: the issue's example
"$top_builddir/rb_read_lat" --help >"$tmp/help"
! grep -qw -- 'UD' "$tmp/help" && ! grep -q -- '^ *-r,' "$tmp/help"   # -w: not CUDA's letters
ok $? "rb_read_lat --help lists neither -c UD nor -r"
"$top_builddir/rb_read_lat" -c UD >/dev/null 2>&1
ok "$([ $? = 2 ] && echo 0 || echo 1)" "rb_read_lat -c UD: exit 2"
"$top_builddir/rb_send_bw" -v --help >/dev/null 2>&1
ok $? "-v is accepted (--verbose)"
"$top_builddir/rb_write_bw" -t 64 -Q 128 >/dev/null 2>"$tmp/err"
st=$?
diag <"$tmp/err"
[ $st = 2 ] && grep -q -- '-Q/--cq-mod 128 is larger than -t/--tx-depth 64' "$tmp/err"
ok $? "-Q above -t: exit 2, naming both"
RB_POLL_PAUSE=yes "$top_builddir/rb_send_lat" -n 5 127.0.0.1 >/dev/null 2>"$tmp/err"
st=$?
[ $st = 2 ] && grep -q -- 'RB_POLL_PAUSE=yes: 0 or 1' "$tmp/err"
ok $? "RB_POLL_PAUSE=yes: exit 2, naming the variable and its values"
"$top_builddir/rb_write_bw" -a -s 64 >/dev/null 2>&1
ok "$([ $? = 2 ] && echo 0 || echo 1)" "-a with -s: exit 2"
# --validate: not rb_atomic_lat (it checks each result anyway), not -j,
# and the send tests' receive buffers and the bandwidth tests' send
# buffers bounded
"$top_builddir/rb_atomic_lat" --validate 127.0.0.1 >/dev/null 2>"$tmp/err"
st=$?
[ $st = 2 ] && grep -q -- '--validate is not supported by rb_atomic_lat' "$tmp/err"
ok $? "rb_atomic_lat --validate: exit 2"
"$top_builddir/rb_write_bw" --validate -t 256 -s 8M 127.0.0.1 >/dev/null 2>"$tmp/err"
st=$?
[ $st = 2 ] && grep -q -- '--validate: -t/--tx-depth 256 send buffers of 8388608 bytes on 1 QP(s) exceed 1024 MiB; lower -t or -s' "$tmp/err"
ok $? "rb_write_bw --validate -t 256 -s 8M: exit 2, the send buffers too large, with a hint"
"$top_builddir/rb_write_bw" --validate -j 2 127.0.0.1 >/dev/null 2>"$tmp/err"
st=$?
[ $st = 2 ] && grep -q -- '--validate cannot be combined with -j/--threads 2' "$tmp/err"
ok $? "--validate with -j 2: exit 2, naming both"
"$top_builddir/rb_send_bw" --validate -a 127.0.0.1 >/dev/null 2>"$tmp/err"
st=$?
[ $st = 2 ] && grep -q -- '--validate: -r/--rx-depth 512 receive buffers of 8388608 bytes' "$tmp/err" &&
	grep -q 'lower -r or -s' "$tmp/err"
ok $? "rb_send_bw --validate -a: exit 2, the receive buffers too large, with a hint"

# --load: only under a latency test, a known load, sizes and QPs in range,
# its other options only with it, not with --validate or --loopback yet
load_usage() { # NAME ERE PROG ARGS...
	name=$1 ere=$2 p=$3
	shift 3
	"$top_builddir/$p" "$@" >/dev/null 2>"$tmp/err"
	st=$?
	[ $st = 2 ] && grep -Eq -- "$ere" "$tmp/err"
	ok $? "$name: exit 2 ($(head -1 "$tmp/err"))"
}
load_usage "--load on a bandwidth test" '--load is not supported by rb_write_bw' rb_write_bw --load=write_bw 127.0.0.1
load_usage "--load=foo" "--load: unknown load benchmark 'foo' \(one of send_bw, write_bw, read_bw\)" rb_send_lat --load=foo 127.0.0.1
load_usage "--load=atomic_bw" "unknown load benchmark 'atomic_bw'" rb_write_lat --load=atomic_bw 127.0.0.1
load_usage "--load-size=16M" '--load-size 16777216 is out of range \(1\.\.8388608 bytes\)' rb_send_lat --load=write_bw --load-size=16M 127.0.0.1
load_usage "--load-size=0" '--load-size' rb_send_lat --load=write_bw --load-size=0 127.0.0.1
load_usage "--load-qps=0" '--load-qps: 0 is out of range' rb_read_lat --load=read_bw --load-qps=0 127.0.0.1
load_usage "--load-qps=1025" '--load-qps: 1025 is out of range' rb_read_lat --load=read_bw --load-qps=1025 127.0.0.1
load_usage "--load-size without --load" '--load-size needs --load' rb_send_lat --load-size=4K 127.0.0.1
load_usage "--load-compare without --load" '--load-compare needs --load' rb_atomic_lat --load-compare 127.0.0.1
load_usage "--load with --validate" '--load cannot be combined with --validate' rb_send_lat --load=write_bw --validate 127.0.0.1
load_usage "--load with --loopback" '--load cannot be combined with --loopback' rb_send_lat --load=write_bw --loopback
load_usage "--load-compare with --run_infinitely" '--load-compare runs each size 6 times: drop --run_infinitely' rb_write_lat --load=write_bw --load-compare --run_infinitely 127.0.0.1

# ---- failures before the peer: at once, one document ----

# json_field FILE KEY: a top-level value of a JSON document, or "INVALID".
json_field() {
	python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("INVALID"); sys.exit(0)
v = d
for k in sys.argv[2].split("."):
    v = v[k] if isinstance(v, dict) else v[int(k)]
print(v)' "$1" "$2"
}

# run_timed FILE-PREFIX CMD...: stdout, stderr, status and seconds.
run_timed() {
	pre=$1
	shift
	t0=$(date +%s.%N)
	"$@" >"$pre.out" 2>"$pre.err" </dev/null
	echo $? >"$pre.rc"
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.2f\n", $2 - $1 }' >"$pre.secs"
}

# closed_port: a port of 127.0.0.1 nobody listens on (a connect refused,
# bash's /dev/tcp), for the clients below: "nobody listening" stays on
# loopback, never an outside address (a host-side test sends nothing beyond
# loopback: tests/docs.sh checks that no host-side test names one).
closed_port() {
	local p
	for p in 18591 18592 18593 18594 18595 18596 18597 18598 18599; do
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
	echo 18599
}
nobody="-p $(closed_port) 127.0.0.1"

if command -v python3 >/dev/null 2>&1; then
	# a client: -d that does not exist, against a port nobody listens on
	run_timed "$tmp/c" "$top_builddir/rb_send_bw" --json -d $nodev --timeout=20 $nobody
	diag <"$tmp/c.err"
	[ "$(cat "$tmp/c.rc")" = 1 ] && [ "$(json_field "$tmp/c.out" status)" = failed ] &&
		json_field "$tmp/c.out" error | grep -q "no RDMA device" &&
		[ "$(json_field "$tmp/c.out" meta.role)" = client ] &&
		awk '{ exit !($1 < 10) }' "$tmp/c.secs"
	ok $? "client -d $nodev --json: one document, status failed, the device error, exit 1, at once ($(cat "$tmp/c.secs") s, --timeout=20)"
	grep -q "no RDMA devices found\|no RDMA device named $nodev; the devices are: ." "$tmp/c.err"
	ok $? "client -d $nodev: stderr names it and lists the devices there are (or says there are none)"

	# a server: fails when it starts, its CSV says so
	run_timed "$tmp/s" "$top_builddir/rb_write_lat" --csv="$tmp/s.csv" -d $nodev
	diag <"$tmp/s.err"
	[ "$(cat "$tmp/s.rc")" = 1 ] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "failed" and d["error"].startswith("no RDMA device") and d["meta"]["role"] == "server"
' "$tmp/s.meta.json"
	ok $? "server -d $nodev --csv=FILE: its sidecar says status failed, the error and the role, exit 1"

	# output files first: the results file (no document can be left), -H
	run_timed "$tmp/o" "$top_builddir/rb_send_bw" --csv=/proc/rb-x.csv --timeout=20 $nobody
	[ "$(cat "$tmp/o.rc")" = 1 ] && [ ! -s "$tmp/o.out" ] &&
		grep -q 'cannot write the results file /proc/rb-x.csv' "$tmp/o.err" &&
		awk '{ exit !($1 < 10) }' "$tmp/o.secs"
	ok $? "--csv=/proc/rb-x.csv: named at once, exit 1 ($(cat "$tmp/o.secs") s)"
	run_timed "$tmp/h" "$top_builddir/rb_send_lat" --json -H /proc/rb-h.csv --timeout=20 $nobody
	[ "$(cat "$tmp/h.rc")" = 1 ] && [ "$(json_field "$tmp/h.out" status)" = failed ] &&
		json_field "$tmp/h.out" error | grep -q -- '-H/--histogram: cannot write /proc/rb-h.csv' &&
		awk '{ exit !($1 < 10) }' "$tmp/h.secs"
	ok $? "-H /proc/rb-h.csv --json: failed document naming -H, at once ($(cat "$tmp/h.secs") s)"
	run_timed "$tmp/hs" "$top_builddir/rb_send_lat" --json --raw=/proc/rb-r.csv
	[ "$(cat "$tmp/hs.rc")" = 1 ] && json_field "$tmp/hs.out" error | grep -q -- '--raw: cannot write'
	ok $? "a server with --raw=/proc/rb-r.csv fails when it starts, not when a client comes"
	: >"$tmp/keep.csv"
	rm -f "$tmp/new.csv"
	"$top_builddir/rb_send_lat" -d $nodev -H "$tmp/new.csv" --raw "$tmp/keep.csv" 127.0.0.1 >/dev/null 2>&1
	[ ! -e "$tmp/new.csv" ] && [ -e "$tmp/keep.csv" ]
	ok $? "the check of -H/--raw leaves no new file behind and keeps an existing one"

	# rb_devices
	"$top_builddir/rb_devices" --json -d $nodev >"$tmp/d.out" 2>"$tmp/d.err"
	st=$?
	[ $st = 1 ] && [ "$(json_field "$tmp/d.out" devices)" = "[]" ]
	ok $? "rb_devices --json -d $nodev: one valid document, \"devices\": [], exit 1 (got $st)"
	"$top_builddir/rb_devices" --ib_dev $nodev >"$tmp/d2.out" 2>"$tmp/d2.err"
	st=$?
	[ $st = 1 ] && [ ! -s "$tmp/d2.out" ] && ! grep -q 'rb_devices`' "$tmp/d2.err"
	ok $? "rb_devices --ib_dev $nodev: exit 1, nothing on stdout, no hint to run rb_devices"
	diag <"$tmp/d2.err"
	if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
		"$top_builddir/rb_devices" --json >"$tmp/d3.out" 2>/dev/null
		st=$?
		[ $st = 1 ] && [ "$(json_field "$tmp/d3.out" devices)" = "[]" ]
		ok $? "rb_devices --json on a host without devices: \"devices\": [], exit 1"
	fi
else
	echo "ok $((n = n + 1)) - failure documents # SKIP python3 is not installed"
fi

# rb_mesh check: its own words before rb_mpi runs (no MPI job here)
"$top_builddir/rb_mesh" check --max-loss 0.1 >"$tmp/mc.out" 2>"$tmp/mc.err"
st=$?
[ "$st" = 2 ] && [ ! -s "$tmp/mc.out" ] && grep -q -- '--max-loss' "$tmp/mc.err" && grep -q 'rb_mesh watch' "$tmp/mc.err"
ok $? "rb_mesh check --max-loss exits 2 naming it and where loss is judged (exit $st)"
"$top_builddir/rb_mesh" check --help >"$tmp/mc.out" 2>"$tmp/mc.err"
st=$?
[ "$st" = 0 ] && grep -q -- '--min-bw RATE' "$tmp/mc.out" && grep -q 'rb_mpi --check' "$tmp/mc.out"
ok $? "rb_mesh check --help: its options on stdout, exit 0 (exit $st)"
mkdir -p "$tmp/lone" && cp "$top_builddir/rb_mesh" "$tmp/lone/"
PATH=/nonexistent "$tmp/lone/rb_mesh" check -n 5 >"$tmp/mc.out" 2>"$tmp/mc.err"
st=$?
[ "$st" = 1 ] && grep -q 'rb_mpi --check, which is not here' "$tmp/mc.err" && grep -q -- '--with-mpi' "$tmp/mc.err"
ok $? "rb_mesh check without rb_mpi beside it or on PATH exits 1 saying what to build (exit $st)"

echo "1..$n"
[ "$failed" = 0 ]
