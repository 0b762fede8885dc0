"""rbresults.table: result files as tables of what is written in them (no
figures checked, no rows dropped), the earlier format's "# key=value"
metadata, the NAME.meta.json sidecar written beside a CSV, and
rb-campaign's meta file.  For the tools' own CSV files (rb-vs-perftest's
runs, rb-compare's table) and the columns load.Result leaves out."""

import csv
import json
import os

from .load import sidecar_path


def read_rows(path):
    """The rows of a result file as written: a JSON file's "results", a
    CSV file's rows (blank and "# " lines passed over) as strings.
    OSError when it cannot be read."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if text.lstrip().startswith('{'):
        return json.loads(text).get('results', [])
    return list(csv.DictReader(l for l in text.splitlines() if l.strip() and not l.startswith('#')))


def read_table(path):
    """(meta, rows) of a CSV file: the metadata from its .meta.json
    sidecar, or (the earlier format) from its own "# key=value" lines."""
    meta = {}
    try:
        with open(sidecar_path(path)) as f:
            meta = {k: str(v) for k, v in json.load(f).get('meta', {}).items()}
    except (OSError, ValueError):
        pass
    with open(path) as f:
        lines = []
        for line in f:
            if line.startswith('#'):
                k, _, v = line[1:].strip().partition('=')
                meta[k] = v
            elif line.strip():
                lines.append(line)
    return meta, list(csv.DictReader(lines))


def read_document(path):
    """(meta, rows) of any result document, rows as written (a JSON file's
    "results", a CSV file's rows with its numbers as numbers) and the
    metadata (JSON's "meta", or the CSV's sidecar).  For documents that
    are not one row per size (rb_mesh check's one per link and rail).
    OSError or ValueError when it cannot be read."""
    from .load import number
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if text.lstrip().startswith('{'):
        doc = json.loads(text)
        return doc.get('meta') or {}, doc.get('results') or []
    meta, rows = read_table(path)
    return meta, [{k: number(v) for k, v in r.items()} for r in rows]


def write_sidecar(path, tool, meta, note=None):
    """NAME.meta.json beside NAME.csv (schema 1, status complete): the CSV
    itself stays plain, so that pandas reads it as it is."""
    doc = {'schema_version': 1, 'tool': tool, 'meta': meta, 'status': 'complete'}
    if note:
        doc['note'] = note
    with open(sidecar_path(path), 'w') as f:
        json.dump(doc, f, indent=1, default=str)
        f.write('\n')


def campaign_meta(folder):
    """rb-campaign's FOLDER/meta (key=value lines) as a dict; {} without one."""
    try:
        with open(os.path.join(folder, 'meta')) as f:
            return dict(l.rstrip('\n').split('=', 1) for l in f if '=' in l)
    except OSError:
        return {}


def write_result_sidecar(path, title, meta):
    """The sidecar the binaries write beside a result CSV, for a CSV made by
    another tool (rb-campaign's perftest runs): its columns and row count
    from the file, status complete when it has a row, else failed."""
    with open(path) as f:
        rows = list(csv.reader(f))
    doc = {'schema_version': 1, 'title': title, 'meta': meta,
           'columns': [{'key': k, 'label': k} for k in rows[0]], 'rows': len(rows) - 1,
           'status': 'complete' if len(rows) > 1 else 'failed', 'error': None}
    with open(sidecar_path(path), 'w') as f:
        json.dump(doc, f, separators=(',', ':'))
        f.write('\n')
