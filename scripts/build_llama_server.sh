#!/usr/bin/env bash
# Builds llama-server (only that target) from the pinned third_party/llama.cpp, CPU only, and installs the
# binary as third_party/llama-server/bin/llama-server. The integration tests of `measure-endpoint` and
# `proxy` serve the trained fixture with it. No web UI (nothing is downloaded).
# By default (`cpu`) it is built in libllama's own CPU tree (third_party/build-llama-cpu, from
# scripts/build_llama.sh cpu, which must come first) and runs on that tree's shared libllama and libggml:
# their ~220 objects are compiled once for both (a separate static build compiled them again, ~4 min of a
# 2-core machine's 7.6). The binary finds them through its build RUNPATH, so that tree stays in place.
# `shared` builds it in a tree of its own against shared libllama/libggml (third_party/llama-server-shared,
# with its own libraries in lib/): the GPU bundle carries that binary and runs it on the CUDA libllama of
# the same commit, since the server's own code is the same with or without CUDA (backends are found
# through ggml's registry).
# Usage: scripts/build_llama_server.sh [cpu|shared]   (ECOCOMPUTE_JOBS limits parallel jobs; default nproc)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src="$root/third_party/llama.cpp"
linkage=${1:-cpu}
case "$linkage" in
  cpu) build="$root/third_party/build-llama-cpu"; prefix="$root/third_party/llama-server"
       [ -f "$root/third_party/llama-cpu/.ecocompute-built" ] && [ -f "$build/CMakeCache.txt" ] ||
         { echo "build_llama_server: build the CPU libllama first (scripts/build_llama.sh cpu)" >&2; exit 3; } ;;
  shared) build="$root/third_party/build-llama-server-shared"; prefix="$root/third_party/llama-server-shared" ;;
  *) echo "build_llama_server: unknown linkage '$linkage' (expected cpu or shared)" >&2; exit 2 ;;
esac

"$root/scripts/fetch_third_party.sh"

# Our fix to the server's reply parser (scripts/patches/llama-server-malformed-utf8.diff): a model that
# emits malformed UTF-8, as random weights do, failed every such request with a 500 instead of answering.
# Only common/ changes, which libllama does not contain, so the libllama builds are untouched.
patch="$root/scripts/patches/llama-server-malformed-utf8.diff"
if git -C "$src" apply --check "$patch" 2>/dev/null; then
  git -C "$src" apply "$patch"
elif ! git -C "$src" apply --reverse --check "$patch" 2>/dev/null; then
  echo "build_llama_server: $patch applies neither forwards nor backwards to $src" >&2
  exit 1
fi

commit="$(cat "$src/.ecocompute-fetched")+$(basename "$patch")"
if [ -x "$prefix/bin/llama-server" ] && [ -f "$prefix/.ecocompute-built" ] &&
   [ "$(cat "$prefix/.ecocompute-built")" = "$commit" ]; then
  echo "llama-server already built in $prefix"
  exit 0
fi

# The same libllama flags as build_llama.sh's (so that its objects in the cpu tree are reused), and the server on.
flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=OFF
       -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON
       -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
       -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF
       -DLLAMA_CURL=OFF -DGGML_OPENMP=OFF)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src" -B "$build" "${generator[@]}" "${flags[@]}" >/dev/null
cmake --build "$build" --target llama-server --parallel "${ECOCOMPUTE_JOBS:-$(nproc)}"
mkdir -p "$prefix/bin"
install -m 0755 "$build/bin/llama-server" "$prefix/bin/llama-server"
if [ "$linkage" = shared ]; then
  # The server's own libraries; libllama and libggml come from the build it runs on.
  rm -rf "$prefix/lib"; mkdir -p "$prefix/lib"
  for lib in "$build"/bin/lib*.so*; do
    case "$(basename "$lib")" in libllama.so*|libggml*) ;; *) cp -a "$lib" "$prefix/lib/" ;; esac
  done
fi
echo "$commit" > "$prefix/.ecocompute-built"
echo "llama-server installed in $prefix/bin"
