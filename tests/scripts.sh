#!/bin/bash
# Automake test (TAP), no device needed: rb-plot and rb-compare on the
# canned result files of tests/data (real files from the rxe test bed, and
# some that are not ours), rb-campaign and rb-regress on bad usage.
# Checks the files written and the exit statuses.  The plot cases SKIP
# without gnuplot.  Env top_srcdir and top_builddir (absolute).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
data=$top_srcdir/tests/data
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-scripts.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -s "$tmp/err" ] && sed 's/^/# stderr: /' "$tmp/err"
		[ -s "$tmp/out" ] && sed 's/^/# stdout: /' "$tmp/out"
	fi
	return 0
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# The built script (rb-plot, rb-compare come from a .in), else the source one.
script() {
	for f in "$top_builddir/scripts/$1" "$top_srcdir/scripts/$1" "$top_srcdir/scripts/$1.in"; do
		[ -x "$f" ] && { echo "$f"; return; }
	done
	echo "$top_srcdir/scripts/$1"
}
rb_plot=$(script rb-plot) rb_compare=$(script rb-compare)

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, the status in $st.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; st=$?; }

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { grep -q '<svg' "$1" 2>/dev/null; }

# --- rb-plot -------------------------------------------------------------------------

if command -v gnuplot >/dev/null 2>&1; then
	run "$rb_plot" -o "$tmp/p1" "$data/rb_write_bw-sweep.csv" "$data/rb_send_lat-sweep.csv"
	good=$st
	for c in bw msgrate lat; do
		is_png "$tmp/p1/$c.png" && is_svg "$tmp/p1/$c.svg" || good=1
	done
	ok $good "rb-plot: a bandwidth and a latency sweep give bw, msgrate, lat as PNG and SVG (status $st)"
	grep -q 'status failed, plotting the rows it has' "$tmp/err"
	ok $? "rb-plot: says on stderr that a file's status is not complete"
	[ "$(wc -l <"$tmp/out")" = 6 ]
	ok $? "rb-plot: prints the 6 files it wrote"

	run "$rb_plot" -o "$tmp/p2" -n h- -f svg "$data/rb_send_lat-64.hist.csv"
	[ "$st" = 0 ] && is_svg "$tmp/p2/h-hist.svg" && is_svg "$tmp/p2/h-cdf.svg" && [ ! -e "$tmp/p2/h-hist.png" ]
	ok $? "rb-plot: a histogram gives the distribution and the CDF (-n prefix, -f svg only)"
	grep -q 'Send latency' "$tmp/p2/h-cdf.svg"
	ok $? "rb-plot: a histogram's title comes from its result file (NAME.hist.csv -> NAME.csv)"

	run "$rb_plot" -o "$tmp/p3" -f svg -l 'run one' -l 'run two' "$data/rb_write_bw-4096.csv" \
		"$data/rb_write_bw-sweep.csv"
	[ "$st" = 0 ] && grep -q 'run one' "$tmp/p3/bw.svg" && grep -q 'run two' "$tmp/p3/bw.svg"
	ok $? "rb-plot: two files make one chart, legends from -l"
	grep -q 'Bandwidth \[Gb/s' "$tmp/p3/bw.svg" && grep -q 'Message size' "$tmp/p3/bw.svg" &&
		grep -q 'rxe0' "$tmp/p3/bw.svg"
	ok $? "rb-plot: the axes carry units, the title the device"
else
	for c in "sweeps give bw, msgrate, lat" "status note" "prints the files" "histogram" \
		"histogram title" "overlay with legends" "units and device"; do
		skip "rb-plot: $c" "gnuplot is not installed"
	done
fi

run "$rb_plot" -o "$tmp/p4" "$data/not-ours.csv"
[ "$st" = 2 ] && grep -q 'not-ours.csv: not an rdmabench result file' "$tmp/err" && [ ! -e "$tmp/p4" ]
ok $? "rb-plot: a CSV that is not ours: exit 2, the file named (status $st)"
run "$rb_plot" -o "$tmp/p4" "$data/hist-schema2.csv"
[ "$st" = 2 ] && grep -q 'schema version 2' "$tmp/err"
ok $? "rb-plot: a histogram of schema 2: exit 2 (status $st)"
run "$rb_plot" -o "$tmp/p4" "$data/result-schema2.json"
[ "$st" = 2 ] && grep -q 'schema version 2' "$tmp/err"
ok $? "rb-plot: a JSON result of schema 2: exit 2 (status $st)"
run "$rb_plot" -o "$tmp/p4" "$tmp/no-such-file.csv"
[ "$st" = 2 ] && grep -q 'no-such-file.csv' "$tmp/err"
ok $? "rb-plot: a missing file: exit 2 (status $st)"
run "$rb_plot" -f gif "$data/rb_write_bw-4096.csv"
[ "$st" = 2 ]
ok $? "rb-plot: -f gif is a usage error (status $st)"

