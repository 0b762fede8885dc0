#!/usr/bin/env python3
"""summarize.py RAW.csv [PLOT.svg]: from measure.sh's lines, a Markdown
table of the median per benchmark and placement, the remote/local ratio of
the medians and each side's spread (min..max); runs whose placement
metadata is not the expected one (local: buffer_node 1, cpu 1; remote: 0, 0)
are counted apart.  With PLOT.svg, also a plot (gnuplot): each run's figure
divided by its benchmark's local median, local and remote side by side."""
import csv
import statistics
import subprocess
import sys

EXPECT = {"local": ("1", "1"), "remote": ("0", "0")}


def main(path):
    rows = list(csv.DictReader(open(path)))
    benches = list(dict.fromkeys((r["bench"], r["args"]) for r in rows))
    print("| benchmark | figure | local median (n, min..max) | remote median (n, min..max) "
          "| remote/local |")
    print("|---|---|---|---|---|")
    for bench, args in benches:
        med, cells, unit, wrong = {}, {}, "", 0
        for pl in ("local", "remote"):
            runs = [r for r in rows if (r["bench"], r["args"], r["placement"]) == (bench, args, pl)]
            ok = [r for r in runs if r["value"] and (r["buffer_node"], r["cpu"]) == EXPECT[pl]]
            wrong += len(runs) - len(ok)
            v = [float(r["value"]) for r in ok]
            unit = unit or (runs[0]["unit"] if runs else "")
            med[pl] = statistics.median(v) if v else float("nan")
            cells[pl] = "%.1f (%d, %.1f..%.1f)" % (med[pl], len(v), min(v), max(v)) if v else "-"
        print("| %s %s | %s | %s | %s | %.2f |" % (bench, args, unit, cells["local"],
                                                     cells["remote"], med["remote"] / med["local"]))
        if wrong:
            print("| (%s: %d runs failed or misplaced, left out) | | | | |" % (bench, wrong))


def plot(path, out):
    rows = [r for r in csv.DictReader(open(path))
            if r["value"] and (r["buffer_node"], r["cpu"]) == EXPECT[r["placement"]]]
    benches = list(dict.fromkeys(r["bench"] for r in rows))
    data = []
    for i, bench in enumerate(benches):
        local = [float(r["value"]) for r in rows if r["bench"] == bench and r["placement"] == "local"]
        ref = statistics.median(local)
        for r in rows:
            if r["bench"] == bench:
                x = i + (-0.15 if r["placement"] == "local" else 0.15)
                data.append("%s %.2f %.4f" % (r["placement"], x, float(r["value"]) / ref))
    tics = ", ".join('"%s" %d' % (b, i) for i, b in enumerate(benches))
    script = """set terminal svg size 720,400 font "sans,11"
set output "%s"
set title "Two-node test bed (emulated): each run / the local median"
set ylabel "figure / local median (bandwidth: MiB/s; latency: p50)"
set xtics (%s)
set xrange [-0.6:%d.6]
set yrange [0:*]
set grid ytics
set key bottom right
set termoption noenhanced
plot "-" using 2:(strcol(1) eq "local" ? $3 : 1/0) with points pt 7 title "local (node 1)", \\
     "-" using 2:(strcol(1) eq "remote" ? $3 : 1/0) with points pt 5 title "remote (--numa-node 0)", \\
     1 with lines dt 2 notitle
""" % (out, tics, len(benches) - 1)
    body = "\n".join(data) + "\ne\n"
    subprocess.run(["gnuplot"], input=script + body + body, text=True, check=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "raw.csv")
    if len(sys.argv) > 2:
        plot(sys.argv[1], sys.argv[2])
