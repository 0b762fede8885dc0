#!/bin/bash
# Automake test (TAP, no device needed): throws random argument vectors at
# every benchmark built with ASan+UBSan and fails on a crash, a sanitizer
# report, an exit status other than 0/1/2, an exit 1/2 without a message, or
# a hang.
#
# The options come from each program's --help (so new ones are fuzzed
# without touching this file), mixed with unknown options, bad and boundary
# values, format strings, control bytes and long strings.  So that nothing
# waits on a peer, most vectors end in "--timeout 0.2 -p PORT 127.0.0.1" (a
# port nobody listens on: the client fails to connect, exit 1); some end in a
# free -p and no host: a server, sent SIGINT once it waits for its client
# (it must then exit 1, cleanly).
#
# Binaries: $RB_ASAN_DIR, else the build folder when it is a sanitizer
# build, else build-asan/ at the top of the tree (tests/robust/build-asan.sh
# makes it); none: SKIP.  RB_FUZZ_N vectors per program (default 50; 2000
# in the full run, RB_FULL=1),
# RB_FUZZ_SEED to replay a run (the seed is printed).
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
# the benchmarks: bench/list.h's BENCH(NAME) lines
progs=$(sed -n 's/^BENCH(\([a-z0-9_]*\))$/rb_\1/p' "$top_srcdir/bench/list.h")
[ -n "$progs" ] || { echo "Bail out! no benchmark in $top_srcdir/bench/list.h"; exit 99; }

is_asan() { [ -x "$1/rb_send_bw" ] && grep -qa __asan_init "$1/rb_send_bw"; }
dir=""
for d in "${RB_ASAN_DIR:-}" "$top_builddir" "$top_srcdir/build-asan"; do
	[ -n "$d" ] && is_asan "$d" && { dir=$d; break; }
done
if [ -z "$dir" ]; then
	echo "1..0 # SKIP no ASan+UBSan build found (make one: bash tests/robust/build-asan.sh)"
	exit 0
fi
command -v python3 >/dev/null || { echo "1..0 # SKIP no python3"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rb-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# LeakSanitizer in the full run only: it is most of an ASan process's start
# and exit here (fuzz_args' 2,400 starts were 78 CPU s, 2026-12-02), and the
# fast run's leak checks are the unit tests' and the benchmark cases' (run
# under ASan+UBSan in the test bed)
fuzz_leaks=0
[ "${RB_FULL:-0}" = 1 ] && fuzz_leaks=1
export ASAN_OPTIONS=${RB_FUZZ_ASAN_OPTIONS:-detect_leaks=$fuzz_leaks:exitcode=86:abort_on_error=0}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
export RES_OPTIONS="timeout:1 attempts:1"	# a hostname lookup fails fast

[ "${RB_FULL:-0}" = 1 ] && : "${RB_FUZZ_N:=2000}"
exec python3 - "$dir" "${RB_FUZZ_N:-50}" "${RB_FUZZ_SEED:-}" $progs <<'EOF'
import os, random, re, select, shlex, signal, socket, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

bindir, nvec, seed, progs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
seed = int(seed) if seed else random.randrange(1 << 32)
CLIENT_LIMIT = 15       # s: a client that cannot connect has 0.2 s; load is the rest
SERVER_LIMIT = 15       # s: to print "waiting for a client", then to exit on SIGINT
SAN = re.compile(rb"Sanitizer|runtime error:")

def help_options(prog):
    """(short, long, argkind, optional) of each option in --help."""
    out = subprocess.run([os.path.join(bindir, prog), "--help"], capture_output=True).stdout
    opts = []
    for m in re.finditer(rb"^\s+(?:-(\w), )?--([\w-]+)(\[?=)?([^\s\]]*)", out, re.M):
        s, l, eq, arg = m.groups()
        opts.append((s.decode() if s else None, l.decode(), arg.decode() if eq else None,
                     eq == b"[="))
    return opts

# Every option any program has: one that a program lacks must be refused (exit 2).
ALL = {}
for p in progs:
    for o in help_options(p):
        ALL[o[1]] = o
# --help and --version end the parse with exit 0: rarely wanted.
ALL = [ALL[k] for k in sorted(ALL) if k not in ("help", "version")]

def garbage(r):
    k = r.random()
    if k < 0.2:
        return "".join(chr(r.randrange(32, 127)) for _ in range(r.randrange(0, 12)))
    if k < 0.35:
        return bytes(r.randrange(1, 256) for _ in range(r.randrange(1, 16)))
    if k < 0.5:
        return r.choice(["%s%s%s%n", "%99999999d", "\x1b[2J", "\n", " ", "\t1", "-", "--",
                         "=", ",", "é", "\u202e", "💥", "0" * 400, "A" * 4096])
    if k < 0.6:
        return r.choice("AB%9x,-.") * r.randrange(1000, 20000)
    return r.choice(["", "0", "-1", "1e999", "nan", "inf", "-inf", "0x10", "010", "+1",
                     "18446744073709551616", "99999999999999999999999", "-0", ".", "1.",
                     "1e-9", "4294967296", "2147483648", "-2147483649"])

def num(r):
    edges = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 255, 256, 1023, 1024, 1025, 4096, 16384,
             16385, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**40, 2**40 + 1, 2**63, 2**64 - 1]
    v = r.choice(edges) + r.choice([-1, 0, 0, 0, 1])
    return r.choice([str(v), str(-v), hex(v), f" {v}", f"{v} ", f"{v}x", f"{v}K"])

