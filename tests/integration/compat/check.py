"""The checks of one line of tests/integration/compat/lines.txt, after
tests/integration/prog/compat.sh ran it (the grammar: lines.txt's head).

    check.py --plan PLAN               every entry of plan.py's output
    check.py DIR run CHECK...
    check.py DIR refuse OPTION [TEXT...]
    check.py DIR fail TEXT...

DIR is the case folder: server.rc, client.rc, server.err, client.err,
client.out, client.json (our --json), client.out_json (perftest's
--out_json, where the line asks for it).  Prints what failed, one line
each, and exits 1; exits 0 when every check holds."""

import json
import math
import os
import re
import sys

FIGURES = ('bw_avg_mibps', 'lat_p50_us', 'lat_avg_us', 'msg_rate_mpps')


def read(d, name):
    try:
        with open(os.path.join(d, name)) as f:
            return f.read()
    except OSError:
        return None


def rcs(d):
    return {s: (read(d, s + '.rc') or '?').strip() for s in ('server', 'client')}


def check_refuse(d, words):
    bad = []
    for side, rc in rcs(d).items():
        err = read(d, side + '.err') or ''
        if rc != '2':
            bad.append('%s exited %s, not 2 (a refusal)' % (side, rc))
            continue
        if 'unknown option' in err:
            bad.append('%s says "unknown option": a refusal names the option as perftest\'s' % side)
        for text in words:
            if text.lower() not in err.lower():
                bad.append('%s\'s stderr does not name "%s"' % (side, text))
    return bad


def check_fail(d, words):
    """fail TEXT...: accepted, then a runtime failure: both sides exit 1
    (the server when its peer never came), the client's stderr naming each
    TEXT (what failed and what to check)."""
    bad = []
    for side, rc in rcs(d).items():
        if rc != '1':
            bad.append('%s exited %s, not 1 (a runtime failure)' % (side, rc))
    err = (read(d, 'client.err') or '').lower()
    if 'unknown option' in err:
        bad.append('client says "unknown option"')
    bad += ['client\'s stderr does not name "%s"' % t for t in words if t.lower() not in err]
    return bad


def powers(spec):
    a, b = (int(x) for x in spec.split('..'))
    out = []
    while a <= b:
        out.append(a)
        a *= 2
    return out


def figure_ok(row):
    key = next((k for k in FIGURES if k in row), None)
    try:
        v = float(row[key]) if key else float('nan')
    except (TypeError, ValueError):
        v = float('nan')
    return key, math.isfinite(v) and v > 0


def check_doc(doc):
    bad = []
    if doc.get('status') != 'complete':
        bad.append('status %r: %s' % (doc.get('status'), doc.get('error')))
    rows = doc.get('results') or []
    if not rows:
        bad.append('no result rows')
    for r in rows:
        key, ok = figure_ok(r)
        if not ok:
            bad.append('size %s: figure %s is %r, not above zero' % (r.get('size_bytes'), key, r.get(key)))
    return bad


def check_table(out):
    """stdout's figures: perftest's one number (--output), else each row of
    the table (a line after a '#bytes' header, starting with the size) has
    one above 0."""
    if re.fullmatch(r'\s*[0-9.]+(e[-+]?\d+)?\s*', out):
        return []
    rows, table = [], False
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == '#bytes':
            table = True
        elif table and f and f[0].isdigit():
            rows.append(f)      # empty columns may show as '-' (no peak with -D)
    if not rows:
        return ['stdout has no table rows']
    return ['stdout row %s: no figure above zero' % ' '.join(r) for r in rows
            if not any(re.fullmatch(r'[0-9.]+', x) and float(x) > 0 for x in r[2:])]


def same(have, want):
    """HAVE (a metadata value) is WANT: as text, or as numbers (3.0 is 3)."""
    if str(have) == want:
        return True
    try:
        return float(have) == float(want)
    except (TypeError, ValueError):
        return False


def one_check(word, doc, d):
    meta, rows = doc.get('meta') or {}, doc.get('results') or []
    sizes = [int(r.get('size_bytes', -1)) for r in rows]
    key, op, want = re.match(r'([^=~]+)([=~])(.*)', word).groups()
    if key == 'size':
        return None if sizes and set(sizes) == {int(want)} else 'sizes %s, not only %s' % (sizes, want)
    if key == 'sizes':
        return None if sizes == powers(want) else 'sizes %s, not %s' % (sizes, want)
    if key == 'mode':
        have = 'duration_s' if want == 'duration' else 'iterations'
        return None if have in meta else 'not a %s run: no %s in the metadata' % (want, have)
    if key == 'stdout':
        out = read(d, 'client.out') or ''
        if op == '=':
            ok = re.fullmatch(r'\s*[0-9.]+(e[-+]?\d+)?\s*', out) is not None
            return None if ok and float(out) > 0 else 'stdout is not one number above zero: %r' % out[:200]
        return None if re.search(want, out) else 'stdout does not match /%s/' % want
    if key == 'outjson':
        text = read(d, 'client.out_json')
        try:
            found = text is not None and want in json.dumps(json.loads(text))
        except ValueError as e:
            return 'client.out_json is not JSON: %s' % e
        return None if found else 'client.out_json missing or without %s' % want
    have = meta.get(key)
    if op == '=':
        return None if same(have, want) else 'metadata %s is %r, not %s' % (key, have, want)
    return None if have is not None and re.search(want, str(have)) else \
        'metadata %s is %r, not /%s/' % (key, have, want)


def check_run(d, words):
    bad = ['%s exited %s (its stderr: above)' % (s, rc) for s, rc in rcs(d).items() if rc != '0']
    text = read(d, 'client.json')
    try:
        doc = json.loads(text) if text else None
    except ValueError as e:
        return bad + ['client.json is not JSON: %s' % e]
    if doc is None and all(w.startswith('stdout') for w in words):
        doc = {}                # the checks read stdout: no --json was given
        bad += check_table(read(d, 'client.out') or '')
    elif doc is None:
        return bad + ['no client.json']
    else:
        bad += check_doc(doc)
    for w in words:
        msg = one_check(w, doc, d)
        if msg:
            bad.append(w + ': ' + msg)
    return bad


def check(d, expect):
    outcome, *words = expect.split()
    if outcome == 'fail':
        return check_fail(d, words)
    return check_refuse(d, words) if outcome == 'refuse' else check_run(d, words)


def main(argv):
    """check.py --plan PLAN: each entry of plan.py's output checked, a line
    each: 0 or 1, a tab, what failed (' | ' between).  check.py DIR EXPECT:
    one, what failed a line each, exit 1 when anything did."""
    if argv[0] == '--plan':
        with open(argv[1]) as f:
            for entry in f:
                n, name, d, srv, cli, expect = entry.rstrip('\n').split('\t')
                bad = check(d, expect) if srv else ['plan.py could not read the line']
                print('%d\t%s' % (1 if bad else 0, ' | '.join(bad)))
        return 0
    bad = check(argv[0], ' '.join(argv[1:]))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
