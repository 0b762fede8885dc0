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
	for f in "$top_builddir/scripts/tools/$1" "$top_srcdir/scripts/tools/$1" "$top_srcdir/scripts/tools/$1.in"; do
		[ -x "$f" ] && { echo "$f"; return; }
	done
	echo "$top_srcdir/scripts/tools/$1"
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

	# rb_mpi --background (the test bed's rows): the pair idle and loaded
	run "$rb_plot" -o "$tmp/pl" -f svg "$data/rb_mpi-load.csv"
	[ "$st" = 0 ] && [ "$(cat "$tmp/out")" = "$tmp/pl/load.svg" ] && grep -q 'under incast (p99 x' "$tmp/pl/load.svg" &&
		grep -q 'idle</text>' "$tmp/pl/load.svg" && grep -q 'Percentile' "$tmp/pl/load.svg"
	ok $? "rb-plot: rb_mpi latency under load gives only NAME-load: idle and each load, the p99 ratio in the legend (status $st)"
else
	for c in "sweeps give bw, msgrate, lat" "status note" "prints the files" "histogram" \
		"histogram title" "overlay with legends" "units and device" "latency under load"; do
		skip "rb-plot: $c" "gnuplot is not installed"
	done
fi

# --- the CSV format: default readers; the earlier format still read ------------------

# Every canned result is in the format the binaries write (tests/data/*.csv);
# tests/integration/t_25_readers.sh does the same on files made on the device.
csvs=$(ls "$data"/rb_*.csv)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
run "$py" -c 'import csv, sys
for p in sys.argv[1:]:
    rows = list(csv.DictReader(open(p, newline="")))
    assert rows and "size_bytes" in rows[0] or "lower_ns" in rows[0], p
    assert all(None not in r and None not in r.values() for r in rows), p + ": ragged rows"
' $csvs
ok $st "csv.DictReader reads every canned CSV with its defaults, every row the header's width"
if "$py" -c 'import pandas' 2>/dev/null; then
	run "$py" -c 'import sys, pandas
for p in sys.argv[1:]:
    d = pandas.read_csv(p)
    key = "size_bytes" if "size_bytes" in d else "lower_ns"
    assert len(d) > 0 and str(d[key].dtype).startswith(("int", "float")), p
' $csvs
	ok $st "pandas.read_csv reads every canned CSV with its defaults, numeric columns"
else
	skip "pandas.read_csv reads every canned CSV" "python3-pandas is not installed"
fi
if command -v gnuplot >/dev/null 2>&1; then
	run gnuplot -e 'set datafile separator comma; set datafile columnheaders; stats "'"$data/rb_write_bw-sweep.csv"'" using "size_bytes":"bw_avg_mibps" nooutput; print STATS_records'
	[ "$st" = 0 ] && [ "$(cat "$tmp/err")" = "$(($(wc -l <"$data/rb_write_bw-sweep.csv") - 1))" ]
	ok $? "gnuplot reads the columns by name, one record a row (status $st)"
else
	skip "gnuplot reads the columns by name" "gnuplot is not installed"
fi
if command -v gnuplot >/dev/null 2>&1; then
	run "$rb_plot" -o "$tmp/old" -f svg "$data/old/rb_write_bw-sweep.csv" "$data/old/rb_send_lat-64.hist.csv"
	[ "$st" = 0 ] && grep -q 'rxe0' "$tmp/old/bw.svg" && is_svg "$tmp/old/cdf.svg" &&
		grep -q "Send latency" "$tmp/old/cdf.svg"
	ok $? "rb-plot reads the earlier format ('#' metadata lines), as results/ holds (status $st)"
else
	skip "rb-plot reads the earlier format" "gnuplot is not installed"
fi
run "$rb_plot" -o "$tmp/p4" "$data/old/hist-schema2.csv"
[ "$st" = 2 ] && grep -q 'schema version 2' "$tmp/err"
ok $? "rb-plot: a histogram of schema 2 in the earlier format: exit 2 (status $st)"

# Two campaign folders, as rb-campaign writes them: A with 3 runs, B with 1,
# both made in the test bed (meta where=).
for f in A B; do
	mkdir -p "$tmp/cmp/$f/data"
	echo "where=Soft-RoCE test bed (rb-testbed: qemu TCG) on host vm" >"$tmp/cmp/$f/meta"
done
for r in 1 2 3; do
	for t in rb_write_bw-sweep rb_send_lat-64; do
		cp "$data/$t.csv" "$tmp/cmp/A/data/$t-r$r.csv"
		cp "$data/$t.meta.json" "$tmp/cmp/A/data/$t-r$r.meta.json"
	done
	cp "$data/rb_send_lat-64.hist.csv" "$tmp/cmp/A/data/rb_send_lat-64-r$r.hist.csv"
	cp "$data/rb_send_lat-64.hist.meta.json" "$tmp/cmp/A/data/rb_send_lat-64-r$r.hist.meta.json"
