"""The commands of every line of tests/integration/compat/lines.txt, in one
process (a Python start costs about a second in the test bed's guest):

    plan.py LINES BIN DEV GID PORT IP TMP

prints, a line per entry that this run takes (the fast run leaves out those
marked "tier: full"; RB_FULL=1 takes them all; each keeps its number N), tab-separated: N, the case name, the folder of
rb_pair "compat N" (a file name: the whole line would be too long), the
server's command, the client's command (shell-quoted, each run in the
folder) and the expectation.  The line's shell variables are expanded with
its vars: ($NAME, ${NAME}, $((A + B)); $1 a positional one); the words are
then rewritten by scripts/dev/vsperftest/line.py (the substitution rule:
lines.txt's head).  A line it cannot read gets empty commands (the case
fails, saying so)."""

import os
import re
import shlex
import sys
from types import SimpleNamespace

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
sys.path.insert(0, os.path.join(TOP, 'scripts', 'dev', 'vsperftest'))
from line import Line, LineError, rewrite  # noqa: E402


def entries(path):
    """(text, vars, expect, tier) of each entry of the list."""
    text, env, tier = None, {}, 'fast'
    with open(path) as f:
        for raw in f:
            raw = raw.rstrip('\n')
            if raw.startswith('line: '):
                text, env, tier = raw[6:], {}, 'fast'
            elif raw.startswith('vars: '):
                env = dict(v.split('=', 1) for v in raw[6:].split())
            elif raw.startswith('tier: '):
                tier = raw[6:]
            elif raw.startswith('expect: '):
                yield text, env, raw[8:], tier


def expand(text, env):
    """TEXT's words with ENV's values, as bash would expand this much."""
    def arith(m):
        expr = re.sub(r'\$?\{?(\w+)\}?', lambda v: env.get(v.group(1), v.group(1)), m.group(1))
        if not re.fullmatch(r'[0-9+\-* ()]+', expr):
            raise LineError('cannot expand $((%s))' % m.group(1))
        return str(eval(expr))  # digits and + - * only
    text = re.sub(r'\$\(\((.*?)\)\)', arith, text)
    text = re.sub(r'\$\{(\w+)\}|\$(\w+)', lambda m: env.get(m.group(1) or m.group(2), ''), text)
    return shlex.split(text)


def case_dir(tmp, name):
    return os.path.join(tmp, re.sub(r'[^A-Za-z0-9_.-]', '_', name) + '_')


def command(words, side, o, stdout_checks):
    argv = rewrite(Line(words), SimpleNamespace(side=side, **vars(o)))
    if not stdout_checks:     # ours prints one format: JSON to a file, else the table
        argv.append('--json=' + os.path.join(o.dir, side + '.json'))
    return 'cd %s && exec %s' % (shlex.quote(o.dir), ' '.join(shlex.quote(a) for a in argv))


def main(argv):
    lines, rb_bin, dev, gid, port, ip, tmp = argv
    full = os.environ.get('RB_FULL', '0') == '1'
    for n, (text, env, expect, tier) in enumerate(entries(lines), 1):
        if tier not in ('fast', 'full'):
            raise SystemExit('%s: entry %d: tier %r (fast or full)' % (lines, n, tier))
        if tier == 'full' and not full:
            continue
        name = 'compat %d: %s%s' % (n, text, ' (%s)' % ' '.join('%s=%s' % kv for kv in env.items())
                                    if env else '')
        d = case_dir(tmp, 'compat %d' % n)   # rb_pair's folder for that name
        o = SimpleNamespace(tool='rdmabench', bin=rb_bin, dev=dev, gid=gid, port=int(port), ip=ip,
                            dir=d, duration=2.0, budget=8 << 20, keep_length=False)
        stdout_checks = ' stdout' in ' ' + expect
        try:
            words = expand(text, env)
            srv, cli = (command(words, s, o, stdout_checks) for s in ('server', 'client'))
        except (LineError, ValueError) as e:
            print('compat %d: %s' % (n, e), file=sys.stderr)
            srv = cli = ''
        print('\t'.join([str(n), name, d, srv, cli, expect]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
