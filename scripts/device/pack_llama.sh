#!/usr/bin/env bash
# Here: packs the CUDA libllama built here (scripts/build_llama.sh cuda) for the GPU machine in parts a
# call can carry beside the working tree. The whole archive (~40 MB) and the tree (~27 MB) exceed one
# call's 64 MiB, so it goes as .device/llama-parts/llama-cuda.txz.part00, part01 (21 MiB at most) with
# its sha256, one part per call, each call running `session.sh llama-part` on one warm machine
# (docs/hardware/README.md, step 2″). Libraries stripped; headers and CMake files left out.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix="$root/third_party/llama-cuda"
[ -f "$prefix/.ecocompute-built" ] || { echo "pack_llama: no CUDA libllama in $prefix (scripts/build_llama.sh cuda)" >&2; exit 3; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/llama-cuda"
cp -a "$prefix/lib" "$prefix/.ecocompute-built" "$stage/llama-cuda/"
rm -rf "$stage/llama-cuda/lib/cmake" "$stage/llama-cuda/lib/pkgconfig"
find "$stage/llama-cuda/lib" -type f -name '*.so*' -exec strip --strip-unneeded {} +
XZ_OPT='-T0 -9e' tar -cJf "$stage/llama-cuda.txz" -C "$stage" llama-cuda
rm -rf "$root/.device/llama-parts"
PART_SIZE=21M "$root/scripts/device/split.sh" "$stage/llama-cuda.txz" "$root/.device/llama-parts"