done
cp "$tmp/cmp/A/data/"*-r1.* "$tmp/cmp/B/data/"
cp "$data/rb_write_bw-4096.csv" "$tmp/cmp/B/data/rb_write_bw-4096-r1.csv"
cp "$data/rb_write_bw-4096.meta.json" "$tmp/cmp/B/data/rb_write_bw-4096-r1.meta.json"

# svg_series FILE: the legends of the series, in order, and their colours, "legend|colour" a line.
svg_series() {
	"$py" - "$1" <<'PYEOF'
import re, sys
svg = open(sys.argv[1]).read()
for g in re.split(r'<g id="gnuplot_plot_\d+"', svg)[1:]:
    t = re.search(r'<text>(.*?)</text>', g)
    c = re.search(r"stroke='(rgb\([^)]*\))'", g)
    if t and t.group(1).strip():
        print('%s|%s' % (t.group(1).strip(), c.group(1).replace(' ', '') if c else ''))
PYEOF
}

if command -v gnuplot >/dev/null 2>&1; then
	run "$rb_plot" -o "$tmp/cmpp" -f svg "$tmp/cmp/A" "$tmp/cmp/B"
	svg_series "$tmp/cmpp/bw.svg" >"$tmp/bw.series"
	[ "$st" = 0 ] && [ "$(cut -d'|' -f1 "$tmp/bw.series" | tr '\n' ';')" = "A (3 runs);B (2 runs);" ]
	ok $? "rb-plot A B: series labelled by folder, each with its runs ($(cut -d'|' -f1 "$tmp/bw.series" | tr '\n' ';'))"
	grep -q "median of each series' runs" "$tmp/cmpp/bw.svg" && ! grep -q 'median of 3 runs' "$tmp/cmpp/bw.svg" &&
		grep -q 'Soft-RoCE test bed' "$tmp/cmpp/bw.svg" && grep -q 'Soft-RoCE test bed' "$tmp/cmpp/cdf.svg"
	ok $? "rb-plot A B: no 'median of 3 runs' over a series of 2; the test-bed note kept in the titles"
	grep -q '>1e-05<' "$tmp/cmpp/bw.svg" || grep -q '>1e-05 *<' "$tmp/cmpp/bw.svg" || grep -q '1e-05' "$tmp/cmpp/bw.svg"
	ok $? "rb-plot: a sweep spanning 4 decades gets a log y axis (auto)"
	run "$rb_plot" -o "$tmp/cmpl" -f svg -y linear "$tmp/cmp/A" "$tmp/cmp/B"
	[ "$st" = 0 ] && ! grep -q '1e-05' "$tmp/cmpl/bw.svg"
	ok $? "rb-plot -y linear: no log axis (status $st)"
	svg_series "$tmp/cmpp/cdf.svg" >"$tmp/cdf.series"
	[ "$(cut -d'|' -f1 "$tmp/cdf.series" | tr '\n' ';')" = "A (3 runs pooled);B (1 run);" ]
	ok $? "rb-plot A B: histograms of a series pooled, labelled by folder ($(cut -d'|' -f1 "$tmp/cdf.series" | tr '\n' ';'))"
	run "$rb_plot" -o "$tmp/cmpx" -f svg "$tmp/cmp/A" "$tmp/cmp/B" "$data/rb_write_bw-4096.csv" \
		"$data/rb_send_lat-sweep.csv" "$data/rb_write_bw-sweep.csv" "$data/old/rb_write_bw-sweep.csv"
	svg_series "$tmp/cmpx/bw.svg" >"$tmp/x.series"
	[ "$st" = 0 ] && [ "$(wc -l <"$tmp/x.series")" -ge 5 ] &&
		[ "$(cut -d'|' -f2 "$tmp/x.series" | sort | uniq -d | wc -l)" = 0 ] &&
		[ "$(cut -d'|' -f2 "$tmp/x.series" | grep -c rgb)" = "$(wc -l <"$tmp/x.series")" ]
	ok $? "rb-plot: no colour twice in a chart ($(wc -l <"$tmp/x.series") series: $(cut -d'|' -f2 "$tmp/x.series" | tr '\n' ' '))"
	many=() labels=()
	for k in $(seq 14); do many+=("$data/rb_write_bw-4096.csv"); labels+=(-l "run $k"); done
	run "$rb_plot" -o "$tmp/cmpm" -f svg "${labels[@]}" "${many[@]}"
	svg_series "$tmp/cmpm/bw.svg" >"$tmp/m.series"
	[ "$st" = 0 ] && [ "$(wc -l <"$tmp/m.series")" = 14 ] &&
		[ "$(cut -d'|' -f2 "$tmp/m.series" | grep rgb | sort -u | wc -l)" = 14 ]
	ok $? "rb-plot: 14 series, 14 colours (beyond the 12 picked ones: hues spread) (status $st)"
	run "$rb_plot" -o "$tmp/cmpq" -f svg -l before -l after "$tmp/cmp/A" "$tmp/cmp/B"
	[ "$st" = 0 ] && for c in bw msgrate lat cdf hist; do
		grep -q '>before' "$tmp/cmpq/$c.svg" && grep -q '>after' "$tmp/cmpq/$c.svg" || false
	done
	ok $? "rb-plot -l before -l after: every chart labels the two folders alike (status $st)"
	[ "$(svg_series "$tmp/cmpq/lat.svg" | cut -d'|' -f1 | tr '\n' ';')" = "before (3 runs);after (1 run);p50;p99;p99.9;max;" ]
	ok $? "rb-plot: latency legends: one per series, the percentiles' dashes once ($(svg_series "$tmp/cmpq/lat.svg" | cut -d'|' -f1 | tr '\n' ';'))"
	run "$rb_plot" -o "$tmp/cmpr" -l x -l y -l z "$tmp/cmp/A" "$tmp/cmp/B"
	[ "$st" = 2 ] && grep -q '3 labels (-l) for 2 files or folders' "$tmp/err"
	ok $? "rb-plot: more -l than arguments: exit 2 (status $st)"