def size(r):
    return r.choice([num(r), f"{r.randrange(0, 5000)}{r.choice(['', 'K', 'M', 'G', 'k', 'KiB', 'KB', 'B', 'T', 'P', 'E'])}",
                     "1G", "1025M", "4G", "16E", "1.5K", "-1K", "0K", "K", "8M", "8388609"])

def seconds(r):
    return r.choice([num(r), "0", "0.1", "0.05", "0.09", "1e-9", "1e309", "1e308", "3600",
                     "3600.1", "86400", "86401", "1s", "1ms", "nan", "inf", "-0", "0x1p3",
                     f"{r.uniform(-10, 100000):.4f}"])

def value(r, opt):
    long, arg = opt[1], opt[2]
    if r.random() < 0.2:
        return garbage(r)
    if arg == "N":
        return num(r)
    if arg == "BYTES":
        return size(r)
    if arg == "SECONDS":
        return seconds(r)
    if arg == "RC|UC|UD":
        return r.choice(["RC", "UC", "UD", "rc", "ud", "XRC", "DC", "RCX"])
    if arg == "OP":
        return r.choice(["FETCH_AND_ADD", "CMP_AND_SWAP", "cmp_and_swap", "SWAP", "FETCH"])
    if arg == "LIST" and long == "percentiles":
        return ",".join(r.choice(["50", "0", "100", "100.1", "99.999", "", "nan", "-1", "1e2", "x"])
                        for _ in range(r.choice([1, 2, 5, 40, 200])))
    if arg == "LIST":
        return r.choice(["0", "1", "0-1", "1-0", "0,1", "99999", "0-", "-1", ",", "0-1023",
                         "1024", "0,,1", "0-0-0"])
    if arg == "DEV":
        return r.choice(["rxe0", "mlx5_0", "nosuchdev", "", "x" * 300, "../../etc/passwd"])
    if arg == "ADDR":
        return r.choice(["127.0.0.1", "::1", "0.0.0.0", "::", "256.0.0.1", "127.0.0.2",
                         "fe80::1%lo", "[::1]", "localhost", "1.2.3"])
    if arg == "FILE":
        return r.choice(["out.csv", "out.json", "/dev/null", "-", "", "/nonexistent/dir/f",
                         "sub/../f", "f" * 300])
    return garbage(r)

def option(r, opt):
    short, long, arg, optional = opt
    if arg is None:
        if short and r.random() < 0.4:
            return ["-" + short]
        return ["--" + long] if r.random() < 0.9 else ["--" + long + "=" + "x"]
    if optional:
        return ["--" + long] if r.random() < 0.4 else ["--" + long + "=" + str(value(r, opt))]
    v = value(r, opt)
    form = r.random()
    if r.random() < 0.02:
        return ["-" + short] if short else ["--" + long]     # value missing at the end
    if short and form < 0.35:
        return ["-" + short, v]
    if short and form < 0.5 and isinstance(v, str):
        return ["-" + short + v]
    if form < 0.75 and isinstance(v, str):
        return ["--" + long + "=" + v]
    return ["--" + long, v]

