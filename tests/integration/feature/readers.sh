# needs: one-guest lane
# The files a user opens, as the programs write them on a device: every CSV
# (the results of both sides, -H, --raw) read by Python's csv module and by
# pandas.read_csv with their default arguments, and by gnuplot as
# rdmabench(7)'s example plots it; each with its NAME.meta.json sidecar
# saying what was measured and how the run ended.  rb_mpi's CSV: prog/mpi.sh.
# pandas in the full run only (RB_FULL=1): importing it takes about a minute
# of the fast run's busiest boot under emulation; the fast run reads the
# same files with csv.DictReader and gnuplot.
# Sourced by run-all.sh (see lib.sh).

# The cases below, skips included (tap_plan: lib.sh).
tap_plan 3

# readers FILE...: csv.DictReader and (the full run) pandas.read_csv
# (defaults) read each FILE; both see the same header and rows, no row is ragged, the first
# column is numeric; the sidecar's columns are the header and its rows
# count (results files) the rows.  Says what failed as "# " lines.
readers() {
	local py=/usr/bin/python3
	[ -x "$py" ] || py=python3
	"$py" - "$@" <<'PYEOF' | sed 's/^/# /'
import csv, json, os, sys
pandas = bad = None
if os.environ.get("RB_FULL", "0") == "1":
    try:
        import pandas
    except ImportError:
        print("pandas is not installed (Debian: python3-pandas)")
        bad = True
for p in sys.argv[1:]:
    try:
        with open(p, newline="") as f:
            rows = list(csv.DictReader(f))
        header = list(rows[0]) if rows else []
        assert rows, "no rows"
        assert all(None not in r and None not in r.values() for r in rows), "a ragged row"
        side = json.load(open(p[:-4] + ".meta.json"))
        assert [c["key"] for c in side["columns"]] == header, "sidecar columns %s" % side["columns"]
        assert side["status"] == "complete", "sidecar status %s" % side["status"]
        assert side.get("rows", len(rows)) == len(rows), "sidecar rows %s" % side.get("rows")
        if pandas is not None:
            d = pandas.read_csv(p)
            assert list(d.columns) == header, "pandas columns %s" % list(d.columns)
            assert len(d) == len(rows), "pandas %d rows, csv %d" % (len(d), len(rows))
            assert d.dtypes.iloc[0].kind in "iuf", "pandas: %s is %s" % (header[0], d.dtypes.iloc[0])
    except Exception as e:
        print("%s: %s" % (p, e))
        bad = True
sys.exit(1 if bad else 0)
PYEOF
	return "${PIPESTATUS[0]}"
}

# Both runs first, then one readers call: importing pandas takes ~1 min
# under emulation (the full run).
rb_csv "readers lat" rb_send_lat "-n 300" \
	'-H $RB_CASE_DIR/hist.csv --raw=$RB_CASE_DIR/raw.csv' &&
	rb_check "$(rb_file hist.csv)" 'side["meta"]["test"] == "rb_send_lat"' \
		'side["meta"]["size_bytes"] == 2' 'side["meta"]["unit"] == "ns"' \
		'side["meta"]["latency"] == "one-way = round trip / 2"' \
		'sum(x["count"] for x in rows) == 300' \
	-- "$(rb_file raw.csv)" 'side["meta"]["kind"] == "raw samples"' 'len(rows) == 300' \
	-- "$(rb_file client.csv)" 'comments == 0' 'status == "complete"' \
		'meta["test"] == "rb_send_lat"' 'side["title"] == "Send latency"' 'lat(r, 2, 300)'
tap_ok $? "rb_send_lat -H --raw: the sidecars say test, size, which latency, unit; no comment line"
rd_files=("$(rb_file client.csv)" "$(rb_file server.csv)" "$(rb_file hist.csv)" "$(rb_file raw.csv)")

# A sweep, plotted as rdmabench(7) shows: gnuplot takes the columns by name.
rb_csv "readers bw sweep" rb_write_bw "-a -n 4"
rd_st=$?
rd_files+=("$(rb_file client.csv)" "$(rb_file server.csv)")
if command -v gnuplot >/dev/null 2>&1; then
	[ "$rd_st" = 0 ] &&
		gnuplot -e "set terminal svg; set output '$(rb_file bw.svg)'; \
set datafile separator comma; set datafile columnheaders; set logscale x 2; \
plot '$(rb_file client.csv)' using 'size_bytes':'bw_avg_mibps' with linespoints; \
stats '$(rb_file client.csv)' using 'size_bytes':'bw_avg_mibps' nooutput; \
print STATS_records" 2>"$(rb_file gnuplot.err)" &&
		[ "$(tail -n 1 "$(rb_file gnuplot.err)")" = 23 ] && grep -q '<svg' "$(rb_file bw.svg)" ||
		{ tap_diag "gnuplot: $(cat "$(rb_file gnuplot.err)" 2>/dev/null)"; false; }
	tap_ok $? "rb_write_bw -a: gnuplot plots size_bytes:bw_avg_mibps by name, 23 records"
else
	tap_skip "rb_write_bw -a: gnuplot plots the CSV by name" "gnuplot is not installed"
fi

readers "${rd_files[@]}"
tap_ok $? "csv.DictReader$(rb_fast_full '' ' and pandas.read_csv (defaults)') read$(rb_fast_full s '') the 6 CSV files of both runs alike"