# --- rb-compare ----------------------------------------------------------------------

# campaign DIR TEMPLATE COLUMN VALUE...: a result folder as rb-campaign
# writes it, one file per VALUE (repetition 1, 2, ...), COLUMN set to VALUE;
# PAIRED=yes marks it as half of an interleaved campaign.
campaign() {
	local dir=$1 template=$2 column=$3 rep=0 v
	shift 3
	mkdir -p "$dir/data"
	[ "${PAIRED:-no}" = yes ] && echo "interleaved=baseline current" >"$dir/meta"
	for v in "$@"; do
		rep=$((rep + 1))
		awk -F, -v OFS=, -v col="$column" -v v="$v" '
			/^#/ { print; next }
			!k { for (i = 1; i <= NF; i++) if ($i == col) k = i; print; next }
			{ $k = v; print }' "$data/$template.csv" >"$dir/data/$template-r$rep.csv"
	done
}

PAIRED=yes campaign "$tmp/base" rb_write_bw-4096 bw_avg_mibps 10 20 10 30 10
PAIRED=yes campaign "$tmp/base" rb_send_lat-64 lat_p50_us 30 30 40 30 30
# the same, each run of the pair off a little, both ways
PAIRED=yes campaign "$tmp/same" rb_write_bw-4096 bw_avg_mibps 11 18 10.5 33 9
PAIRED=yes campaign "$tmp/same" rb_send_lat-64 lat_p50_us 31 29 42 28 30
# every pair 30 % slower / 50 % longer
PAIRED=yes campaign "$tmp/slow" rb_write_bw-4096 bw_avg_mibps 7 14 7 21 7
PAIRED=yes campaign "$tmp/slow" rb_send_lat-64 lat_p50_us 45 45 60 45 45
# the median pair 30 % slower, but one pair faster: not beyond the noise
PAIRED=yes campaign "$tmp/noisy" rb_write_bw-4096 bw_avg_mibps 7 14 12 21 7
PAIRED=yes campaign "$tmp/noisy" rb_send_lat-64 lat_p50_us 30 30 40 30 30

run "$rb_compare" "$tmp/base" "$tmp/same"
[ "$st" = 0 ] && grep -q '^rb_write_bw  *4KiB  *bw_avg_mibps  *5 .* ok$' "$tmp/out" &&
	grep -q '(paired' "$tmp/out"
ok $? "rb-compare: the same, with noise: exit 0, ok, paired from the meta files (status $st)"

run "$rb_compare" "$tmp/base" "$tmp/slow"
[ "$st" = 1 ] && grep -q '^rb_write_bw .*bw_avg_mibps .* 0\.700 .*REGRESSION$' "$tmp/out" &&
	grep -q '^rb_send_lat .*lat_p50_us .* 1\.500 .*REGRESSION$' "$tmp/out"
ok $? "rb-compare: 30 % less bandwidth, 50 % more latency: exit 1, both named (status $st)"

run "$rb_compare" -t 60 "$tmp/base" "$tmp/slow"
[ "$st" = 0 ]
ok $? "rb-compare: -t 60 lets them pass (status $st)"
run "$rb_compare" -t bw_avg_mibps=40 "$tmp/base" "$tmp/slow"
[ "$st" = 1 ] && grep -q '^rb_write_bw .* ok$' "$tmp/out" && grep -q '^rb_send_lat .*lat_p50_us.*REGRESSION$' "$tmp/out"
ok $? "rb-compare: -t METRIC=PCT sets one metric's tolerance (status $st)"

run "$rb_compare" "$tmp/base" "$tmp/noisy"
[ "$st" = 0 ] && grep -q '^rb_write_bw .* 0\.700 .* noise$' "$tmp/out"
ok $? "rb-compare: beyond the tolerance but one pair the other way: noise, exit 0 (status $st)"

# unpaired, bandwidth: 7..21 against 10..30 overlap; latency: 45..60 against 30..40 do not
run "$rb_compare" --unpaired "$tmp/base" "$tmp/slow"
[ "$st" = 1 ] && grep -q 'unpaired' "$tmp/out" && grep -q '^rb_write_bw .* noise$' "$tmp/out" &&
	grep -q '^rb_send_lat .*lat_p50_us .*REGRESSION$' "$tmp/out"
ok $? "rb-compare: --unpaired: overlapping ranges are noise, separate ones a regression (status $st)"

PAIRED=yes campaign "$tmp/base4" rb_write_bw-4096 bw_avg_mibps 10 20 10 30
PAIRED=yes campaign "$tmp/slow4" rb_write_bw-4096 bw_avg_mibps 7 14 7 21
run "$rb_compare" "$tmp/base4" "$tmp/slow4"
[ "$st" = 0 ] && grep -q '^rb_write_bw .* 0\.700 .* noise$' "$tmp/out" && grep -q 'too few pairs (4)' "$tmp/err"
ok $? "rb-compare: 4 pairs, all 30 % slower: too few for a verdict beyond the noise (status $st)"

