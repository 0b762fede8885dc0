# shellcheck shell=bash
# tests/scripts/compare.sh, sourced by tests/scripts.sh (its helpers: ok,
# skip, run, script; $tmp, $data): rb-compare on campaign folders,
# rb-campaign and rb-regress usage, rb-vs-perftest --summarize.

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
