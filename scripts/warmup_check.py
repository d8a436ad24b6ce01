#!/usr/bin/env python3
"""Whether the warm-up before each trial was enough: the first iteration of a decode window against the
others of the same window, grouped by the warm-up the trial had (a whole iteration at a format change,
a prefill and a few decode steps at a batch change, none when the trial before ran the same
condition). A first iteration slower than the rest means one-off costs fell inside the measured window.

Reads trials[].warmup and trials[].decode.repeat_s of every energy-*.json in the folders.
Usage: scripts/warmup_check.py RUN_FOLDER [RUN_FOLDER …]
"""
import glob
import json
import os
import statistics
import sys


def main():
    groups = {}
    for folder in sys.argv[1:]:
        for path in glob.glob(os.path.join(folder, "energy-*.json")):
            for t in json.load(open(path)).get("trials", []):
                d = t.get("decode") or {}
                times = d.get("repeat_s") or []
                if t.get("status") != "ok" or len(times) < 2:
                    continue
                kind = (t.get("warmup") or "unrecorded").split(" (")[0]
                kind = "a prefill and some decode steps" if kind.startswith("a prefill") else kind
                groups.setdefault(kind, []).append((times[0] / statistics.median(times[1:]) - 1) * 100)
    print("| warm-up before the trial | windows | first iteration vs the window's others: median | 90th pct | max |")
    print("|---|---:|---:|---:|---:|")
    for kind, excess in sorted(groups.items()):
        excess.sort()
        p90 = excess[min(len(excess) - 1, int(0.9 * len(excess)))]
        print(f"| {kind} | {len(excess)} | {statistics.median(excess):+.2f} % | {p90:+.2f} % | {excess[-1]:+.2f} % |")


if __name__ == "__main__":
    main()