run "$rb_compare" --csv "$tmp/base" "$tmp/slow"
[ "$st" = 1 ] && head -n 1 "$tmp/out" | grep -q '^test,size_bytes,metric,n,baseline,new,ratio,' &&
	[ "$(grep -c ',regression$' "$tmp/out")" = 2 ] && grep -q regression "$tmp/err"
ok $? "rb-compare: --csv: the table as CSV on stdout, the summary on stderr (status $st)"

rm "$tmp/slow/data/rb_send_lat-64-r"*
run "$rb_compare" -m bw_avg_mibps,lat_p50_us -t 60 "$tmp/base" "$tmp/slow"
[ "$st" = 1 ] && grep -q '^rb_send_lat .*MISSING$' "$tmp/out"
ok $? "rb-compare: a benchmark missing from NEW: exit 1, MISSING (status $st)"

mkdir -p "$tmp/empty"
cp "$data/not-ours.csv" "$tmp/empty/"
run "$rb_compare" "$tmp/base" "$tmp/empty"
[ "$st" = 2 ] && grep -q 'no rdmabench result files' "$tmp/err"
ok $? "rb-compare: a folder without results: exit 2 (status $st)"
run "$rb_compare" "$tmp/base" "$data/not-ours.csv"
[ "$st" = 2 ] && grep -q 'not an rdmabench result file' "$tmp/err"
ok $? "rb-compare: a named file that is not ours: exit 2 (status $st)"
run "$rb_compare" -t 0 "$tmp/base" "$tmp/same"
[ "$st" = 2 ] && grep -q 'tolerance is out of range' "$tmp/err"
ok $? "rb-compare: -t 0 is a usage error that names the option (status $st)"

# --- rb-campaign, rb-regress: usage (no device needed) -------------------------------

run "$top_srcdir/scripts/rb-campaign" --bin "$top_builddir" --bench rb_foo_bw -o "$tmp/c"
[ "$st" = 2 ] && grep -q 'unknown benchmark: rb_foo_bw' "$tmp/err" && [ ! -e "$tmp/c" ]
ok $? "rb-campaign: an unknown benchmark: exit 2 before any run (status $st)"
run "$top_srcdir/scripts/rb-campaign" --reps 0
[ "$st" = 2 ] && grep -q 'reps is too small: 0' "$tmp/err"
ok $? "rb-campaign: --reps 0: exit 2, the option named (status $st)"
run "$top_srcdir/scripts/rb-regress" -r x HEAD
[ "$st" = 2 ] && grep -q 'reps is not a number: x' "$tmp/err"
ok $? "rb-regress: -r x: exit 2 (status $st)"

# --- rb-icount: usage, and its callgrind reader on two canned files -------------------
# tests/data/icount: ib_write_bw at 100 and 300 messages, written by hand in
# callgrind's format (compressed names defined in another order in each
# file, call lines whose inclusive cost is not self cost, relative
# positions): per message 150 in the program, 179 in the provider, 10 in
# libc, 0 in libibverbs and ld.so; the calibration loop (the program's
# function that calls gettimeofday, with gettimeofday and the memcpy calls
# it makes, 10 then 70) ran 1000 then 700 times: -17.5, left out of the
# total of 339.  As rb_write_bw's, the same functions are none of the
# tool's, and only gettimeofday is calibration: the memcpy calls stay libc.

rb_icount=$top_srcdir/scripts/rb-icount
icdata=$data/icount
if command -v python3 >/dev/null 2>&1; then
	run "$rb_icount" --help
	[ "$st" = 0 ] && grep -q -- '--bin' "$tmp/out" && grep -q 'Exit status' "$tmp/out"
	ok $? "rb-icount: --help: exit 0, names --bin and the exit statuses (status $st)"
	run "$rb_icount" --version
	[ "$st" = 0 ] && grep -q "^rb-icount $(cat "$top_srcdir/VERSION")\$" "$tmp/out"
	ok $? "rb-icount: --version prints the project's version (status $st)"
	run "$rb_icount" --cases write_bw,foo_bw --out "$tmp/ic"
	[ "$st" = 2 ] && grep -q 'unknown case: foo_bw' "$tmp/err" && [ ! -e "$tmp/ic" ]
	ok $? "rb-icount: an unknown case: exit 2, named, nothing written (status $st)"
	run "$rb_icount" --bw-iters 8000,1600 --out "$tmp/ic"
	[ "$st" = 2 ] && grep -q -- '--bw-iters needs 0 < N1 < N2: 8000,1600' "$tmp/err"
	ok $? "rb-icount: --bw-iters N1 >= N2: exit 2, the option named (status $st)"
	run "$rb_icount" --boots 0
	[ "$st" = 2 ] && grep -q -- '--boots is out of range: 0' "$tmp/err"
	ok $? "rb-icount: --boots 0: exit 2 (status $st)"

	run "$rb_icount" --parse "300:$icdata/ib_write_bw-300.cg" "100:$icdata/ib_write_bw-100.cg" \
		--program ib_write_bw
	want='bucket,instr_per_msg,ir_n1,ir_n2
