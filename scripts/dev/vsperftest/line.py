"""A perftest command line, read the way perftest's getopt_long reads it, and
rewritten for one test bed: the device, GID index, TCP port, server host,
run length and output files substituted, the rest kept word for word.

Standalone (no import of the package), so that the compatibility test
(tests/integration/prog/compat.sh) runs it as a script:

    line.py --tool rdmabench|perftest --side server|client --bin DIR \\
            --dev DEV --gid N --port P --ip ADDR --dir DIR [--duration S] \\
            [--budget BYTES] [--keep-length] -- WORD...

prints the rewritten argv, one word a line; exit 2 on a line it cannot
read (no ib_* program, a value missing).

The substitution rule (also in tests/integration/compat/lines.txt):
  program     ib_X_Y -> $BIN/rb_X_Y for rdmabench; as given for perftest
  -d DEV      the value replaced by --dev (added when the line has none)
  -x N        replaced by --gid where given; perftest only: added when absent
  -p N        replaced by --port (added when absent)
  host        the one non-option word: the server drops it, the client's is
              --ip (added when the line was a server's half)
  -D S        at most --duration seconds (default 1; -f M: M + 2;
              --run_infinitely: 2, ours' warm-up is 1 s;
              16 MiB or more in one message round (size x QPs, x2
              with -b): 2; 32 MiB or more: 8, as given or not, as one
              round of 48 MiB took over 2 s in a loaded guest and at -D 5
              one side's window held none)
  -n N        iteration mode: at most BUDGET/size iterations, 1000 at most
              and 4 at least; with -a, 4 (and ours' latency warm-up 0:
              100 round trips of 8 MiB take a minute); added when absent
  -t N        timed runs without -t: a power of two such that the messages
              in flight (size x depth x QPs, x2 with -b) stay within 2 x
              BUDGET (16 MiB), where perftest's 128 would not; -D 4 at
              least where 16 MiB are in flight
  --out_json_file F   DIR/SIDE.out_json (perftest's --out_json writes its
              default file in the working folder, which is DIR)
With --keep-length the run length (-D, -n) is left as written.
"""

import os
import re
import sys

# perftest's option table (src/perftest_parameters.c, 6.29): the short
# options taking a value, and the long names taking one (91) or none (65).
SHORT_ARG = set('wypdimsntuSxcqIoMrQAlDfBTLEJjKkXW')
SHORT_FLAG = set('aFegzRvhbNVCHUOZP')
LONG_ARG = set('''port ib-dev ib-port mtu size iters tx-depth qp-timeout sl gid-index
connection qp vector inline_size outs tos hop_limit MGID rx-depth cq-mod atomic_type
post_list duration margin source_mac dest_mac dest_ip source_ip dest_port source_port
ethertype limit_bw limit_msgrate report-counters force-link remote_mac local_mac
remote_ip local_ip remote_port local_port pkey_index burst_size typical_pkt_size
rate_limit rate_limit_type rate_units output out_json_file latency_gap flow_label
retry_count payload_file_path use_cuda use_cuda_bus_id cuda_mem_type use_musa
use_musa_bus_id use_rocm use_neuron use_hl use_mlu use_opencl opencl_platform_id
use_ib_dm_dmabuf gpu_touch mmap mmap-offset dlid tclass wait_destroy flows
flows_burst reply_every vlan_pcp recv_post_list aes_block_size kek_path
credentials_path data_enc_keys_number data_enc_key_app_path log_dci_streams
log_active_dci_streams congest_type bind_source_ip cqe_poll tph_mem cpu_id ph
pin_cores numa_node'''.split())
LONG_FLAG = set('''all CPU-freq events mcg comm_rdma_cm rdma_cm help bidirectional noPeak
version report-cycles report-histogrm report-unsorted dualport server client mac_fwd
use_rss run_infinitely report_gbits use-srq no_lock use-null-mr report-both reversed
tcp cpu_util out_json dont_xchg_versions use_cuda_dmabuf use_cuda_pcie_mapping
use_data_direct use_musa_dmabuf use_musa_pcie_mapping use_rocm_dmabuf
use_neuron_dmabuf use_mlu_dmabuf ipv6 ipv6-addr raw_ipv6 report-per-port odp
use_hugepages use_old_post_send promiscuous sniffer raw_mcast mr_per_qp
perform_warm_up vlan_en aes_xts encrypt_on_tx sig_before disable_pcie_relaxed
use_ooo write_with_imm send_with_imm no_enhanced_reorder unsolicited_write
connectionless disable_dynamic_polling sig_offload data_validation
data_validation_debug disable_numa'''.split())
LONG_NAMES = sorted(LONG_ARG | LONG_FLAG)
# The options the rewrite touches, by their long name.
SHORT_LONG = {'f': 'margin', 'd': 'ib-dev', 'x': 'gid-index', 'p': 'port', 'D': 'duration', 'n': 'iters',
              's': 'size', 'a': 'all', 'b': 'bidirectional', 'q': 'qp', 'R': 'rdma_cm',
              't': 'tx-depth'}
