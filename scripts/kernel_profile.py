#!/usr/bin/env python3
"""Tables of the kernels one decode step launches, per format and batch, from Nsight Compute CSVs.

scripts/device/session.sh profile:<arch> runs bench/decode_profile under `ncu --csv --page raw` for each
format and batch of a synthetic shape cut to its first layers (every matrix at the full model's shape)
and packs one <TYPE>-b<B>.csv per run. This reads them and prints, per format and batch, the time and
DRAM bytes of each kind of kernel in the step, the achieved bandwidth of the weight products, and the
kernel names that did the products (the regime: llama.cpp's vector kernel MMVQ, its matrix kernel MMQ,
or cuBLAS over dequantized or F16 weights).

Usage: scripts/kernel_profile.py FOLDER [--peak-gbps 4800] [--json OUT.json]
"""
import csv
import glob
import json
import os
import re
import sys

TIME_UNITS = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
              "second": 1.0, "s": 1.0}
BYTE_UNITS = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}

# Kinds of kernel, in the order tried: the first pattern that matches the kernel name decides.
KINDS = [
    ("MMVQ (vector, quantized)", re.compile(r"mul_mat_vec_q")),
    ("MMQ (matrix, quantized)", re.compile(r"mul_mat_q\b|mul_mat_q<|mul_mat_q_")),
    ("MMVF (vector, float)", re.compile(r"mul_mat_vec_f|mul_mat_vec\b|mul_mat_vec<")),
    ("MMF (matrix, float)", re.compile(r"mul_mat_f\b|mul_mat_f<")),
    ("cuBLAS GEMM/GEMV", re.compile(r"gemm|gemv|xmma|cutlass|cublas", re.I)),
    ("dequantize/convert", re.compile(r"dequantize|convert_unary|convert_")),
    ("activation quantize (q8_1)", re.compile(r"quantize_q8_1|quantize_mmq|quantize_row")),
    ("attention", re.compile(r"flash_attn|soft_max|attn")),
]
PRODUCT_KINDS = {"MMVQ (vector, quantized)", "MMQ (matrix, quantized)", "MMVF (vector, float)",
                 "MMF (matrix, float)", "cuBLAS GEMM/GEMV"}


def kind_of(name):
    for kind, pattern in KINDS:
        if pattern.search(name):
            return kind
    return "other"


def short_name(name):
    """The kernel's name without its template arguments and parameter list."""
    base = re.split(r"[<(]", name, maxsplit=1)[0]
    return base.replace("void ", "").strip()


def read_csv(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header_at = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if header_at is None:
        return []
    header, units = rows[header_at], rows[header_at + 1]
    col = {name: i for i, name in enumerate(header)}

    def value(row, metric, scale_table):
        i = col.get(metric)
        if i is None or i >= len(row) or row[i] in ("", "n/a"):
            return 0.0
        scale = scale_table.get(units[i], 1.0) if i < len(units) else 1.0
        return float(row[i].replace(",", "")) * scale

    kernels = []
    for row in rows[header_at + 2:]:
        if len(row) < len(header):
            continue
        kernels.append({
            "name": row[col["Kernel Name"]],
            "time_s": value(row, "gpu__time_duration.sum", TIME_UNITS),
            "bytes": value(row, "dram__bytes_read.sum", BYTE_UNITS) + value(row, "dram__bytes_write.sum", BYTE_UNITS),
            "sm_pct": value(row, "sm__throughput.avg.pct_of_peak_sustained_elapsed", {}),
            "dram_pct": value(row, "dram__throughput.avg.pct_of_peak_sustained_elapsed", {}),
        })
    return kernels


def summarize(kernels):
    """Per kind: time, bytes, kernels; the output projection (the product that moves most bytes) apart."""
    products = [k for k in kernels if kind_of(k["name"]) in PRODUCT_KINDS]
    output = max(products, key=lambda k: k["bytes"]) if products else None
    kinds = {}
    for k in kernels:
        kind = "output projection" if k is output else kind_of(k["name"])
        entry = kinds.setdefault(kind, {"time_s": 0.0, "bytes": 0.0, "n": 0, "names": set()})
        entry["time_s"] += k["time_s"]
        entry["bytes"] += k["bytes"]
        entry["n"] += 1
        entry["names"].add(short_name(k["name"]))
    return kinds


def main():
    folder = sys.argv[1]
    peak = float(sys.argv[sys.argv.index("--peak-gbps") + 1]) if "--peak-gbps" in sys.argv else 4800.0
    out_json = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    results = []
    for path in sorted(glob.glob(os.path.join(folder, "*-b*.csv"))):
        m = re.match(r"(.+)-b(\d+)\.csv$", os.path.basename(path))
        kernels = read_csv(path)
        if not m or not kernels:
            continue
        kinds = summarize(kernels)
        layer_products = {k: v for k, v in kinds.items() if k in PRODUCT_KINDS}
        t = sum(v["time_s"] for v in layer_products.values())
        b = sum(v["bytes"] for v in layer_products.values())
        results.append({"format": m.group(1), "batch": int(m.group(2)), "kernels": len(kernels),
                        "step_time_s": sum(k["time_s"] for k in kernels),
                        "layer_products_time_s": t, "layer_products_bytes": b,
                        "layer_products_gbps": b / t / 1e9 if t > 0 else None,
                        "kinds": {k: {**v, "names": sorted(v["names"])} for k, v in kinds.items()}})
    results.sort(key=lambda r: (r["format"], r["batch"]))
    print("| format | batch | layer products: kernels | time µs | GB/s (% of peak) | share of step time |")
    print("|---|---:|---|---:|---:|---:|")
    for r in results:
        names = sorted({n for k, v in r["kinds"].items() if k in PRODUCT_KINDS for n in v["names"]})
        gbps = r["layer_products_gbps"]
        share = r["layer_products_time_s"] / r["step_time_s"] * 100 if r["step_time_s"] else 0
        print(f"| {r['format']} | {r['batch']} | {', '.join(names)} | {r['layer_products_time_s'] * 1e6:.1f} | "
              f"{gbps:.0f} ({gbps / peak * 100:.0f} %) | {share:.0f} % |" if gbps else
              f"| {r['format']} | {r['batch']} | {', '.join(names)} | — | — | — |")
    if out_json:
        json.dump(results, open(out_json, "w"), indent=1)


if __name__ == "__main__":
    main()
