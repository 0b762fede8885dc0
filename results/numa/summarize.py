#!/usr/bin/env python3
"""summarize.py RAW.csv: from measure.sh's lines, a Markdown table of the
median per benchmark and placement, the remote/local ratio of the medians
and each side's spread (min..max); runs whose placement metadata is not the
expected one (local: buffer_node 1, cpu 1; remote: 0, 0) are counted apart."""
import csv
import statistics
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


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "raw.csv")