BENCHES = ('send_bw', 'write_bw', 'read_bw', 'atomic_bw',
           'send_lat', 'write_lat', 'read_lat', 'atomic_lat')
MAX_SWEEP = 1 << 23


class LineError(Exception):
    pass


class Item:
    """One option (or the host) as the line spelt it: KEY is the long name
    (or the letter of a short option with no long name here), OPT its
    spelling, ARG its value, WORDS the words it took, FLAGS the flags
    bundled before it in the same word (-zR in -zRd mlx5_0)."""

    def __init__(self, key, opt, arg, words, style, flags=''):
        self.key, self.opt, self.arg, self.words = key, opt, arg, words
        self.style, self.flags, self.new = style, flags, None

    def emit(self):
        if self.new is None:
            return self.words
        if self.key == 'host':
            return [self.new] if self.new else []
        pre = ['-' + self.flags] if self.flags else []
        if self.style == 'eq':
            return pre + [self.opt + '=' + self.new]
        if self.style == 'attached':
            return pre + [self.opt + self.new]
        return pre + [self.opt, self.new]


def long_name(spelt):
    """perftest's long name for SPELT (exact, else a unique prefix)."""
    if spelt in LONG_ARG or spelt in LONG_FLAG:
        return spelt
    hits = [n for n in LONG_NAMES if n.startswith(spelt)]
    return hits[0] if len(hits) == 1 else None


def parse_long(words, i):
    word = words[i]
    spelt, eq, val = word[2:].partition('=')
    name = long_name(spelt)
    if name is None or name not in LONG_ARG:
        return Item(name or spelt, word, None, [word], 'flag'), i + 1
    if eq:
        return Item(name, '--' + spelt, val, [word], 'eq'), i + 1
    if i + 1 >= len(words):
        raise LineError('%s needs a value' % word)
    return Item(name, word, words[i + 1], words[i:i + 2], 'sep'), i + 2


def parse_short(words, i, out):
    """-q4, -q 4, -zR, -zRd mlx5_0: flags up to the first letter that takes
    a value, which takes the rest of the word or the next word."""
    word = words[i]
    j = next((k for k in range(1, len(word)) if word[k] in SHORT_ARG), None)
    if j is None:
        key = SHORT_LONG.get(word[1], word[1]) if len(word) == 2 else 'flags'
        out.append(Item(key, word, None, [word], 'flag'))
        return i + 1
    c, flags = word[j], word[1:j]
    key = SHORT_LONG.get(c, c)
    if j + 1 < len(word):
        out.append(Item(key, '-' + c, word[j + 1:], [word], 'attached', flags))
        return i + 1
    if i + 1 >= len(words):
        raise LineError('-%s needs a value' % c)
    out.append(Item(key, '-' + c, words[i + 1], [word, words[i + 1]], 'sep', flags))
    return i + 2


def parse(words):
    """Items of WORDS (the program name excluded), in order."""
    out, i = [], 0
    while i < len(words):
        w = words[i]
        if w == '--':
            out += [Item('host', w, w, [w], 'word') for w in words[i + 1:]]
            break
        if w.startswith('--'):
            item, i = parse_long(words, i)
            out.append(item)
        elif w.startswith('-') and len(w) > 1:
            i = parse_short(words, i, out)
        else:
            out.append(Item('host', w, w, [w], 'word'))
            i += 1
    return out


def size_bytes(text):
    m = re.fullmatch(r'(\d+)([KkMmGg]?)', text or '')
    if not m:
        return None
    return int(m.group(1)) << {'': 0, 'k': 10, 'm': 20, 'g': 30}[m.group(2).lower()]