else
	for c in "folder labels" "runs and note" "log y" "-y linear" "pooled" "colours" "-l" "lat legend" "-l count"; do
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

# --- rb-heatmap (rb_mpi's CSV, results/mpi/pairs.csv: 4 ranks, 6.36..20.39 MiB/s) ---

rb_heatmap=$(script rb-heatmap) pairs=$data/old/mpi-pairs.csv
if command -v gnuplot >/dev/null 2>&1; then
	run "$rb_heatmap" -o "$tmp/hm" -f svg "$pairs"
	[ "$st" = 0 ] && grep -q 'scale from 0)' "$tmp/hm/rb_send_bw-pairs-heatmap.svg" &&
		grep -q '>6.36<' "$tmp/hm/rb_send_bw-pairs-heatmap.svg" &&
		grep -q '>20.39<' "$tmp/hm/rb_send_bw-pairs-heatmap.svg" &&
		grep -q '> 0<' "$tmp/hm/rb_send_bw-pairs-heatmap.svg"
	ok $? "rb-heatmap: the colour scale starts at 0 and says so; values of 6 MiB/s with 3 digits (status $st)"
	run "$rb_heatmap" -o "$tmp/hm" -n z -f svg --zoom "$pairs"
	[ "$st" = 0 ] && grep -q 'scale from 6.36, not 0)' "$tmp/hm/z.svg" && ! grep -q '> 0<' "$tmp/hm/z.svg"
	ok $? "rb-heatmap --zoom: the scale spans the values and its label says it does not start at 0 (status $st)"
else
	skip "rb-heatmap: scale from 0" "gnuplot is not installed"
	skip "rb-heatmap --zoom" "gnuplot is not installed"
fi

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
		cp "$data/$template.meta.json" "$dir/data/$template-r$rep.meta.json"
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
[ "$st" = 3 ] && grep -q '^rb_write_bw .* 0\.700 .* UNDETERMINED$' "$tmp/out" &&
	grep -q 'too few pairs (4)' "$tmp/err" && grep -q '^1 undetermined' "$tmp/out"
ok $? "rb-compare: 4 pairs, all 30 % slower: too few to tell, undetermined, exit 3 (status $st)"

# One file against one file: no interval at all.
campaign "$tmp/one_b" rb_write_bw-4096 bw_avg_mibps 20
campaign "$tmp/one_n" rb_write_bw-4096 bw_avg_mibps 10
campaign "$tmp/one_s" rb_write_bw-4096 bw_avg_mibps 19
one_b=$tmp/one_b/data/rb_write_bw-4096-r1.csv
run "$rb_compare" -m bw_avg_mibps "$one_b" "$tmp/one_n/data/rb_write_bw-4096-r1.csv"
[ "$st" = 3 ] && grep -q '^rb_write_bw .* 0\.500 .* UNDETERMINED$' "$tmp/out"
ok $? "rb-compare: one file against one with half the bandwidth: undetermined, exit 3 (status $st)"
run "$rb_compare" -m bw_avg_mibps "$one_b" "$tmp/one_s/data/rb_write_bw-4096-r1.csv"
[ "$st" = 0 ] && grep -q '^rb_write_bw .* 0\.950 .* ok$' "$tmp/out"
ok $? "rb-compare: one file against one within the tolerance: ok, exit 0 (status $st)"
PAIRED=yes campaign "$tmp/mixb" rb_write_bw-4096 bw_avg_mibps 10 20 10 30 10
PAIRED=yes campaign "$tmp/mixb" rb_send_lat-64 lat_p50_us 30 30
PAIRED=yes campaign "$tmp/mixn" rb_write_bw-4096 bw_avg_mibps 7 14 7 21 7
PAIRED=yes campaign "$tmp/mixn" rb_send_lat-64 lat_p50_us 60 60
run "$rb_compare" -m bw_avg_mibps,lat_p50_us "$tmp/mixb" "$tmp/mixn"
[ "$st" = 1 ] && grep -q '^rb_write_bw .*REGRESSION$' "$tmp/out" && grep -q '^rb_send_lat .*UNDETERMINED$' "$tmp/out"
ok $? "rb-compare: a regression and an undetermined row: exit 1, the regression wins (status $st)"

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

