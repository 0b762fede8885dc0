# shellcheck shell=bash
# tests/scripts/plot.sh, sourced by tests/scripts.sh (its helpers: ok, skip,
# run, script; $tmp, $data): rb-plot on the canned results (charts, legends,
# colours, the earlier format, bad input), the CSV readers, rb-heatmap on
# rb_mpi's pairs.

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
	# rb_mesh check's documents (the one-guest test bed, 3 ranks on rxe0 and
	# rxe1; a run with thresholds no link meets, 2 ranks)
	run "$rb_heatmap" -o "$tmp/hm" -f svg "$data/mesh-check.csv"
	[ "$st" = 0 ] && [ "$(wc -l <"$tmp/out")" = 2 ] &&
		grep -q 'rail 0 (rxe0): bw_avg_mibps' "$tmp/hm/rb_mesh-check-rail0-bw.svg" &&
		grep -q '>62.9<' "$tmp/hm/rb_mesh-check-rail0-bw.svg" &&
		grep -q 'rail 1 (rxe1)' "$tmp/hm/rb_mesh-check-rail1-bw.svg" && grep -q '>64.7<' "$tmp/hm/rb_mesh-check-rail1-bw.svg" &&
		! grep -q 'fail:' "$tmp/err"
	ok $? "rb-heatmap on rb_mesh check's CSV: a chart per rail, 62.87 MiB/s shown as 62.9 on rail 0 (status $st)"
	run "$rb_heatmap" -o "$tmp/hm" -f svg --metric lat --rail 1 "$data/mesh-check-fail.json"
	[ "$st" = 0 ] && [ "$(grep -c '^rb-heatmap: fail: rail 1: rbguest1 rxe1 -> rbguest1 rxe1: .*active MTU 1024, not 4096' "$tmp/err")" = 2 ] &&
		! grep -q 'rail 0' "$tmp/err" && grep -q '>154<' "$tmp/hm/rb_mesh-check-rail1-lat.svg" &&
		grep -q 'usec p99' "$tmp/hm/rb_mesh-check-rail1-lat.svg" && [ ! -e "$tmp/hm/rb_mesh-check-rail0-lat.svg" ]
	ok $? "rb-heatmap --metric lat --rail 1: rail 1's p99 (153.71 us as 154), its two failing links and their reasons on stderr (status $st)"
	run "$rb_heatmap" -o "$tmp/hm" --rail 5 "$data/mesh-check-fail.json"
	[ "$st" = 2 ] && grep -q -- '--rail 5: not in the file (rails: 0 1)' "$tmp/err"
	ok $? "rb-heatmap --rail 5 on a two-rail check: exit 2 naming the rails (status $st)"
else
	skip "rb-heatmap: scale from 0" "gnuplot is not installed"
	skip "rb-heatmap --zoom" "gnuplot is not installed"
	skip "rb-heatmap: rb_mesh check's rails" "gnuplot is not installed"
	skip "rb-heatmap --metric lat --rail 1" "gnuplot is not installed"
	skip "rb-heatmap --rail 5" "gnuplot is not installed"
fi
