#!/usr/bin/env python3
"""The proxy's prefill:decode weight, derived from the shipped H200 reports (docs/proxy.md).

Each in-process report under data/sessions/ carries a prefill window and a decode window, each with
its energy per token, at one batch size B (B sequences decoding together). A decode token at batch B
costs e_d(B) ≈ e_step / B (a memory-bound step is shared by the batch); a prompt token costs e_p,
nearly independent of B. So the weight of one prompt token, in decode tokens of the same interval,
is w(B) = e_p / e_d(B), close to proportional to B. This fits w(B) = a × B^alpha by least squares on
log w, each batch size weighted equally (143 of the reports are at B = 1), and prints the fit, the
error of the fitted rule against each report's own ratio, and the spread of the ratio at each B.

Usage: scripts/prefill_weight.py [data/sessions]
"""
import glob
import json
import math
import statistics
import sys


def reports(root):
    for path in sorted(glob.glob(f"{root}/*/**/energy*.json", recursive=True)):
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, ValueError):
            continue
        results = report.get("results", {})
        prefill = (results.get("prefill") or {}).get("energy_per_token_mj")
        decode = (results.get("decode") or {}).get("energy_per_token_mj")
        batch = (report.get("workload") or {}).get("batch_size")
        if prefill and decode and batch:
            yield path, int(batch), prefill / decode


def percentile(values, q):
    values = sorted(values)
    position = (len(values) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return values[low] + (values[high] - values[low]) * (position - low)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "data/sessions"
    rows = list(reports(root))
    if not rows:
        sys.exit(f"no report with prefill and decode windows under {root}")
    batches = sorted({b for _, b, _ in rows})
    count = {b: sum(1 for _, batch, _ in rows if batch == b) for b in batches}
    weights = [1.0 / count[batch] for _, batch, _ in rows]
    xs = [math.log(batch) for _, batch, _ in rows]
    ys = [math.log(ratio) for _, _, ratio in rows]
    total = sum(weights)
    mean_x = sum(w * x for w, x in zip(weights, xs)) / total
    mean_y = sum(w * y for w, y in zip(weights, ys)) / total
    alpha = sum(w * (x - mean_x) * (y - mean_y) for w, x, y in zip(weights, xs, ys)) / \
        sum(w * (x - mean_x) ** 2 for w, x in zip(weights, xs))
    a = math.exp(mean_y - alpha * mean_x)
    print(f"reports: {len(rows)}; batches: {batches}")
    print(f"fit: w(B) = {a:.4f} x B^{alpha:.3f}")
    rule = lambda batch: a * batch ** alpha
    errors = [abs(rule(batch) - ratio) / ratio * 100 for _, batch, ratio in rows]
    print(f"|w(B) - measured| / measured, %: median {statistics.median(errors):.1f}, "
          f"p90 {percentile(errors, 0.9):.1f}, max {max(errors):.1f}")
    for batch in sorted({b for _, b, _ in rows}):
        at = [ratio for _, b, ratio in rows if b == batch]
        print(f"  B={batch:3d}: n={len(at):3d} measured w median {statistics.median(at):.3f} "
              f"(range {min(at):.3f}-{max(at):.3f}); rule {rule(batch):.3f}")


if __name__ == "__main__":
    main()