run "$top_srcdir/scripts/tools/rb-campaign" --bin "$top_builddir" --bench rb_foo_bw -o "$tmp/c"
[ "$st" = 2 ] && grep -q 'unknown benchmark: rb_foo_bw' "$tmp/err" && [ ! -e "$tmp/c" ]
ok $? "rb-campaign: an unknown benchmark: exit 2 before any run (status $st)"
run "$top_srcdir/scripts/tools/rb-campaign" --reps 0
[ "$st" = 2 ] && grep -q 'reps is too small: 0' "$tmp/err"
ok $? "rb-campaign: --reps 0: exit 2, the option named (status $st)"
run "$top_srcdir/scripts/tools/rb-regress" -r x HEAD
[ "$st" = 2 ] && grep -q 'reps is not a number: x' "$tmp/err"
ok $? "rb-regress: -r x: exit 2 (status $st)"

# --- rb-vs-perftest --summarize: the published comparison, re-made through rbresults ---

if command -v python3 >/dev/null; then
	for d in "" /2026-12-01; do	# the sidecar format, then the earlier one ("# key=value")
		mkdir -p "$tmp/vs$d" && cp "$top_srcdir/results/perftest$d"/runs*.csv "$tmp/vs$d/" &&
			cp "$top_srcdir/results/perftest$d"/runs*.meta.json "$tmp/vs$d/" 2>/dev/null
		run python3 "$top_srcdir/scripts/dev/rb-vs-perftest" --summarize --out "$tmp/vs$d"
		rows=$(grep -c . "$tmp/vs$d/comparison.csv" 2>/dev/null)
		[ "$st" = 0 ] && [ "$rows" -gt 10 ] && grep -q '^send_bw ' "$tmp/out"
		ok $? "rb-vs-perftest --summarize on results/perftest$d's runs: exit 0, $rows rows, the table printed (status $st)"
	done
	cmp -s <(tr -d '\r' <"$tmp/vs/comparison.csv") <(tr -d '\r' <"$top_srcdir/results/perftest/comparison.csv")
	ok $? "rb-vs-perftest --summarize re-makes results/perftest/comparison.csv as published"
else
	for c in "the sidecar format" "the earlier format" "as published"; do
		skip "rb-vs-perftest --summarize: $c" "python3 is not installed"
	done
fi

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

rb_icount=$top_srcdir/scripts/dev/rb-icount
icdata=$data/icount
if command -v python3 >/dev/null 2>&1; then
	run "$rb_icount" --help
	[ "$st" = 0 ] && grep -q -- '--bin' "$tmp/out" && grep -q 'Exit status' "$tmp/out"
	ok $? "rb-icount: --help: exit 0, names --bin and the exit statuses (status $st)"
	run "$rb_icount" --version
	if [ -e "$top_srcdir/.git" ]; then
		commit=$(git -C "$top_srcdir" describe --always --dirty)
	else
		commit=$(cat "$top_srcdir/COMMIT" 2>/dev/null)
	fi
	[ "$st" = 0 ] && [ -n "$commit" ] &&
		grep -q "^rb-icount (rdmabench) $(cat "$top_srcdir/VERSION") (commit $commit)\$" "$tmp/out"
	ok $? "rb-icount: --version prints the project's version and the tree's commit $commit (status $st)"
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
total,339.000,40800,108600
raw,321.500,54900,119200'
	[ "$st" = 0 ] && [ "$(cat "$tmp/out")" = "$want" ]
	ok $? "rb-icount: --parse: the per-message figures of every bucket, calibration apart, the corrected and the raw total (status $st)"
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
	[ "$st" = 0 ] && grep -q '^| write_bw | client | 549.2 | 549.2 | 385.8 | 353.7 | 1.55 | 305.0 | 150.1 |$' "$readme" &&
		grep -q '^| write_bw | 0.500 | 0.500 | 0.000 | 0.000 | 52.281 |$' "$readme" &&
		grep -q 'boot 2, send_bw rdmabench at 800: exit status 124' "$readme" &&
		[ "$(grep -c '^[12],write_bw,' "$tmp/sum/icount.csv")" = 28 ]
	ok $? "rb-icount: --summarize: the table (raw: corrected + calibration), the movement between boots, the failed run, both boots' rows (status $st)"

	# Whole runs on loopback with stand-ins (tests/data/icount/fake): valgrind
	# writes the canned files of -n 100 and 300; the fake rb_* refuse to run
	# without --clock=monotonic and report the clock $FAKE_CLOCK says.
	icrun() { # FAKE_CLOCK OUT CASE
		run env FAKE_CLOCK="$1" RB_DEV=fake0 RB_IP=127.0.0.1 RB_ICOUNT_PORT=$((20000 + $$ % 20000)) \
			PATH="$icdata/fake:$PATH" "$rb_icount" --bin "$icdata/fake" --out "$tmp/$2" \
			--cases "$3" --bw-iters 100,300
	}
	icrun CLOCK_MONOTONIC icr write_bw
	ic=$tmp/icr
	[ "$st" = 0 ] && grep -q '^1,write_bw,rdmabench,rb_write_bw,client,raw,321.500,54900,119200,100,300$' "$ic/icount.csv" &&
		grep -q '^1,write_bw,perftest,ib_write_bw,client,total,339.000,40800,108600,100,300$' "$ic/icount.csv" &&
		[ "$(grep -c ',rdmabench,client,[13]00,0,.*,CLOCK_MONOTONIC,fake,callgrind/' "$ic/runs.csv")" = 2 ] &&
		grep -q -- '--clock=monotonic' "$ic/runs.csv" &&
		xz -dc "$ic/callgrind/boot1-write_bw-perftest-300.cg.xz" | cmp -s - "$icdata/ib_write_bw-300.cg"
	ok $? "rb-icount: a run: --clock=monotonic passed and the report's clock recorded, raw and corrected rows, the callgrind output kept (status $st)"
	python3 - "$ic" <<'PYEOF' >"$tmp/sums" 2>&1
