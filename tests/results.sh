#!/bin/bash
# Automake test (TAP), no device needed: every published result file under
# results/ reads as it is, the way its users read it.  A CSV of today's
# format (metadata in NAME.meta.json beside it) must load with plain
# pandas.read_csv, no options; one of the earlier format ("# key=value"
# lines around the table) must sit in a folder that results/README.md names
# as earlier-format, and load with comment='#'.  Each sidecar .meta.json is
# valid JSON naming a status.  The plan is the file count, declared first.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import pandas' 2>/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "1..1"; echo "not ok 1 - pandas is installed (Debian python3-pandas)"; exit 1
	fi
	echo "1..0 # SKIP no pandas (apt-get install python3-pandas)"; exit 0
fi
if [ ! -d "$top_srcdir/results" ]; then
	echo "1..1"; echo "not ok 1 - $top_srcdir/results exists"; exit 1
fi
exec "$py" - "$top_srcdir" <<'PY'
import glob, json, os, re, sys
import pandas as pd
top = sys.argv[1]
os.chdir(top)
readme = open('results/README.md').read()
# "Earlier format: results/a, results/b" lines in results/README.md
older = set()
for m in re.finditer(r'^Earlier format: (.*)$', readme, re.M):
    older.update(x.strip().rstrip('.') for x in m.group(1).split(','))
csvs = sorted(glob.glob('results/**/*.csv', recursive=True))
metas = sorted(glob.glob('results/**/*.meta.json', recursive=True))
print('1..%d' % (len(csvs) + len(metas)))
n = 0
bad = 0
def ok(st, name):
    global n, bad
    n += 1
    print(('ok' if st else 'not ok') + ' %d - %s' % (n, name))
    bad += not st
for f in csvs:
    first = open(f, errors='replace').readline()
    old = first.startswith('#')
    try:
        if old:
            inold = any(f.startswith(d + '/') for d in older)
            pd.read_csv(f, comment='#')
            ok(inold, '%s: earlier format, in a folder results/README.md names as such%s'
               % (f, '' if inold else ' (it is not: re-make it with today\'s tools)'))
        else:
            df = pd.read_csv(f)
            ok(len(df.columns) > 0, '%s: pandas.read_csv reads it as it is (%d rows, %d columns)'
               % (f, len(df), len(df.columns)))
    except Exception as e:
        ok(False, '%s: %s' % (f, str(e).splitlines()[0]))
for f in metas:
    try:
        d = json.load(open(f))
        ok('status' in d, '%s: JSON with a status (%s)' % (f, d.get('status')))
    except Exception as e:
        ok(False, '%s: %s' % (f, str(e).splitlines()[0]))
sys.exit(1 if bad else 0)
PY
