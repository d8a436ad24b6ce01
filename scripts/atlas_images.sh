#!/usr/bin/env bash
# Draws the batch atlas's heatmaps (docs/findings/h200-batch-atlas.md): one SVG per format, ΔE vs F16 over
# the seven campaign sizes × batch 1–64 on the H200 with llama.cpp, each cell the decision layer's answer
# with its interval, every cell that is not measured hatched. Also writes the table behind each picture.
# Usage: scripts/atlas_images.sh [ECOCOMPUTE_BINARY]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-${ECOCOMPUTE_BUILD_DIR:-$root/build}/bin/ecocompute}
out="$root/docs/findings/img"
mkdir -p "$out"
for format in Q8_0 Q6_K Q4_K_M Q4_0 IQ4_NL; do
  "$bin" atlas --gpu H200 --engine llama.cpp -p "$format" --svg "$out/atlas-h200-llama.cpp-$format.svg" \
    > "$out/atlas-h200-llama.cpp-$format.txt"
  echo "$out/atlas-h200-llama.cpp-$format.svg"
done
