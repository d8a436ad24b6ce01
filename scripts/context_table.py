#!/usr/bin/env python3
"""Long-context atlas cells against the decision model's answers: one row per format and batch.

Per cell: the measured ΔE vs F16 at the same batch and context (paired mean, 95 % CI, SD of the pairs),
`ecocompute estimate` at a short context (512: the short-context cell, as the shipped atlas answers it)
and at the run's context (the model's context term, with its 95 % predictive interval and basis), and
whether the measurement falls inside that interval; then F16's energy per token measured and as
estimate gives it. estimate answers from the shipped evidence: where the runs are shipped they are in
the fit, so the check is in-sample (`ecocompute calibrate --hold-out session` holds each session out).
Set ECOCOMPUTE_CACHE_DIR to reuse one fit of it across the calls.

Usage: scripts/context_table.py ECOCOMPUTE_BINARY RUN_FOLDER [RUN_FOLDER …]
"""
import glob
import json
import os
import subprocess
import sys


def measured(folders):
    cells = {}
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "energy-*.json"))):
            r = json.load(open(path))
            w = r["workload"]
            d = (r.get("statistics") or {}).get("vs_fp16_energy_pct") or {}
            key = (w["precision"], w.get("batch_size", 1))
            cells.setdefault(key, []).append({
                "params_b": w["params_b"], "context": w.get("prompt_tokens", 0), "e": r["results"]["energy_per_token_mj"],
                "mean": d.get("mean"), "low": d.get("ci95_low"), "high": d.get("ci95_high"), "sd": d.get("sd")})
    return cells


def estimate(binary, params_b, precision, batch, context):
    out = subprocess.run([binary, "estimate", "-N", repr(params_b), "-g", "H200", "-e", "llama.cpp", "-p", precision,
                          "--batch", str(batch), "--ctx", str(context), "--json"], capture_output=True, text=True, check=True)
    j = json.loads(out.stdout)
    e = j["energy_estimate"]
    return {"mean": j["delta_pct"], "ci": j["ci"], "basis": j["basis"], "f16": e["fp16_mj_per_token"],
            "f16_ci": e["fp16_mj_per_token_ci"]}


def main(binary, folders):
    cells = measured(folders)
    batches = sorted({b for _, b in cells})
    formats = [p for p in ["Q8_0", "Q6_K", "Q4_K_M", "Q4_0", "IQ4_NL"] if any(k[0] == p for k in cells)]
    print("| format | batch | measured ΔE % [95 % CI] (SD) | short context (estimate) | estimate at the run's context [95 %] (basis) | inside |")
    print("|---|---|---|---|---|---|")
    inside = total = 0
    for precision in formats:
        for batch in batches:
            for m in cells.get((precision, batch), []):
                if m["mean"] is None:
                    continue
                short = estimate(binary, m["params_b"], precision, batch, 512)
                long = estimate(binary, m["params_b"], precision, batch, m["context"])
                ok = long["ci"][0] <= m["mean"] <= long["ci"][1]
                inside += ok
                total += 1
                print(f"| {precision} | {batch} | {m['mean']:+.1f} [{m['low']:+.1f}, {m['high']:+.1f}] ({m['sd']:.2f}) | "
                      f"{short['mean']:+.1f} ({short['basis']}) | {long['mean']:+.1f} [{long['ci'][0]:+.1f}, {long['ci'][1]:+.1f}] ({long['basis']}) | "
                      f"{'yes' if ok else 'no'} |")
    print(f"\ninside {inside}/{total}\n")
    print("| batch | F16 measured mJ/token | F16 estimate, context 512 | F16 estimate at the run's context [95 %] |")
    print("|---|---|---|---|")
    for batch in batches:
        runs = cells.get(("F16", batch), [])
        if not runs:
            continue
        short = estimate(binary, runs[0]["params_b"], "Q8_0", batch, 512)
        long = estimate(binary, runs[0]["params_b"], "Q8_0", batch, runs[0]["context"])
        energies = ", ".join("{:.1f}".format(r["e"]) for r in runs)
        print(f"| {batch} | {energies} | {short['f16']:.1f} | "
              f"{long['f16']:.1f} [{long['f16_ci'][0]:.1f}, {long['f16_ci'][1]:.1f}] |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
