"""rb_check: checks over a benchmark's output files (tests/integration/lib.sh).

    python3 -I -S rb_check.py FILE EXPR... [-- FILE EXPR...]...
        each EXPR, a Python expression over FILE's rows, meta, status... (see
        check()), must hold; exit 0, or 1 with the failing check and the
        rows as "# " lines on stdout.
    python3 -I -S rb_check.py --meta-lines FILE.csv
        FILE's metadata as "# KEY=VALUE" lines (see meta_lines()).
    python3 -I -S rb_check.py --serve FIFO
        the same checks for a whole run from one process (under emulation a
        python3 start costs ~0.45 s of CPU; run-all.sh makes 300 checks or
        more): each line read from FIFO names a request file R holding the
        working folder and the arguments, NUL-separated; the answer goes to
        R.done (written whole, then renamed): the exit status on its first
        line, the output after it.  Ends at end of input or on SIGTERM.
"""
import contextlib, io, json, math, os, runpy, sys, traceback


class Failed(Exception):
    pass

def expect(cond, why):
    if not cond:
        raise Failed(why)
    return True

def num(v):
    v = v.strip()
    if v == "":
        return None
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v

def close(a, b, rel=1e-6):
    # machine formats print 9 decimals: allow for the rounding of tiny values
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 2e-9

def load(path):
    text = open(path).read()
    ns = {"rows": [], "meta": {}, "status": None, "header": [], "lines": [], "doc": None,
          "last": None, "side": None, "comments": 0}
    if text.lstrip().startswith("{"):
        d = json.loads(text)
        ns.update(doc=d, rows=d.get("results", []), meta=d.get("meta", {}),
                  status=d.get("status"))
        return ns
    all_lines = text.splitlines()
    ns["last"] = all_lines[-1] if all_lines else None
    ns["comments"] = sum(1 for l in all_lines if l.startswith("#"))
    side = (path[:-4] if path.endswith(".csv") else path) + ".meta.json"
    if os.path.exists(side):
        ns["side"] = json.load(open(side))
        ns.update(meta=ns["side"].get("meta") or {}, status=ns["side"].get("status"))
    for line in all_lines:
        if line.startswith("#"):
            k, eq, v = line[1:].strip().partition("=")
            if eq:
                ns["meta"][k] = num(v)
                if k == "status":
                    ns["status"] = v
        elif line.strip():
            ns["lines"].append(line)
    if ns["lines"]:
        ns["header"] = ns["lines"][0].split(",")
        ns["rows"] = [dict(zip(ns["header"], map(num, l.split(","))))
                      for l in ns["lines"][1:]]
    return ns

def bw(r, size, n, recv=False):
    expect(r is not None, "no single result row")
    expect(r["size_bytes"] == size, "size_bytes %s, expected %s" % (r["size_bytes"], size))
    if recv:
        expect(0 < r["iterations"] <= n, "iterations %s, expected 1..%s" % (r["iterations"], n))
    else:
        expect(r["iterations"] == n, "iterations %s, expected %s" % (r["iterations"], n))
    expect(r["bytes"] == r["iterations"] * size, "bytes %s != iterations x size" % r["bytes"])
    expect(r["window_s"] > 0, "window_s %s" % r["window_s"])
    for k in ("bw_avg_mibps", "bw_avg_gbps", "msg_rate_mpps"):
        expect(r[k] is not None and r[k] > 0, "%s is %s" % (k, r[k]))
    expect(close(r["bw_avg_mibps"], r["bytes"] / r["window_s"] / 2**20, 1e-5),
           "bw_avg_mibps is not bytes / window_s")
    expect(close(r["bw_avg_gbps"], r["bw_avg_mibps"] * 2**20 * 8 / 1e9, 1e-5),
           "bw_avg_gbps and bw_avg_mibps disagree")
    expect(close(r["msg_rate_mpps"], r["iterations"] / r["window_s"] / 1e6, 1e-5),
           "msg_rate_mpps is not iterations / window_s")
    expect((r["bw_peak_mibps"] is None) == (r["bw_peak_gbps"] is None),
           "only one of the peak columns is empty")
    expect(r["bw_peak_mibps"] is None or r["bw_peak_mibps"] > 0,
           "bw_peak_mibps %s" % r["bw_peak_mibps"])
    return True

