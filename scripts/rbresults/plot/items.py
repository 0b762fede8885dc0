"""rb-plot: the files given, read with rbresults (a folder gives its client
result files and histograms), their series labels and where they were measured."""

import os
import re

import rbresults as rb

from . import LABEL_KEYS


def load(paths):
    """Result files and histograms; a folder gives its client files.  Each
    item gets arg (the index of its argument) and where (the campaign's
    meta where=, from the folder given or above the file)."""
    items = []
    for k, p in enumerate(paths):
        got = rb.scan([p]) + list(scan_histograms(p)) if os.path.isdir(p) else [rb.read(p)]
        for i in got:
            i.arg, i.where = k, campaign_where(p if os.path.isdir(p) else os.path.dirname(p))
        items += got
    return items


def campaign_where(folder):
    """rb-campaign's meta where= (the test-bed note) of folder or its parent."""
    for d in (folder, os.path.dirname(os.path.abspath(folder))):
        where = rb.campaign_meta(d).get('where')
        if where is not None:
            return where.strip()
    return 


def scan_histograms(folder):
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if '.hist' in name and name.endswith('.csv'):
                yield rb.read(os.path.join(top, name))


def folder_names(items):
    """What tells the files' folders apart: a/x/data, b/x/data -> a, b."""
    parts = [os.path.dirname(os.path.abspath(i.path)).split(os.sep) for i in items]
    while all(len(p) > 1 for p in parts) and len({p[0] for p in parts}) == 1:
        parts = [p[1:] for p in parts]
    while all(len(p) > 1 for p in parts) and len({p[-1] for p in parts}) == 1:
        parts = [p[:-1] for p in parts]
    return [os.sep.join(p) for p in parts]


def arg_names(paths, given):
    """Per argument: its -l, else what tells the arguments apart (a/x, b/x -> a, b)."""
    parts = [os.path.abspath(p).rstrip(os.sep).split(os.sep) for p in paths]
    while len(parts) > 1 and all(len(p) > 1 for p in parts) and len({p[-1] for p in parts}) == 1:
        parts = [p[:-1] for p in parts]
    names = [re.sub(r'\.(csv|json)$', '', p[-1]) or os.sep for p in parts]
    dups = {n for n in names if names.count(n) > 1}
    for k, name in enumerate(names):     # a name twice: with its parent folder
        if name in dups and len(parts[k]) > 1:
            names[k] = os.path.join(parts[k][-2], name)
    return [given[k] if k < len(given) else n for k, n in enumerate(names)]


def set_labels(items, given, paths):
    """Several arguments: the argument's name (or -l), then the test where
    the tests differ (and the size of a histogram).  One argument: the
    metadata that all files have and that differs between them, else the
    test; the folder when that alone tells two apart."""
    if len(paths) > 1:
        names = arg_names(paths, given)
        chart = lambda i: getattr(i, 'kind', 'hist')   # the items of one chart
        tests = {c: len({i.meta.get('test') for i in items if chart(i) == c}) > 1
                 for c in {chart(i) for i in items}}
        sizes = len({i.size for i in items if isinstance(i, rb.Histogram)}) > 1
        for i in items:
            i.label = ' '.join(x for x in (
                names[i.arg], i.meta.get('test', '') if tests[chart(i)] else '',
                (rb.fmt_size(i.size) if i.size else '')
                if isinstance(i, rb.Histogram) and sizes else '') if x)
        return
    keys = [k for k in LABEL_KEYS if all(k in i.meta for i in items) and
            len({i.meta[k] for i in items}) > 1]
    hists = [i for i in items if isinstance(i, rb.Histogram)]
    for i in items:
        i.label = ' '.join(i.meta.get(k, '') for k in keys) or i.meta.get('test') or \
            os.path.basename(i.path).split('.')[0]
    if len({h.size for h in hists}) > 1:
        for h in hists:
            h.label += ' ' + (rb.fmt_size(h.size) if h.size else os.path.basename(h.path))
    folders = folder_names(items)
    clash = {}
    for i, f in zip(items, folders):
        clash.setdefault(i.label, set()).add(f)
    for i, f in zip(items, folders):
        if len(clash[i.label]) > 1:
            i.label = (i.label + ' ' + f).strip()
    if given:
        several = len({i.label for i in items}) > 1
        for i in items:
            i.label = given[0] + ' ' + i.label if several else given[0]


def where(items, given):
    if given:
        return given
    place = meta_place(items)
    notes = sorted({i.where for i in items if getattr(i, 'where', '')})
    return '; '.join(x for x in [place] + notes if x)


def meta_place(items):
    common = {k: items[0].meta.get(k, '') for k in
              ('device', 'host', 'transport', 'mtu_bytes')
              if len({i.meta.get(k, '') for i in items}) == 1}
    place = common.get('device', '')
    if common.get('host') and common['host'] != '(none)':
        place += ' on ' + common['host']
    extra = [common.get('transport', '')]
    if common.get('mtu_bytes'):
        extra.append('MTU %s B' % common['mtu_bytes'])
    return ', '.join(x for x in [place] + extra if x)


def what(items, generic):
    titles = {i.title for i in items}
    return titles.pop() if len(titles) == 1 and titles != {''} else generic


def order(items):
    """Series order: the arguments' order, then the test, then the size."""
    return sorted(items, key=lambda i: (i.arg, i.meta.get('test', ''), getattr(i, 'size', 0) or 0,
                                        i.label))
