#!/usr/bin/env python3
"""Medians of results/numa/raw.csv (from measure.sh): one line per
benchmark and placement, and the remote/local ratio."""
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "raw.csv")))
for bench in ("rb_write_bw", "rb_send_lat"):
    med = {}
    for pl in ("local", "remote"):
        v = [float(r["value"]) for r in rows if r["bench"] == bench and r["placement"] == pl and r["value"]]
        unit = next((r["unit"] for r in rows if r["bench"] == bench), "")
        med[pl] = statistics.median(v) if v else float("nan")
        print("%-12s %-6s n=%d median=%.3f %s  all=%s" % (bench, pl, len(v), med[pl], unit,
              " ".join("%.3f" % x for x in v)))
    print("%-12s remote/local = %.3f" % (bench, med["remote"] / med["local"]))
