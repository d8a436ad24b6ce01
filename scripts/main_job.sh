#!/usr/bin/env bash
# README command (A): sets up a fresh machine, builds ecocompute and runs the main job on the embedded
# default: the environment fingerprint, then `ecocompute measure` on the trained fixture model, F16 vs
# Q8_0 vs Q4_K_M, with its quality probe, on whatever is there (GPU energy counter if present, else
# RAPL where readable, else energy "unavailable" while throughput and quality are still measured).
# Flags: --cuda (build for a GPU, see scripts/build.sh). Reports go to out/main-job/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" "$@"
bin="${ECOCOMPUTE_BUILD_DIR:-$root/build}/bin/ecocompute"
"$bin" info
windows=()
# The 20-s windows exist for the GPU counter's 100-ms edges; with no GPU there is no such counter
# (RAPL updates every ~1 ms, and without any energy source only throughput and quality are measured),
# so a CPU-only machine uses short windows and the job ends in a few minutes.
if ! "$bin" info --json | grep -q '"nvml_available": true'; then
  windows=(--min-window 5 --min-prefill-window 2 --idle-window 2)
fi
"$bin" measure --model "$root/data/fixture/fixture-kjv-f16.gguf" --precisions Q8_0,Q4_K_M --trials 3 \
  "${windows[@]}" --cache-dir "$root/out/cache" --out "$root/out/main-job"
