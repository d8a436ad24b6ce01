#!/usr/bin/env bash
# Sets up a fresh machine and builds ecocompute: Debian packages, llama.cpp (pinned, CPU by default),
# llama-server (CPU, for the endpoint tests), then our CMake build in build/. Flags: --cuda builds
# libllama and the selftest load with CUDA (sm_90).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flavour=cpu
extra=()
for arg in "$@"; do
  case "$arg" in
    --cuda) flavour=cuda; extra+=(-DECOCOMPUTE_CUDA=ON) ;;
    *) echo "build.sh: unknown flag '$arg' (expected --cuda)" >&2; exit 2 ;;
  esac
done
build="${ECOCOMPUTE_BUILD_DIR:-$root/build}"
"$root/scripts/install_deps.sh"
"$root/scripts/build_llama.sh" "$flavour"
# llama-server (CPU), for the integration test of `measure-endpoint` against a real server.
"$root/scripts/build_llama_server.sh"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# ECOCOMPUTE_BUILD_BENCH=OFF (command B sets it) leaves the benchmark programs out: no test runs them.
# -g1 (line tables and functions, no local variables: enough for backtraces, perf and callgrind) instead
# of -g: one unity file of the decision layer compiled in 41.5 s instead of 54.2 s and its object is a
# quarter the size (2-core machine, 2026-12-07); the `dev` preset keeps full debug information.
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
      -DECOCOMPUTE_BUILD_BENCH="${ECOCOMPUTE_BUILD_BENCH:-ON}" \
      -DECOCOMPUTE_LLAMA_PREFIX="$root/third_party/llama-$flavour" "${extra[@]}" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
# The web UI the server mounts: front-end libraries from npm, pinned by the lock file.
(cd "$root/web" && npm ci --no-audit --no-fund --prefer-offline >/dev/null && npm run build >/dev/null)