class Line:
    """A perftest command line: PROGRAM (ib_write_bw), BENCH (write_bw) and
    its items."""

    def __init__(self, words):
        if not words:
            raise LineError('an empty line')
        self.program = os.path.basename(words[0])
        m = re.fullmatch(r'ib_(\w+_(?:bw|lat))', self.program)
        if not m or m.group(1) not in BENCHES:
            raise LineError('%s: not one of perftest\'s eight ib_* programs' % self.program)
        self.bench = m.group(1)
        self.items = parse(words[1:])

    def find(self, key):
        return [it for it in self.items if it.key == key]

    def value(self, key):
        hits = self.find(key)
        return hits[-1].arg if hits else None

    def has(self, key):
        """KEY given, alone or among bundled flags (-ab) or before a value
        in the same word (-bq 2)."""
        letter = next((c for c, k in SHORT_LONG.items() if k == key), None)
        return bool(self.find(key)) or bool(letter) and any(
            letter in (it.opt[1:] if it.key == 'flags' else it.flags) for it in self.items)

    def sweep(self):
        return self.has('all')

    def set(self, key, value, spelling, add=True):
        """Every KEY item's value becomes VALUE; one is added (SPELLING
        VALUE) where the line has none and ADD is true."""
        hits = self.find(key)
        for it in hits:
            it.new = value
        if not hits and add:
            self.items.append(Item(key, spelling, None, [], 'sep'))
            self.items[-1].new = value

    def iterations(self, budget):
        if self.sweep():
            return 4
        size = size_bytes(self.value('size')) or (8 if self.bench.startswith('atomic') else 65536)
        return max(4, min(1000, budget // max(size, 1)))


def rewrite(line, o):
    """The argv of O.side of O.tool for LINE, substituted (see the top)."""
    line.set('ib-dev', o.dev, '-d')
    line.set('gid-index', o.gid, '-x', add=(o.tool == 'perftest'))
    line.set('port', str(o.port), '-p')
    hosts = line.find('host')
    if len(hosts) > 1:
        raise LineError('more than one host word: %s' % ' '.join(h.arg for h in hosts))
    if o.side == 'client':
        line.set('host', o.ip, '')
    else:
        for h in hosts:
            h.new = ''
    if not o.keep_length:
        length(line, o)
    for it in line.find('out_json_file'):
        it.new = os.path.join(o.dir, o.side + '.out_json')
    prog = ('rb_' + line.bench) if o.tool == 'rdmabench' else line.program
    argv = [os.path.join(o.bin, prog) if o.tool == 'rdmabench' else prog]
    for it in line.items:
        argv += it.emit()
    return argv


def length(line, o):
    dur = line.value('duration')
    cap = o.duration
    margin = line.value('margin')
    if margin and re.fullmatch(r'[0-9.]+', margin):
        cap = max(cap, float(margin) + 2)    # -f: the margin, then 2 s measured
    if line.find('run_infinitely'):
        cap = max(cap, 2.0)     # ours warms up 1 s before it
    size = size_bytes(line.value('size')) or 65536
    round_bytes = size * int_of(line.value('qp')) * (2 if line.has('bidirectional') else 1)
    if round_bytes >= 16 << 20:
        cap = max(cap, 2.0)     # a second holds too few such messages here
    if dur is not None:
        depth(line, o)
        if flight_bytes(line) >= 16 << 20:
            cap = max(cap, 4.0)     # the first pass posts all of them (rxe carries each
                                    # inside ibv_post_send): 2 s + 0.5 s of warm-up held
                                    # no look at the clock in loaded CI guests (-b -q 2
                                    # -s 64K, 32 MiB in flight, CI runs 12 and 14)
    floor = 0.0
    if round_bytes >= 32 << 20:
        cap = floor = 8.0       # one round took over 2 s in a loaded guest, and at -D 5
                                # one side's window held none (CI runs, 2026-12-04)
    if dur is not None:
        try:
            if float(dur) > cap or float(dur) < floor:
                line.set('duration', '%g' % (cap if float(dur) > cap else floor), '-D')
        except ValueError:
            pass
        return
    n = line.iterations(o.budget)
    given = line.value('iters')
    if given is None or not given.isdigit() or int(given) > n:
        line.set('iters', str(n), '-n')
    if o.tool == 'rdmabench' and line.bench.endswith('_lat') and line.sweep():
        line.items.append(Item('warmup', '--warmup', None, [], 'eq'))
        line.items[-1].new = '0'    # ours' 100 warm-up round trips per size


def int_of(text, default=1):
    return int(text) if text and text.isdigit() else default


def flight_bytes(line):
    """The messages in flight on all QPs: size x depth x QPs, x2 with -b."""
    size = size_bytes(line.value('size')) or 65536
    depth_given = line.value('tx-depth')
    d = int(depth_given) if depth_given and depth_given.isdigit() else 128
    return size * d * int_of(line.value('qp')) * (2 if line.has('bidirectional') else 1)


def depth(line, o):
    """Timed runs of big messages: -t (when absent) so that the messages in
    flight on all QPs stay within 2 * BUDGET (16 MiB), as what is posted
    when the time is up is still waited for (8 MiB x 128 x 3 QPs x 2
    directions would take minutes to drain under emulation), and the
    first pass posts them all before the loop's first look at the clock."""
    size = size_bytes(line.value('size')) or 65536
    fit = max(1, (2 * o.budget) // (size * int_of(line.value('qp')) *
                                    (2 if line.has('bidirectional') else 1)))
    if line.value('tx-depth') is None and fit < 128:
        line.set('tx-depth', str(1 << (fit.bit_length() - 1)), '-t')


def options(argv):
    import argparse
    ap = argparse.ArgumentParser(prog='line.py', description=__doc__.split('\n')[0])
    ap.add_argument('--tool', choices=('rdmabench', 'perftest'), required=True)
    ap.add_argument('--side', choices=('server', 'client'), required=True)
    ap.add_argument('--bin', default='.')
    ap.add_argument('--dev', required=True)
    ap.add_argument('--gid', required=True)
    ap.add_argument('--port', type=int, required=True)
    ap.add_argument('--ip', required=True)
    ap.add_argument('--dir', default='.')
    ap.add_argument('--duration', type=float, default=1.0)
    ap.add_argument('--budget', type=int, default=8 << 20, help='bytes per size (default 8 MiB)')
    ap.add_argument('--keep-length', action='store_true')
    ap.add_argument('words', nargs='+')
    return ap.parse_args(argv)


def main(argv):
    o = options(argv)
    try:
        print('\n'.join(rewrite(Line(o.words), o)))
    except LineError as e:
        print('line.py: ' + str(e), file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
