#!/usr/bin/env python3
"""Roofline fraction of batch-1 decode per format: measured tokens/s over the bandwidth ceiling.

A batch-1 decode step reads every weight once, so a card that reads B bytes/s can at best produce
B / (weight bytes) tokens/s. Weight bytes are the GGUF file's size: an upper bound for models with
an untied embedding table, of which a step reads one row (Llama-3-8B F16: 1.05 of 16.06 GB), so the
fraction is overstated by at most that share. B is the card's measured read bandwidth
(scripts/device/copy_bandwidth.py, a sum over an 8 GiB buffer). Reads the shipped sessions' reports;
prints a markdown table.
Usage: scripts/roofline_table.py BANDWIDTH.json [data/sessions]
"""
import glob
import json
import os
import sys


def main():
    bandwidth = json.load(open(sys.argv[1]))["read_gb_per_s"]["median"] * 1e9
    sessions = sys.argv[2] if len(sys.argv) > 2 else "data/sessions"
    shipped = [line.strip() for line in open(os.path.join(sessions, "shipped.txt"))
               if line.strip() and not line.startswith("#")]
    rows = []
    for session in shipped:
        for path in sorted(glob.glob(os.path.join(sessions, session, "energy-*.json"))):
            r = json.load(open(path))
            w, x = r["workload"], r["results"]
            if w.get("batch_size", 1) != 1 or not x.get("throughput_tokens_per_s") or not w.get("model_size_bytes"):
                continue
            size = w["model_size_bytes"]
            ceiling = bandwidth / size
            rows.append((w["n_params"], w["model_name"].replace("synthetic ", "").replace(" shape", ""),
                         w["precision"], size / 1e9, x["throughput_tokens_per_s"], ceiling, session))
    print(f"Read bandwidth {bandwidth / 1e9:.0f} GB/s (median of 20 reads of an 8 GiB buffer).\n")
    print("| model | format | weights GB | tok/s measured | tok/s ceiling | roofline fraction | session |")
    print("|---|---|---:|---:|---:|---:|---|")
    for _, model, fmt, gb, tps, ceiling, session in sorted(rows):
        print(f"| {model} | {fmt} | {gb:.2f} | {tps:.0f} | {ceiling:.0f} | {100 * tps / ceiling:.0f} % | `{session}` |")


if __name__ == "__main__":
    main()
