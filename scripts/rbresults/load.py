"""rbresults.load: the files rdmabench writes, as Result and Histogram objects.

Three kinds, told apart by their header row (or first line):
  result CSV   a header row, one row per size (bandwidth or latency
               columns); title, metadata and status in the sidecar
               NAME.meta.json: {"schema_version":1,"title":...,"meta":{...},
               "columns":[...],"rows":N,"status":...,"error":...}
  result JSON  {"schema_version":1,"title":...,"meta":{...},"results":[...]}
  histogram    lower_ns,upper_ns,count,cumulative_fraction (its sidecar says
               test, size_bytes, latency and unit)
The earlier format (the files in results/) is read too: the same CSV after "# rdmabench TITLE"
and "# key=value" comment lines, ending with "# status=..."; a histogram
after "# rdmabench histogram schema=1".
A file of another kind or schema version raises InputError (exit status 2).
"""

import csv
import json
import os
import re

SCHEMA = 1


class InputError(Exception):
    """A file that is not one of ours, or of another schema version."""


class Result:
    """One result file: kind 'bw' or 'lat', its metadata and its rows."""

    def __init__(self, path, title, meta, rows, status):
        self.path, self.title, self.meta, self.status = path, title, meta, status
        self.kind = 'bw' if rows_have(rows, 'bw_avg_mibps') else 'lat'
        # --interval: the interval rows (CSV: row_kind; JSON: each size's
        # intervals array), every one, a 0-message dip included
        self.intervals = [r for r in rows if r.get('row_kind') == 'interval']
        self.intervals += [i for r in rows for i in (r.get('intervals') or [])
                           if isinstance(r.get('intervals'), list)]
        # a row without figures (a failed size) carries nothing to show
        self.rows = [r for r in rows if r.get('iterations') and r.get('size_bytes') and
                     r.get('row_kind') != 'interval']

    @property
    def test(self):
        return self.meta.get('test') or self.title

    @property
    def rep(self):
        """The repetition, from a name like rb_write_bw-65536-r3.csv (or None)."""
        m = re.search(r'-r(\d+)(?:\.[a-z]+)*$', os.path.basename(self.path))
        return int(m.group(1)) if m else None


class Histogram:
    """A latency histogram; meta and size come from its result file, if any."""

    def __init__(self, path, buckets):
        self.path, self.buckets = path, buckets
        self.meta, self.title, self.size = {}, '', None
        m = re.match(r'(.*)\.hist(?:-(\d+))?\.csv$', path)
        if m and m.group(2):
            self.size = int(m.group(2))
        sibling = m.group(1) + '.csv' if m else None
        if sibling and os.path.exists(sibling):
            res = read(sibling)
            if isinstance(res, Result):
                self.meta, self.title = res.meta, res.title
                if self.size is None and len(res.rows) == 1:
                    self.size = int(res.rows[0]['size_bytes'])


def rows_have(rows, key):
    return any(r.get(key) is not None for r in rows)


def number(text):
    if text is None or text == '':
        return None
    try:
        return float(text)
    except ValueError:
        return text


def check_schema(path, version):
    if str(version) != str(SCHEMA):
        raise InputError('%s: schema version %s; this tool reads version %d'
                         % (path, version, SCHEMA))


def read(path):
    """A Result or a Histogram; InputError when the file is not ours."""
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError('%s: %s' % (path, getattr(e, 'strerror', None) or e))
    if text.lstrip().startswith('{'):
        return read_json(path, text)
    first = text.split('\n', 1)[0]
    if not first.startswith('#'):
        return read_plain(path, text, first)
    m = re.match(r'# rdmabench (histogram|raw samples) schema=(\S+)', first)
    if m:
        check_schema(path, m.group(2))
        if m.group(1) != 'histogram':
            raise InputError('%s: raw samples are not read here; use a -H histogram' % path)
        return read_histogram(path, text)
    if not first.startswith('# rdmabench'):
        raise InputError('%s: not an rdmabench result file (it does not start with "# rdmabench")'
                         % path)
    return read_csv(path, text, first[len('# rdmabench'):].strip())


def sidecar_path(path):
    """x.csv -> x.meta.json, as the binaries name it."""
    return (path[:-4] if path.endswith('.csv') else path) + '.meta.json'