def lat(r, size, n):
    expect(r is not None, "no single result row")
    expect(r["size_bytes"] == size, "size_bytes %s, expected %s" % (r["size_bytes"], size))
    if n is None:
        expect(r["iterations"] > 0, "iterations %s" % r["iterations"])
    else:
        expect(r["iterations"] == n, "iterations %s, expected %s" % (r["iterations"], n))
    expect(r["window_s"] > 0, "window_s %s" % r["window_s"])
    pcts = [k for k in ("lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p99_9_us",
                        "lat_p99_99_us") if k in r]
    chain = [r["lat_min_us"]] + [r[k] for k in pcts] + [r["lat_max_us"]]
    expect(None not in chain and chain[0] > 0, "a latency is empty or 0: %s" % chain)
    expect(chain == sorted(chain), "min <= percentiles <= max does not hold: %s" % chain)
    expect(r["lat_min_us"] <= r["lat_avg_us"] <= r["lat_max_us"], "avg outside min..max")
    expect(r["lat_stdev_us"] >= 0, "stdev %s" % r["lat_stdev_us"])
    return True

def window(r, meta, lo, hi):
    # -D: the window ends with the operation in flight at the deadline, which
    # an emulator may stall: a latency row allows its longest round trip.
    w = r["window_s"]
    rtt = (r.get("lat_max_us") or 0) / 1e6 * (2 if "/ 2" in str(meta.get("latency", "")) else 1)
    expect(lo <= w <= hi + rtt, "window_s %s outside %s..%s%s" %
           (w, lo, hi, " + %.3f s, the longest round trip" % rtt if rtt else ""))
    return True

def raw(r, path):
    expect(r is not None, "no single result row")
    x = sorted(float(l.split(",")[1]) for l in open(path)
               if l.strip() and not l.startswith("#") and not l.startswith("sample"))
    n = len(x)
    expect(n == r["iterations"], "%d raw samples, iterations %s" % (n, r["iterations"]))
    mean = math.fsum(x) / n
    want = {"lat_min_us": x[0], "lat_max_us": x[-1], "lat_avg_us": mean,
            "lat_stdev_us": math.sqrt(math.fsum((v - mean) ** 2 for v in x) / n)}
    for k in r:
        if k.startswith("lat_p") and k.endswith("_us"):
            p = float(k[5:-3].replace("_", "."))
            want[k] = x[max(1, min(n, math.ceil(p * n / 100 - 1e-9))) - 1]
    for k, v in want.items():
        expect(close(r[k], v / 1e3, 1e-6), "%s %s, the raw samples give %.9f" % (k, r[k], v / 1e3))
    return True

def raw_samples(path):
    return [float(l.split(",")[1]) for l in open(path)
            if l.strip() and not l.startswith("#") and not l.startswith("sample")]

def rtt_factor(meta):
    return 2 if "/ 2" in str(meta.get("latency", "")) else 1

def window_covers(r, meta, path, slack):
    # -n: window_s runs from the first counted iteration's post to the last
    # one's end, so the samples (each a whole iteration, the round trip:
    # the raw file's one-way figures x 2 for ping-pongs) lie inside it and
    # fill it but for the loop's bookkeeping between them (slack).
    busy = math.fsum(raw_samples(path)) * rtt_factor(meta) / 1e9
    w = r["window_s"]
    expect(busy <= w * (1 + 1e-6), "the samples add up to %.6f s, more than window_s %s" % (busy, w))
    expect(w <= busy * (1 + slack), "window_s %s is more than %g %% above the samples' %.6f s"
           " (does it include the warm-up?)" % (w, slack * 100, busy))
    return True

def hist(path, n):
    h = load(path)
    rows = h["rows"]
    expect(h["header"] == ["lower_ns", "upper_ns", "count", "cumulative_fraction"],
           "histogram header %s" % h["header"])
    expect(all(x["lower_ns"] < x["upper_ns"] and x["count"] > 0 for x in rows),
           "a bucket is empty or upside down")
    expect(all(a["upper_ns"] <= b["lower_ns"] for a, b in zip(rows, rows[1:])),
           "buckets out of order")
    expect(sum(x["count"] for x in rows) == n,
           "counts add up to %d, not %d" % (sum(x["count"] for x in rows), n))
    expect(all(a["cumulative_fraction"] <= b["cumulative_fraction"] for a, b in zip(rows, rows[1:])),
           "cumulative fraction decreases")
    expect(rows[-1]["cumulative_fraction"] == 1, "cumulative fraction ends at %s" % rows[-1]["cumulative_fraction"])
    return True