def vector(r):
    argv = []
    for _ in range(r.choice([0, 1, 2, 3, 3, 4, 5, 6, 8, 12])):
        k = r.random()
        if k < 0.75:
            argv += option(r, r.choice(ALL))
        elif k < 0.83:
            argv.append(r.choice(["-Z", "--nosuch", "---", "-", "--", "-?", "--ib", "--s",
                                  "--time", "-" + "x" * 500, "--" + "y" * 3000]))
        elif k < 0.9:
            argv.append(r.choice(["127.0.0.1", "::1", "localhost", "0", "256.1.1.1", "[::1]"]))
        elif k < 0.995:
            argv.append(garbage(r))
        else:
            argv.append(r.choice(["-h", "--help", "-V", "--version", "-hV", "--help=x"]))
    return argv

def free_port(listening):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    if not listening:
        s.close()
        return port, None
    return port, s

def run(prog, argv, server):
    """(verdict, rc, stderr): verdict None when fine."""
    cmd = [os.path.join(bindir, prog)] + [a if isinstance(a, bytes) else a.encode("utf-8", "surrogateescape") for a in argv]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    err, out, sent = b"", b"", False
    deadline = time.monotonic() + (SERVER_LIMIT if server else CLIENT_LIMIT)
    streams = {p.stdout: "out", p.stderr: "err"}
    while streams:
        left = deadline - time.monotonic()
        if left <= 0:
            p.kill()
            p.wait()
            return "hang (still running after %d s%s)" % (SERVER_LIMIT if server else CLIENT_LIMIT,
                   ", after SIGINT" if sent else ""), None, err
        ready, _, _ = select.select(list(streams), [], [], min(left, 0.5))
        for f in ready:
            chunk = os.read(f.fileno(), 65536)
            if not chunk:
                del streams[f]
            elif streams[f] == "err":
                err += chunk
            else:
                out += chunk
        if not sent and b"waiting for a client" in err:
            p.send_signal(signal.SIGINT)
            sent = True
            deadline = time.monotonic() + SERVER_LIMIT
    rc = p.wait()
    if SAN.search(err):
        return "sanitizer report", rc, err
    if rc < 0:
        return "killed by signal %d" % -rc, rc, err
    if rc not in (0, 1, 2):
        return "exit status %d" % rc, rc, err
    if rc in (1, 2) and not err.strip():
        return "exit status %d without a message" % rc, rc, err
    if rc == 0 and not out.strip():
        return "exit status 0 without output (only --help/--version may succeed here)", rc, err
    if sent and rc != 1:
        return "exit status %d after SIGINT (want 1)" % rc, rc, err
    return None, rc, err

def trial(prog, i):
    r = random.Random(f"{seed}:{prog}:{i}")
    argv = vector(r)
    k = r.random()
    server = False
    if k < 0.8:
        argv += ["--timeout", "0.2", "-p", str(free_port(False)[0]), "127.0.0.1"]
    elif k < 0.95:
        argv += ["--timeout", "0.2", "-p", str(free_port(False)[0])]
        server = True
    else:
        argv += ["--timeout", "0.2"]     # as it is: the default port
        server = True
    verdict, rc, err = run(prog, argv, server)
    return prog, argv, verdict, rc, err

def shown(argv):
    return " ".join(shlex.quote(a if isinstance(a, str) else a.decode("utf-8", "backslashreplace"))[:200]
                    for a in argv)

print(f"# seed {seed} (RB_FUZZ_SEED={seed} replays), {nvec} vectors per program, binaries in {bindir}")
print(f"# {len(ALL)} options from --help")
t0 = time.monotonic()
n = 0
with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 2)) as pool:
    for prog in progs:
        results = list(pool.map(lambda i: trial(prog, i), range(nvec)))
        bad = [x for x in results if x[2]]
        counts = {}
        for x in results:
            key = "hang/crash" if x[2] else str(x[3])
            counts[key] = counts.get(key, 0) + 1
        n += 1
        summary = ", ".join(f"exit {k}: {v}" for k, v in sorted(counts.items()))
        print(("not ok" if bad else "ok") + f" {n} - {prog}: {nvec} random argument vectors ({summary})")
        for _, argv, verdict, rc, err in bad[:5]:
            print(f"#   {verdict}: {prog} {shown(argv)}")
            for line in err.decode("utf-8", "backslashreplace").splitlines()[-12:]:
                print(f"#     {line[:300]}")
        sys.stdout.flush()
print(f"# {n * nvec} vectors in {time.monotonic() - t0:.0f} s")
print(f"1..{n}")
EOF
