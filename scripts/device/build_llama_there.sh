#!/usr/bin/env bash
# There, on the GPU machine: builds libllama with CUDA (sm_90 unless CMAKE_CUDA_ARCHITECTURES is
# set) from .device/llama-src.tar.xz and writes it to $OUT as llama-cuda.txz, cut into parts small
# enough to come back (16 MiB per file) with their sha256; scripts/device/join.sh puts them together
# here. ~3.5 min on the H200 machine's 16 cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:?OUT must name the folder whose files come back}
[ -f "$root/.device/llama-src.tar.xz" ] || { echo "build_llama_there: .device/llama-src.tar.xz missing (scripts/device/prepare.sh)" >&2; exit 3; }
mkdir -p "$root/third_party"
[ -f "$root/third_party/llama.cpp/.ecocompute-fetched" ] || tar -xJf "$root/.device/llama-src.tar.xz" -C "$root/third_party"
time "$root/scripts/build_llama.sh" cuda
XZ_OPT='-T0 -6' tar -cJf /tmp/llama-cuda.txz -C "$root/third_party" llama-cuda
"$root/scripts/device/split.sh" /tmp/llama-cuda.txz "$out"
