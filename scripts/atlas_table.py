#!/usr/bin/env python3
"""The atlas cells of one or more measure runs as a markdown table: one row per format and batch.

Per cell: ΔE vs F16 at the same batch (paired mean and 95 % CI), the SD of the paired ΔE over the
trials (the figure the batch-sweep protocol is judged by), the pairs, F16's and the format's energy per
token, decode tokens/s, the GPU's busy share over the decode windows (mean and lowest window), the
decode windows' mean length and the warm-ups the trials had. Reads every energy-*.json of each folder.

Usage: scripts/atlas_table.py RUN_FOLDER [RUN_FOLDER …]
"""
import glob
import json
import os
import sys


def cells(folder):
    for path in sorted(glob.glob(os.path.join(folder, "energy-*.json"))):
        r = json.load(open(path))
        w, x, s = r["workload"], r["results"], r.get("statistics", {})
        windows = [t["decode"] for t in r.get("trials", []) if t.get("status") == "ok" and t.get("decode")]
        busy = [d["gpu_busy_pct"] for d in windows if d.get("gpu_busy_pct") is not None]
        yield {
            "model": w.get("model_name", ""), "params_b": w.get("params_b"), "precision": w["precision"],
            "batch": w.get("batch_size", 1), "delta": s.get("vs_fp16_energy_pct", {}),
            "e": x.get("energy_per_token_mj"), "e16": x.get("fp16_energy_per_token_mj"),
            "tps": x.get("throughput_tokens_per_s"), "busy": busy,
            "window_s": sum(d["duration_s"] for d in windows) / len(windows) if windows else None,
            "warmups": sorted({t.get("warmup", "") for t in r.get("trials", []) if t.get("warmup")}),
            "token_choice": r.get("engine", {}).get("token_choice", "host"),
        }


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def main():
    rows = [c for folder in sys.argv[1:] for c in cells(folder)]
    rows.sort(key=lambda c: (c["params_b"] or 0, c["precision"] != "F16", c["precision"], c["batch"]))
    print("| model | format | batch | ΔE % [95 % CI] | SD of ΔE (pt) | pairs | mJ/token (F16) | tok/s | GPU busy % (lowest) | window s |")
    print("|---|---|---:|---|---:|---:|---|---:|---|---:|")
    for c in rows:
        d = c["delta"]
        delta = (f"{d['mean']:+.1f} [{d['ci95_low']:+.1f}, {d['ci95_high']:+.1f}]"
                 if d.get("mean") is not None and d.get("ci95_low") is not None else "—")
        busy = f"{sum(c['busy']) / len(c['busy']):.0f} ({min(c['busy']):.0f})" if c["busy"] else "—"
        energy = f"{fmt(c['e'], '.1f')} ({fmt(c['e16'], '.1f')})"
        print(f"| {c['model']} | {c['precision']} | {c['batch']} | {delta} | {fmt(d.get('sd'), '.2f')} | "
              f"{d.get('n_pairs', '—')} | {energy} | {fmt(c['tps'], '.0f')} | {busy} | {fmt(c['window_s'], '.2f')} |")


if __name__ == "__main__":
    main()