import collections, csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + '/icount.csv')))
per_fn = collections.Counter()
for f in csv.DictReader(open(sys.argv[1] + '/functions.csv')):
    per_fn[(f['tool'], f['bucket'])] += int(f['ir_n2']) - int(f['ir_n1'])
n = 0
for r in rows:
    if r['bucket'] in ('total', 'raw'):
        continue
    n += 1
    if abs(per_fn[(r['tool'], r['bucket'])] - (int(r['ir_n2']) - int(r['ir_n1']))) > 2:
        print('%s %s: functions %d, bucket %d' % (r['tool'], r['bucket'], per_fn[(r['tool'], r['bucket'])],
                                                   int(r['ir_n2']) - int(r['ir_n1'])))
sys.exit(0 if n == 12 else 1)
PYEOF
	[ $? = 0 ] && [ ! -s "$tmp/sums" ]
	ok $? "rb-icount: functions.csv's changes add up to each bucket of icount.csv ($(head -c 200 "$tmp/sums"))"
	icrun CLOCK_MONOTONIC icr send_bw
	[ "$st" = 0 ] && [ "$(grep -c '^1,write_bw,.*,total,' "$ic/icount.csv")" = 2 ] &&
		[ "$(grep -c '^1,send_bw,.*,total,' "$ic/icount.csv")" = 2 ] &&
		grep -q '^| send_bw | client |' "$ic/README.md" && grep -q '^| write_bw | client |' "$ic/README.md"
	ok $? "rb-icount: a second run's case joins the first's in the same folder (status $st)"
	FAKE_REBUILT=1 && export FAKE_REBUILT && icrun CLOCK_MONOTONIC icb write_bw
	unset FAKE_REBUILT
	[ "$st" = 1 ] && grep -q 'write_bw rdmabench: the program changed between its two runs (commit fake-n100, then fake-n300)' "$tmp/err" &&
		! grep -q ',rdmabench,rb_write_bw,' "$tmp/icb/icount.csv" && grep -q ',perftest,ib_write_bw,' "$tmp/icb/icount.csv"
	ok $? "rb-icount: ours rebuilt between the two runs of a pair (another commit): no figures (status $st)"
	icrun TSC ict write_bw
	[ "$st" = 1 ] && grep -q 'the run used the clock TSC, not CLOCK_MONOTONIC' "$tmp/err" &&
		! grep -q ',rdmabench,rb_write_bw,' "$tmp/ict/icount.csv"
	ok $? "rb-icount: a run whose report names another clock fails, no figures from it (status $st)"
else
	for c in "--help" "--version" "unknown case" "--bw-iters" "--boots" "--parse buckets" \
		"--parse other program" "--parse cut short" "--parse equal counts" "--summarize" \
		"a run" "functions add up" "a second run" "rebuilt between runs" "another clock"; do
		skip "rb-icount: $c" "python3 is not installed"
	done
fi
# --- every script answers --version ---------------------------------------------------

