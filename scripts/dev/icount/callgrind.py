"""callgrind's output read (Profile: self cost per function, cost and count
per call edge, the totals line), and two profiles of one program differenced
into buckets by object: the program itself, libibverbs, the provider, libc,
the rest; the clock's calibration apart, found by name or in the call graph."""

import collections
import os
import re

from icount import BUCKETS, CALIBRATION, CALIBRATION_NAMES, TIME_OF_DAY

NAME_KINDS = {'ob': 'ob', 'cob': 'ob', 'fn': 'fn', 'cfn': 'fn',
              'fl': 'fl', 'fi': 'fl', 'fe': 'fl', 'cfi': 'fl', 'cfl': 'fl'}
COMPRESSED = re.compile(r'^\((\d+)\)(?: (.*))?$')

class Profile:
    """One callgrind output file: self cost (Ir) per (object, function),
    inclusive cost and count per call edge, and the file's total."""

    def __init__(self):
        self.self_ir = collections.Counter()
        self.call_ir = collections.Counter()
        self.call_n = collections.Counter()
        self.total = None


def name_of(tables, key, val):
    """The name a ob=/fn=/... line gives, resolving "(id) name" and "(id)"."""
    m = COMPRESSED.match(val)
    if not m:
        return val
    tab = tables[NAME_KINDS[key]]
    if m.group(2) is not None:
        tab[m.group(1)] = m.group(2)
    if m.group(1) not in tab:
        raise ValueError('name id (%s) used before it is defined' % m.group(1))
    return tab[m.group(1)]


def parse_callgrind(path):
    """Reads PATH (callgrind format, any positions, the first event Ir)."""
    p, tables = Profile(), {'ob': {}, 'fn': {}, 'fl': {}}
    ob = fn = cob = cfn = None
    npos, call_count = 1, None
    with open(path, errors='replace') as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line[0] == '#':
                continue
            if line[0].isdigit() or line[0] in '+-*':
                fields = line.split()
                ir = int(fields[npos]) if len(fields) > npos else 0
                if call_count is not None:
                    edge = ((ob, fn), (cob or ob, cfn))
                    p.call_ir[edge] += ir
                    p.call_n[edge] += call_count
                    call_count = None
                else:
                    p.self_ir[(ob, fn)] += ir
                continue
            key, eq, val = line.partition('=')
            if eq and key in NAME_KINDS:
                name = name_of(tables, key, val)
                if key == 'ob':
                    ob = name
                elif key == 'fn':
                    fn, cob = name, None
                elif key == 'cob':
                    cob = name
                elif key == 'cfn':
                    cfn = name
            elif eq and key == 'calls':
                call_count = int(val.split()[0])
            elif line.startswith('positions:'):
                npos = len(line.split()) - 1
            elif line.startswith('events:') and line.split()[1:2] != ['Ir']:
                raise ValueError('%s: the first event is not Ir: %s' % (path, line))
            elif line.startswith('totals:'):
                p.total = int(line.split()[1])
    if p.total is None:
        raise ValueError('%s: not a complete callgrind output (no totals line: cut short?)' % path)
    if sum(p.self_ir.values()) != p.total:
        raise ValueError('%s: the self costs add up to %d, the totals line says %d'
                         % (path, sum(p.self_ir.values()), p.total))
    return p


# ---- buckets ----

def bucket_of(obj, program):
    base = os.path.basename(obj or '')
    if base == program:
        return 'tool'
    if base.startswith('libibverbs.so'):
        return 'libibverbs'
    if re.match(r'lib.+-rdmav\d+\.so', base):
        return 'provider'
    if re.match(r'libc(\.so|-[0-9])', base):
        return 'libc'
    return 'other'


def calibration_set(prof, program):
    """The functions of the calibration: those named in CALIBRATION_NAMES
    and, where the program has no symbols, the program's own functions
    that call a time-of-day function (perftest's sample_get_cpu_mhz: in
    its measured loop perftest reads the TSC, and so do we or
    clock_gettime, never gettimeofday)."""
    cal = {k for k in prof.self_ir if k[1] in CALIBRATION_NAMES}
    for src, dst in prof.call_ir:
        if dst[1] in TIME_OF_DAY and bucket_of(src[0], program) == 'tool':
            cal.add(src)
    return cal


def children_of(prof):
    kids = collections.defaultdict(list)
    for (src, dst), v in prof.call_ir.items():
        kids[src].append((dst, v))
    return kids


def share_down(prof, kids, fn, amount, cal, moved, path):
    """Moves AMOUNT of FN's inclusive cost into MOVED, split over FN's self
    cost and its callees in the proportions of FN's whole run."""
    incl = prof.self_ir.get(fn, 0) + sum(v for _, v in kids[fn])
    if incl <= 0 or len(path) > 30:
        return
    frac = min(1.0, amount / float(incl))
    moved[fn] += frac * prof.self_ir.get(fn, 0)
    for dst, v in kids[fn]:
        if dst not in cal and dst not in path:
            share_down(prof, kids, dst, frac * v, cal, moved, path | {dst})


def effective_costs(prof, program, cal):
    """{(object, function): {bucket: Ir}}: self cost by object, except the
    calibration's functions and the share of other functions they called."""
    kids, moved = children_of(prof), collections.Counter()
    for (src, dst), v in prof.call_ir.items():
        if src in cal and dst not in cal:
            share_down(prof, kids, dst, v, cal, moved, {dst})
    out = {}
    for k, v in prof.self_ir.items():
        if k in cal:
            out[k] = {CALIBRATION: v}
        else:
            out[k] = {bucket_of(k[0], program): v - moved[k], CALIBRATION: moved[k]}
    return out


def both_costs(p1, p2, program):
    cal = calibration_set(p1, program) | calibration_set(p2, program)
    return effective_costs(p1, program, cal), effective_costs(p2, program, cal)


def per_function(p1, p2, program):
    """{(object, function, bucket): [Ir at N1, Ir at N2]} for two profiles
    of PROGRAM at N1 and N2 messages."""
    out = collections.defaultdict(lambda: [0.0, 0.0])
    for i, e in enumerate(both_costs(p1, p2, program)):
        for k, by in e.items():
            for b, v in by.items():
                out[(k[0], k[1], b)][i] += v
    return out


def bucket_rows(p1, p2, n1, n2, program):
    """[(bucket, instr_per_msg, ir_n1, ir_n2)] for every bucket, then
    calibration, then the total without calibration (corrected), then the
    raw total: callgrind's totals lines alone, nothing left out."""
    ir = {b: [0.0, 0.0] for b in BUCKETS + [CALIBRATION]}
    for i, e in enumerate(both_costs(p1, p2, program)):
        for by in e.values():
            for b, v in by.items():
                ir[b][i] += v
    rows = [(b, (ir[b][1] - ir[b][0]) / float(n2 - n1), round(ir[b][0]), round(ir[b][1]))
            for b in BUCKETS + [CALIBRATION]]
    t1, t2 = sum(ir[b][0] for b in BUCKETS), sum(ir[b][1] for b in BUCKETS)
    return rows + [('total', (t2 - t1) / float(n2 - n1), round(t1), round(t2)),
                   ('raw', (p2.total - p1.total) / float(n2 - n1), p1.total, p2.total)]
