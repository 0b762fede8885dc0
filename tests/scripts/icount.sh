# shellcheck shell=bash
# tests/scripts/icount.sh, sourced by tests/scripts.sh (its helpers: ok,
# skip, run, script; $tmp, $data): rb-icount: usage, its callgrind reader on
# canned files, whole runs with stand-ins (tests/data/icount/fake).

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