vbad=""
for f in "$top_srcdir"/scripts/tools/* "$top_srcdir"/scripts/dev/* "$top_srcdir"/scripts/testbed/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	case $f in *.in) f=$(script "$(basename "$f" .in)") ;; esac
	v=$(cd "$tmp" && timeout 30 "$f" --version 2>&1 </dev/null)
	[ $? = 0 ] && echo "$v" | head -n 1 | grep -Eq "^$(basename "$f") \(rdmabench\) [0-9]+\.[0-9]+" ||
		vbad="$vbad $(basename "$f")"
done
for f in rb-plot rb-compare rb-heatmap rb-wire; do
	v=$(timeout 30 "$(script "$f")" --version 2>&1 </dev/null)
	[ $? = 0 ] && echo "$v" | grep -Eq "^$f \(rdmabench\) [0-9]" || vbad="$vbad $f"
done
[ -z "$vbad" ]
ok $? "every script in scripts/ answers --version with its name and the version (not:${vbad:- none})"

# --- the rbresults package: installed whole, the one reader of results ---------------

missing=""
for f in $(cd "$top_srcdir" && find scripts/rbresults -name '*.py' | sort); do
	grep -q "$f\b" "$top_srcdir/Makefile.am" || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "every module of scripts/rbresults/ is installed by Makefile.am (not:${missing:- none})"
# a tool reads result files through rbresults only (csv.DictReader, json.load
# of a result are rbresults's); rb-icount (scripts/dev/icount/) reads
# callgrind's files and its own CSV files, not results
own=$(cd "$top_srcdir" && grep -lE 'csv\.(DictReader|reader)|json\.loads?\(' scripts/tools/* scripts/dev/rb-vs-perftest \
	$(find scripts/dev -name '*.py' ! -path 'scripts/dev/icount/*') 2>/dev/null | tr '\n' ' ')
[ -z "$own" ]
ok $? "no tool in scripts/tools/ nor rb-vs-perftest parses CSV or JSON on its own (not: ${own:-none})"

# --- rb-quickstart: its help from any folder, --build checked before anything runs ---

qs=$top_srcdir/scripts/tools/rb-quickstart
run sh -c "cd '$tmp' && '$qs' --help"
[ "$st" = 0 ] && grep -q -- '--build DIR' "$tmp/out"
ok $? "rb-quickstart --help from another folder prints its usage with --build (status $st)"
run "$qs" --no-install --build "$tmp/nothing-here"
[ "$st" = 2 ] && grep -q -- "--build: '$tmp/nothing-here' holds no built rb_send_bw" "$tmp/err" &&
	! grep -q "building\|installing" "$tmp/err"
ok $? "rb-quickstart --build DIR without programs: exit 2 naming --build and DIR, nothing built (status $st)"

# --- the test bed's slurm-up: usage (no daemon started) -------------------------------

run "$top_srcdir/scripts/testbed/slurm-up" --cpus 0 "$tmp/s" n1=127.0.0.2
[ "$st" = 2 ] && grep -q -- "--cpus: not a positive number: '0'" "$tmp/err" && [ ! -e "$tmp/s" ]
ok $? "slurm-up: --cpus 0: exit 2, the option named (status $st)"
run "$top_srcdir/scripts/testbed/slurm-up" "$tmp/s" n1:127.0.0.2
[ "$st" = 2 ] && grep -q "a node is NAME=IPv4, not 'n1:127.0.0.2'" "$tmp/err" && [ ! -e "$tmp/s" ]
ok $? "slurm-up: a node not NAME=IP: exit 2 (status $st)"
run "$top_srcdir/scripts/testbed/slurm-up" "$tmp/s" not-this-host-x=127.0.0.2
[ "$st" = 2 ] && grep -q 'is none of the nodes' "$tmp/err" && [ ! -e "$tmp/s" ]
ok $? "slurm-up: this host not among the nodes: exit 2, nothing started (status $st)"

# --- rb-heatmap on rb_mpi's rows: failed links listed, --worst, --by switch -------

mpi=$data/rb_mpi-topology.csv
rb_heatmap=$(script rb-heatmap)
if ! command -v gnuplot >/dev/null; then
	skip "rb-heatmap --worst 2: the failed link, two outliers and how many more" "gnuplot not found"
	skip "rb-heatmap --by switch: one cell per pair of switches" "gnuplot not found"
else
	run "$rb_heatmap" -o "$tmp/hm" -n r --worst 2 "$mpi"
	[ "$st" = 0 ] && is_png "$tmp/hm/r.png" &&
		grep -q 'not measured: rbguest/2 -> rbguest/3: failed (.*completion error' "$tmp/err" &&
		[ "$(grep -c 'rb-heatmap: outlier: rbguest' "$tmp/err")" = 2 ] && grep -q 'outlier: [0-9]* more links' "$tmp/err"
	ok $? "rb-heatmap --worst 2: the failed link, two outliers and how many more (status $st)"
	run "$rb_heatmap" -o "$tmp/hm" -n s --by switch "$mpi"
	[ "$st" = 0 ] && is_png "$tmp/hm/s.png" && grep -qx "$tmp/hm/s.png" "$tmp/out"
	ok $? "rb-heatmap --by switch: one cell per pair of switches (status $st)"
fi
awk -F, 'BEGIN { OFS = "," } /^#/ { print; next } { NF -= 2; print }' "$mpi" >"$tmp/noswitch.csv"
run "$rb_heatmap" -o "$tmp/hm" --by switch "$tmp/noswitch.csv"
[ "$st" = 2 ] && grep -q -- '--by switch: .* has no src_switch column' "$tmp/err"
ok $? "rb-heatmap --by switch without switch columns: exit 2, said (status $st)"

# at scale: 256 ranks made by tests/data/mpi-synth.py (not a stored file)
synth=$top_srcdir/tests/data/mpi-synth.py
python3 "$synth" "$mpi" "$tmp/m256.csv" 256 && run "$rb_heatmap" -o "$tmp/hm256" --worst 3 "$tmp/m256.csv"
[ "$st" = 0 ] && [ ! -s "$tmp/out" ] && grep -q 'rb-heatmap: 256 ranks: no chart; the 3 worst links' "$tmp/err" &&
	[ "$(grep 'worst:' "$tmp/err" | head -2 | paste -sd'|')" = "rb-heatmap: worst: h7 -> h200: 100.00 MiB/s|rb-heatmap: worst: h3 -> h5: 400.00 MiB/s" ] &&
	[ "$(grep -c 'worst:' "$tmp/err")" = 3 ]
ok $? "rb-heatmap, 256 ranks without switches: no chart, the 3 worst links listed, worst first (status $st)"
if ! command -v gnuplot >/dev/null; then
	skip "rb-heatmap, 256 ranks on 4 switches: one cell per switch pair" "gnuplot not found"
else
	python3 "$synth" "$mpi" "$tmp/s256.csv" 256 64 && run "$rb_heatmap" -o "$tmp/hm256" -n s256 "$tmp/s256.csv"
	[ "$st" = 0 ] && is_png "$tmp/hm256/s256.png" && grep -q 'rb-heatmap: 256 ranks: one cell per switch pair' "$tmp/err" &&
		[ "$(grep -c 'outlier: sw1 -> sw[023]: 50 %' "$tmp/err")" = 3 ] && ! grep -q 'outlier: sw[023] ->' "$tmp/err"
	ok $? "rb-heatmap, 256 ranks on 4 switches: one cell per switch pair, sw1's slow uplinks the outliers (status $st)"
fi

# --- rb-testbed: its own options (no guest is booted for these) ---
run bash "$top_srcdir/scripts/testbed/rb-testbed" --tcg bogus -- true
[ "$st" = 2 ] && grep -q -- "--tcg: single or multi, not 'bogus'" "$tmp/err"
ok $? "rb-testbed --tcg bogus: exit 2 naming --tcg and what it takes (status $st)"
run bash "$top_srcdir/scripts/testbed/rb-testbed" --help
[ "$st" = 0 ] && grep -q -- '--tcg single|multi' "$tmp/out" && grep -q -- '--aslr' "$tmp/out" &&
	grep -q -- '--tick US' "$tmp/out" && grep -q -- '--cached DIR' "$tmp/out"
ok $? "rb-testbed --help: --tcg, --aslr, --tick and --cached listed (status $st)"
run bash "$top_srcdir/scripts/testbed/rb-testbed" --cached "$tmp/nosuchdir" -- true
[ "$st" = 2 ] && grep -q -- "--cached: no such folder: $tmp/nosuchdir" "$tmp/err"
ok $? "rb-testbed --cached with no such folder: exit 2 naming --cached and the folder (status $st)"
run bash "$top_srcdir/scripts/testbed/rb-testbed" --tick 2ms -- true
[ "$st" = 2 ] && grep -q -- "--tick is not a number: 2ms" "$tmp/err"
ok $? "rb-testbed --tick 2ms: exit 2 naming --tick and the value (status $st)"
run env RB_TESTBED_TICK=100001 bash "$top_srcdir/scripts/testbed/rb-testbed" -- true
[ "$st" = 2 ] && grep -q -- "RB_TESTBED_TICK is too large: 100001" "$tmp/err"
ok $? "RB_TESTBED_TICK=100001: exit 2 naming the variable and the limit (status $st)"
# its parts (scripts/testbed/lib/): each installed and sourced; found beside
# it, or where an installed one has them ($(pkgdatadir)/testbed/lib)
missing=""
for f in $(cd "$top_srcdir" && ls scripts/testbed/lib/*); do
	grep -q "$f\b" "$top_srcdir/Makefile.am" && grep -q "\$tb_lib/$(basename "$f")\"" "$top_srcdir/scripts/testbed/rb-testbed" ||
		missing="$missing $f"
done
[ -z "$missing" ]
ok $? "every part in scripts/testbed/lib/ is installed by Makefile.am and sourced by rb-testbed (not:${missing:- none})"
mkdir -p "$tmp/tbinst/bin" "$tmp/tbinst/share/rdmabench/testbed/lib"
cp "$top_srcdir/scripts/testbed/rb-testbed" "$tmp/tbinst/bin/"
run bash "$tmp/tbinst/bin/rb-testbed" --help
[ "$st" = 125 ] && grep -q "the test bed's lib/ (cache.sh, qemu.sh, modes.sh) not found" "$tmp/err"
ok $? "rb-testbed without its lib/: exit 125, naming what it misses (status $st)"
cp "$top_srcdir"/scripts/testbed/lib/* "$tmp/tbinst/share/rdmabench/testbed/lib/"
run bash "$tmp/tbinst/bin/rb-testbed" --tick 2ms -- true
[ "$st" = 2 ] && grep -q -- "--tick is not a number: 2ms" "$tmp/err"
ok $? "rb-testbed as installed (bin/, share/rdmabench/testbed/lib/): its parts found (status $st)"


# ---- rb_check (tests/integration/lib.sh): through run-all.sh's check
# server and in a python3 of its own, the same status and output ----
chk_case() { # NAME ARGS...: both ways; equal status and output
	local name=$1 a b sa sb
	shift
	a=$(cd "$tmp" && RB_CHECK_FIFO="" rb_check "$@")
	sa=$?
	b=$(cd "$tmp" && rb_check "$@")
	sb=$?
	[ "$sa" = "$sb" ] && [ "$a" = "$b" ] && [ "$sa" = "$chk_want" ]
	ok $? "rb_check, $name: status $sb ($sa in a python3 of its own, $chk_want wanted), the same output"
	[ "$a" = "$b" ] || { echo "# own: $a"; echo "# served: $b"; }
}
(
	RB_TMP=$tmp/it
	mkdir -p "$RB_TMP"
	tap_diag() { echo "# $*"; }
	# shellcheck source=tests/integration/lib.sh
	. "$top_srcdir/tests/integration/lib.sh"
	rb_check_serve
	f=$data/rb_write_bw-4096.csv
	chk_want=0 chk_case "a bandwidth row" "$f" 'bw(r, 4096, 200)' "status == 'complete'"
	chk_want=1 chk_case "a check that fails" "$f" 'bw(r, 4096, 201)'
	chk_want=1 chk_case "the second group fails" "$f" 'r is not None' -- "$f" 'len(rows) == 2'
	chk_want=1 chk_case "a missing file" "$tmp/none.csv" 'True'
	chk_want=1 chk_case "a bad expression" "$f" 'rows[7]'
	chk_want=0 chk_case "--meta-lines (rb_meta_lines)" --meta-lines "$f"
	rb_meta_lines "$f" | grep -qx '# test=rb_write_bw'
	ok $? "rb_meta_lines: the sidecar's metadata as '# KEY=VALUE' lines"
	cp "$f" "$tmp/rel.csv"
	chk_want=0 chk_case "a path relative to the working folder" rel.csv 'len(rows) == 1'
	n0=$(ls "$RB_TMP"/check.*.done 2>/dev/null | wc -l)
	chk_want=0 RB_X=7 chk_case "E[...] (this shell's environment)" "$f" 'E["RB_X"] == "7"'
	[ "$(ls "$RB_TMP"/check.*.done | wc -l)" = "$n0" ] && [ "$n0" -ge 8 ]
	ok $? "rb_check: $n0 checks answered by the server, none that read E[...]"
	# rb_listening and rb_nap: no process started
	"$RB_PY" -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(30)' >"$tmp/port" &
	lpid=$!
	for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
	port=$(cat "$tmp/port")
	rb_listening "$port" && ! rb_listening $((port ^ 1))
	ok $? "rb_listening: a listener on $port seen, none on $((port ^ 1))"
	kill "$lpid"
	echo "rb_x: waiting for a client on port 1" >"$tmp/said"
	t0=$SECONDS
	wait_listen 1 "$tmp/said" && ((SECONDS - t0 < 2))
	ok $? "wait_listen PORT FILE: the server's 'waiting for a client on port PORT' is enough"
	true &
	wait $!
	t0=$SECONDS
	! wait_listen 1 "$tmp/none" $! && ((SECONDS - t0 < 2))
	ok $? "wait_listen PORT FILE PID: the server gone, no 10 s wait ($((SECONDS - t0)) s)"
	rb_case_dir "send_bw -R RC/x:y"
	[ "$RB_CASE_DIR" = "$RB_TMP/$(echo "send_bw -R RC/x:y" | tr -c "A-Za-z0-9_.-" _)" ]
	ok $? "rb_case_dir: the case's name, each other character made _, and a _ ($RB_CASE_DIR)"
	t0=$EPOCHREALTIME
	rb_nap 0.3
	dt=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
	[ -n "$RB_NAP_FD" ] && awk -v d="$dt" 'BEGIN { exit !(d >= 0.29 && d < 5) }'
	ok $? "rb_nap 0.3: $dt s, a read that times out (fd $RB_NAP_FD)"
	kill "$RB_CHECK_PID"
	wait "$RB_CHECK_PID" 2>/dev/null
	t0=$SECONDS
	out=$(RB_CHECK_WAIT_S=1 rb_check "$f" 'bw(r, 4096, 200)')
	st=$?
	[ "$st" = 0 ] && [[ $out == *"no answer from the check server"* ]] && ((SECONDS - t0 < 10))
	ok $? "rb_check, the server gone: answered in a python3 of its own after RB_CHECK_WAIT_S, saying so (status $st, $((SECONDS - t0)) s)"
	rb_check_stop
	echo "$n $failed" >"$tmp/counts"
)
read -r n failed <"$tmp/counts"

echo "1..$n"
[ "$failed" = 0 ]
