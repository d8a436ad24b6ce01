#!/usr/bin/env bash
# Builds libllama from third_party/llama.cpp and installs it into third_party/llama-<flavour>.
# Usage: scripts/build_llama.sh [cpu|cuda]   (cpu by default; cuda builds for sm_90 unless
# CMAKE_CUDA_ARCHITECTURES is set in the environment).
set -euo pipefail
flavour=${1:-cpu}
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/third_party/llama.cpp"
build="$root/third_party/build-llama-$flavour"
prefix="$root/third_party/llama-$flavour"

"$root/scripts/fetch_third_party.sh"

commit=$(cat "$src/.ecocompute-fetched")
if [ -f "$prefix/.ecocompute-built" ] && [ "$(cat "$prefix/.ecocompute-built")" = "$commit" ]; then
  echo "libllama ($flavour) already built in $prefix"
  exit 0
fi

flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=OFF
       -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_COMMON=OFF
       -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF
       -DLLAMA_CURL=OFF -DGGML_OPENMP=OFF
       -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_RPATH='$ORIGIN')
case "$flavour" in
  cpu) ;;
  cuda) flags+=(-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" -DGGML_CUDA_NCCL=OFF) ;;
  *) echo "build_llama: unknown flavour '$flavour' (expected cpu or cuda)" >&2; exit 2 ;;
esac
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src" -B "$build" "${generator[@]}" "${flags[@]}" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
cmake --install "$build" >/dev/null
echo "$commit" > "$prefix/.ecocompute-built"
echo "libllama ($flavour) installed in $prefix"