def read_sidecar(path):
    """The sidecar of the CSV file path, or {} when there is none."""
    side = sidecar_path(path)
    try:
        with open(side, encoding='utf-8') as f:
            doc = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise InputError('%s: unreadable sidecar of %s: %s' % (side, path, e))
    if not isinstance(doc, dict):
        raise InputError('%s: not an rdmabench sidecar' % side)
    check_schema(side, doc.get('schema_version'))
    return doc


def read_plain(path, text, first):
    """A CSV file as the binaries write it: the header row first, nothing but rows."""
    header = next(csv.reader([first]), [])
    side = read_sidecar(path)
    if header[:1] == ['lower_ns']:
        return read_histogram(path, text, side)
    if header[:1] == ['sample']:
        raise InputError('%s: raw samples are not read here; use a -H histogram' % path)
    reader = csv.DictReader(text.splitlines())
    need_columns(path, reader.fieldnames or [])
    rows = [{k: number(v) for k, v in row.items()} for row in reader]
    meta = {k: '' if v is None else str(v) for k, v in (side.get('meta') or {}).items()}
    return Result(path, side.get('title') or '', meta, rows, side.get('status'))


def read_csv(path, text, title):
    meta, status, body = {}, None, []
    for line in text.splitlines()[1:]:
        if line.startswith('#'):
            key, sep, value = line[1:].strip().partition('=')
            if key == 'status' and sep:
                status = value
            elif sep:
                meta[key] = value
        elif line.strip():
            body.append(line)
    for key in ('schema', 'schema_version'):
        if key in meta:
            check_schema(path, meta[key])
    reader = csv.DictReader(body)
    need_columns(path, reader.fieldnames or [])
    rows = [{k: number(v) for k, v in row.items()} for row in reader]
    return Result(path, title, meta, rows, status)


def read_json(path, text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise InputError('%s: not an rdmabench result file (bad JSON: %s)' % (path, e))
    if not isinstance(doc, dict) or 'schema_version' not in doc or 'results' not in doc:
        raise InputError('%s: not an rdmabench result file (no schema_version/results)' % path)
    check_schema(path, doc['schema_version'])
    rows = doc['results'] or []
    need_columns(path, list(rows[0]) if rows else ['size_bytes', 'bw_avg_mibps'])
    meta = {k: '' if v is None else str(v) for k, v in (doc.get('meta') or {}).items()}
    return Result(path, doc.get('title') or '', meta, rows, doc.get('status'))


def need_columns(path, names):
    if 'size_bytes' not in names or not ({'bw_avg_mibps', 'lat_p50_us'} & set(names)):
        raise InputError('%s: not an rdmabench result file (no size_bytes and '
                         'bw_avg_mibps or lat_p50_us column)' % path)


def read_histogram(path, text, side=None):
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith('#')]
    reader = csv.DictReader(lines)
    want = ['lower_ns', 'upper_ns', 'count', 'cumulative_fraction']
    if reader.fieldnames != want:
        raise InputError('%s: histogram header is not %s' % (path, ','.join(want)))
    try:
        buckets = [tuple(float(r[k]) for k in want) for r in reader]
    except (TypeError, ValueError):
        raise InputError('%s: a histogram row is not four numbers' % path)
    hist = Histogram(path, buckets)
    meta = (side or {}).get('meta') or {}
    if meta.get('size_bytes') is not None:
        hist.size = int(meta['size_bytes'])
    hist.meta = dict(hist.meta, **{k: str(v) for k, v in meta.items()})
    hist.title = hist.title or (side or {}).get('title') or ''
    return hist


def scan(paths, role='client'):
    """The result files among paths (files, or folders searched for *.csv
    and *.json); in folders, files of other kinds and other roles are
    passed over, named files must be ours."""
    out = []
    for p in paths:
        if not os.path.isdir(p):
            res = read(p)
            if not isinstance(res, Result):
                raise InputError('%s: a histogram, not a result file' % p)
            out.append(res)
            continue
        for top, dirs, files in os.walk(p):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(('.csv', '.json')) or name.endswith('.meta.json'):
                    continue
                try:
                    res = read(os.path.join(top, name))
                except InputError:
                    continue
                if isinstance(res, Result) and res.meta.get('role', role) == role:
                    out.append(res)
    return out
