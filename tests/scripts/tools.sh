# shellcheck shell=bash
# tests/scripts/tools.sh, sourced by tests/scripts.sh (its helpers: ok,
# skip, run, script; $tmp, $data): every script's --version, the rbresults
# package, rb-quickstart, slurm-up, rb-heatmap at scale, rb-testbed's own
# options.

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
run bash "$top_srcdir/scripts/testbed/rb-testbed" --nics 3 -- true
[ "$st" = 2 ] && grep -q -- "--nics is too large: 3 (at most 2)" "$tmp/err"
ok $? "rb-testbed --nics 3: exit 2 naming --nics and its limit (status $st)"
run bash "$top_srcdir/scripts/testbed/rb-testbed" --nics 2 --mode host -- true
[ "$st" = 2 ] && grep -q -- "--nics 2 needs --mode vm" "$tmp/err"
ok $? "rb-testbed --nics 2 --mode host: exit 2, rail 1 is the VM's (status $st)"
run bash "$top_srcdir/scripts/testbed/rb-testbed" --help
[ "$st" = 0 ] && grep -q -- '--nics N' "$tmp/out" && grep -q 'RB_DEV1' "$tmp/out"
ok $? "rb-testbed --help: --nics N and RB_DEV1 listed (status $st)"
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
[ "$st" = 125 ] && grep -q "the test bed's lib/ (kernel.sh, cache.sh, qemu.sh, modes.sh) not found" "$tmp/err"
ok $? "rb-testbed without its lib/: exit 125, naming what it misses (status $st)"
cp "$top_srcdir"/scripts/testbed/lib/* "$tmp/tbinst/share/rdmabench/testbed/lib/"
run bash "$tmp/tbinst/bin/rb-testbed" --tick 2ms -- true
[ "$st" = 2 ] && grep -q -- "--tick is not a number: 2ms" "$tmp/err"
ok $? "rb-testbed as installed (bin/, share/rdmabench/testbed/lib/): its parts found (status $st)"