def check(path, exprs, env=None):
    """env: E, the caller's environment (default: this process's)."""
    try:
        ns = load(path)
    except (OSError, ValueError) as e:
        print("# rb_check: cannot read %s: %s" % (path, e))
        return False
    ns.update(E=os.environ if env is None else env, SWEEP=[2**k for k in range(1, 24)], expect=expect, bw=bw,
              lat=lat, close=close, window=window, raw=raw, hist=hist,
              raw_samples=raw_samples, rtt_factor=rtt_factor, window_covers=window_covers,
              r=ns["rows"][0] if len(ns["rows"]) == 1 else None)
    for e in exprs:
        try:
            ok, why = bool(eval(e, dict(ns))), ""
        except Failed as f:
            ok, why = False, str(f)
        except Exception as x:
            ok, why = False, "%s: %s" % (type(x).__name__, x)
        if not ok:
            print("# %s: check failed: %s%s" % (os.path.basename(path), e,
                                                " (%s)" % why if why else ""))
            print("# status=%s, %d rows:" % (ns["status"], len(ns["rows"])))
            rows = ns["rows"]
            for row in rows[:4] + (["..."] if len(rows) > 5 else []) + rows[4:][-1:]:
                print("#   %s" % row)
            return False
    return True


def meta_lines(path):
    """--meta-lines FILE.csv: its metadata as the "# KEY=VALUE" lines of the
    earlier CSV format, from the sidecar FILE.meta.json (or FILE's own "#"
    lines, an earlier file); nothing when neither can be read."""
    side = os.path.splitext(path)[0] + ".meta.json"
    try:
        if os.path.exists(side):
            d = json.load(open(side))
            for k, v in d.get("meta", {}).items():
                print("# %s=%s" % (k, v if isinstance(v, str) else json.dumps(v)))
            print("# status=%s" % d.get("status"))
        else:
            for line in open(path):
                if line.startswith("# "):
                    sys.stdout.write(line)
    except (OSError, ValueError):
        return 1
    return 0


def run(args, env=None):
    """FILE EXPR... [-- FILE EXPR...]...: 0 when every check holds, else 1;
    --meta-lines FILE: meta_lines()."""
    if len(args) == 2 and args[0] == "--meta-lines":
        return meta_lines(args[1])
    groups = [[]]
    for a in args:
        if a == "--":
            groups.append([])
        else:
            groups[-1].append(a)
    return 0 if all(check(g[0], g[1:], env) for g in groups if g) else 1


def caller_env(entries):
    """E for a request: this server's environment, with the caller's values
    of the variables its checks name (NAME=VALUE entries; NAME: not in the
    caller's environment)."""
    env = dict(os.environ)
    for e in entries:
        name, eq, value = e.partition("=")
        if eq:
            env[name] = value
        else:
            env.pop(name, None)
    return env


def run_py(path, argv):
    """The python program in path run with argv (lib/check.sh's rb_py), as
    `python3 - ARGV` would: its exit status; its output on this process's
    stdout and stderr."""
    saved = sys.argv
    sys.argv = [path] + argv
    try:
        runpy.run_path(path, run_name="__main__")
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        sys.argv = saved


def answer(req):
    """One request file: its checks (or, after --py, its program) run,
    R.done written (R.err first: a program's stderr); never raises."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with open(req, "rb") as f:
            fields = f.read().decode().split("\0")
        if fields and fields[-1] == "":
            fields.pop()
        os.chdir(fields[0])
        n = int(fields[1])
        args = fields[2 + n:]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            if args[:1] == ["--py"]:
                code = run_py(args[1], args[2:])
            else:
                code = run(args, caller_env(fields[2:2 + n]))
    except BaseException:
        code = 1
        out.write("# rb_check: %s" % traceback.format_exc().replace("\n", "\n# "))
    if err.getvalue():
        with open(req + ".err", "w") as f:
            f.write(err.getvalue())
    with open(req + ".tmp", "w") as f:
        f.write("%d\n%s" % (code, out.getvalue()))
    os.rename(req + ".tmp", req + ".done")


def serve(fifo):
    # read-write: no end of input when a writer closes; SIGTERM ends it
    with open(os.open(fifo, os.O_RDWR), "r") as f:
        for line in f:
            if line.strip():
                answer(line.strip())


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        sys.exit(run(sys.argv[1:]))
