#!/usr/bin/env python3
"""send_bw_recv's question: is the receiver's extra cost (429.3 against
284.5 instructions per message) its own code, or the sender's speed?

Runs rb-icount's send_bw_recv case (the receiving server under callgrind,
the client plain, the same arguments: scripts/dev/icount/runs.py) with the
receiver's and the sender's programs chosen apart, in one boot, the
configurations interleaved, and reads rxe's hw_counters before and after
each run.  Usage, in a test-bed guest (RB_DEV set):

    rnr.py --out DIR [--iters N1,N2] [--rounds K] [--plain N]
           LABEL:RECV_BIN_DIR:SEND_BIN_DIR ...

Writes DIR/runs.csv (each run: configuration, N, the counters' deltas, Ir,
the receiver's calls of the provider's poll and of watch_idle) and
DIR/pairs.csv (each configuration and round: per message, from N1 and N2
as rb-icount: the total, the tool, the provider, polls, empty polls, RNR
NAKs), and keeps the callgrind files in DIR/callgrind/.  --plain N: after
the callgrind rounds, each configuration once more at N messages without
valgrind (both sides native), counters around it.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

TOP = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', '..', '..', '..'))
sys.path.insert(1, os.path.join(TOP, 'scripts', 'dev'))
sys.dont_write_bytecode = True
from icount import BUCKETS  # noqa: E402
from icount.callgrind import bucket_rows, parse_callgrind  # noqa: E402
from icount.runs import case_args, device_args, keep_callgrind, run_pair, valgrind_argv  # noqa: E402

CASE = 'send_bw_recv'
COUNTERS = ['rcvd_rnr_err', 'send_rnr_err', 'retry_rnr_exceeded_err', 'retry_exceeded_err',
            'completer_retry_err', 'rcvd_seq_err', 'out_of_seq_request', 'duplicate_request',
            'rdma_sends', 'rdma_recvs', 'sent_pkts', 'rcvd_pkts', 'ack_deferred', 'send_err']


def counters():
    d = '/sys/class/infiniband/%s/ports/1/hw_counters' % os.environ.get('RB_DEV', 'rxe0')
    out = {}
    for c in COUNTERS:
        try:
            with open(os.path.join(d, c)) as f:
                out[c] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            out[c] = -1
    return out


def calls_to(prof, pred):
    """Calls of the functions PRED picks (their object, name) and the
    instructions they cost inclusively, from the call edges."""
    n = ir = 0
    for (src, dst), k in prof.call_n.items():
        if pred(dst) and not pred(src):
            n += k
            ir += prof.call_ir[(src, dst)]
    return n, ir


def is_poll(fn):
    # the provider's poll_cq: the rxe provider is stripped, its poll is the
    # function recv_reap calls in librxe (callgrind names it 0x...)
    return 'rdmav' in os.path.basename(fn[0] or '') and fn[1] in POLL_NAMES


POLL_NAMES = set()


def find_poll(prof):
    """The provider functions that recv_reap calls directly: its poll."""
    return {dst[1] for (src, dst) in prof.call_n
            if src[1] == 'recv_reap' and dst[1].startswith('0x')}


def one_run(label, recv_bin, send_bin, n, port, scratch, out, rnd, valgrind=True):
    args = ['-p', str(port)] + device_args() + case_args(CASE, 'rdmabench', n)
    cg = os.path.join(scratch, '%s-%d-%d.cg' % (label, rnd, n))
    server = (valgrind_argv(cg) if valgrind else []) + [os.path.join(recv_bin, 'rb_send_bw')] + args
    client = [os.path.join(send_bin, 'rb_send_bw')] + args + [os.environ.get('RB_IP', '192.0.2.1')]
    before = counters()
    rc, wall, err, _ = run_pair(server, client, port, 600)
    after = counters()
    row = {'config': label, 'round': rnd, 'messages': n, 'valgrind': int(valgrind), 'rc': rc,
           'wall_s': '%.1f' % wall}
    row.update({c: after[c] - before[c] for c in COUNTERS})
    prof = None
    if valgrind and rc == 0:
        prof = parse_callgrind(cg)
        POLL_NAMES.update(find_poll(prof))
        row['ir_total'] = prof.total
        row['polls'], row['poll_ir'] = calls_to(prof, is_poll)
        row['idle_calls'], row['idle_ir'] = calls_to(prof, lambda f: f[1] == 'watch_idle')
        os.makedirs(os.path.join(out, 'callgrind'), exist_ok=True)
        keep_callgrind(cg, os.path.join(out, 'callgrind', '%s-r%d-%d.cg.xz' % (label, rnd, n)))
    if os.path.exists(cg):
        os.remove(cg)
    if rc:
        print('rnr: %s n=%d failed (%d): %s' % (label, n, rc, err.strip()[-1500:]), file=sys.stderr)
    print('rnr: %s round %d n=%d valgrind=%d rc %d %.1f s rnr %s' %
          (label, rnd, n, valgrind, rc, wall, row['rcvd_rnr_err']), file=sys.stderr, flush=True)
    return row, prof


def pair_row(label, rnd, r1, r2, p1, p2, n1, n2):
    d = float(n2 - n1)
    b = {x[0]: x[1] for x in bucket_rows(p1, p2, n1, n2, 'rb_send_bw')}
    row = {'config': label, 'round': rnd}
    row.update({k: '%.1f' % b[k] for k in ['total'] + BUCKETS})
    for k in ('polls', 'idle_calls', 'rcvd_rnr_err', 'send_rnr_err'):
        row[k + '_per_msg'] = '%.3f' % ((r2[k] - r1[k]) / d)
    dp, di = r2['polls'] - r1['polls'], r2['poll_ir'] - r1['poll_ir']
    row['ir_per_poll'] = '%.1f' % (di / dp if dp else 0)
    row['idle_ir_per_msg'] = '%.1f' % ((r2['idle_ir'] - r1['idle_ir']) / d)
    return row


def write(path, rows):
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys, lineterminator='\n')
        w.writeheader()
        w.writerows(rows)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True)
    ap.add_argument('--iters', default='1600,33600')
    ap.add_argument('--rounds', type=int, default=2)
    ap.add_argument('--plain', type=int, default=0)
    ap.add_argument('configs', nargs='+')
    o = ap.parse_args(argv)
    n1, n2 = (int(x) for x in o.iters.split(','))
    cfgs = [c.split(':') for c in o.configs]
    os.makedirs(o.out, exist_ok=True)
    os.environ['RB_POLL_PAUSE'] = '0'       # as rb-icount
    scratch, port, runs, pairs = tempfile.mkdtemp(prefix='rnr.'), 18900, [], []
    for rnd in range(1, o.rounds + 1):
        for label, rb, sb in cfgs:
            got = []
            for n in (n1, n2):
                port += 1
                got.append(one_run(label, rb, sb, n, port, scratch, o.out, rnd))
                runs.append(got[-1][0])
                write(os.path.join(o.out, 'runs.csv'), runs)
            if got[0][1] and got[1][1]:
                pairs.append(pair_row(label, rnd, got[0][0], got[1][0], got[0][1], got[1][1], n1, n2))
                write(os.path.join(o.out, 'pairs.csv'), pairs)
    for label, rb, sb in cfgs if o.plain else []:
        port += 1
        runs.append(one_run(label, rb, sb, o.plain, port, scratch, o.out, 0, valgrind=False)[0])
        write(os.path.join(o.out, 'runs.csv'), runs)
    return 1 if any(r['rc'] for r in runs) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