tool,150.000,16000,46000
libibverbs,0.000,500,500
provider,179.000,17900,53700
libc,10.000,1400,3400
other,0.000,5000,5000
calibration,-17.500,14100,10600
total,339.000,40800,108600'
	[ "$st" = 0 ] && [ "$(cat "$tmp/out")" = "$want" ]
	ok $? "rb-icount: --parse: the per-message figures of every bucket, calibration and what it calls apart (status $st)"
	run "$rb_icount" --parse "300:$icdata/ib_write_bw-300.cg" "100:$icdata/ib_write_bw-100.cg" \
		--program rb_write_bw
	[ "$st" = 0 ] && grep -q '^tool,0.000,0,0$' "$tmp/out" && grep -q '^other,140.000,28000,56000$' "$tmp/out" &&
		grep -q '^libc,13.000,1500,4100$' "$tmp/out" &&
		grep -q '^calibration,-10.500,7000,4900$' "$tmp/out"
	ok $? "rb-icount: --parse: another program's functions are not the tool's (status $st)"
	run "$rb_icount" --parse "100:$icdata/truncated.cg" "300:$icdata/ib_write_bw-300.cg" --program ib_write_bw
	[ "$st" = 1 ] && grep -q 'truncated.cg: not a complete callgrind output' "$tmp/err" && [ ! -s "$tmp/out" ]
	ok $? "rb-icount: --parse: a file cut short: exit 1, named, no figures (status $st)"
	run "$rb_icount" --parse "100:$icdata/ib_write_bw-100.cg" "100:$icdata/ib_write_bw-300.cg" --program ib_write_bw
	[ "$st" = 2 ] && grep -q 'message counts are equal' "$tmp/err"
	ok $? "rb-icount: --parse: equal message counts: exit 2 (status $st)"

	# --summarize on two boots' canned per-boot CSVs (tests/data/icount/raw)
	mkdir -p "$tmp/sum" && cp -r "$icdata/raw" "$tmp/sum/"
	run "$rb_icount" --summarize --out "$tmp/sum"
	readme=$tmp/sum/README.md
	[ "$st" = 0 ] && grep -q '^| write_bw | client | 549.2 | 353.7 | 1.55 | 305.0 | 150.1 | 32.1 |$' "$readme" &&
		grep -q '^| write_bw | 0.500 | 0.500 | 0.000 | 0.000 | 52.281 |$' "$readme" &&
		grep -q 'boot 2, send_bw rdmabench at 800: exit status 124' "$readme" &&
		[ "$(grep -c '^[12],write_bw,' "$tmp/sum/icount.csv")" = 28 ]
	ok $? "rb-icount: --summarize: the table, the movement between boots, the failed run, both boots' rows (status $st)"
else
	for c in "--help" "--version" "unknown case" "--bw-iters" "--boots" "--parse buckets" \
		"--parse other program" "--parse cut short" "--parse equal counts" "--summarize"; do
		skip "rb-icount: $c" "python3 is not installed"
	done
fi

# --- the test bed's slurm-up: usage (no daemon started) -------------------------------

run "$top_srcdir/scripts/testbed/slurm-up" --cpus 0 "$tmp/s" n1=192.0.2.1
[ "$st" = 2 ] && grep -q -- "--cpus: not a positive number: '0'" "$tmp/err" && [ ! -e "$tmp/s" ]
ok $? "slurm-up: --cpus 0: exit 2, the option named (status $st)"
run "$top_srcdir/scripts/testbed/slurm-up" "$tmp/s" n1:192.0.2.1
[ "$st" = 2 ] && grep -q "a node is NAME=IPv4, not 'n1:192.0.2.1'" "$tmp/err" && [ ! -e "$tmp/s" ]
ok $? "slurm-up: a node not NAME=IP: exit 2 (status $st)"
run "$top_srcdir/scripts/testbed/slurm-up" "$tmp/s" not-this-host-x=192.0.2.1
[ "$st" = 2 ] && grep -q 'is none of the nodes' "$tmp/err" && [ ! -e "$tmp/s" ]
ok $? "slurm-up: this host not among the nodes: exit 2, nothing started (status $st)"

echo "1..$n"
[ "$failed" = 0 ]
