#!/usr/bin/env bash
# Here: builds ecocompute, its GPU tests (tests/gpu, GoogleTest linked statically) and the decode-loop
# benchmark for the GPU machine, with llama-server (scripts/build_llama_server.sh shared: it runs on the
# CUDA libllama carried here), and packs what must travel into .device/bundle.tar.xz.
# bench/decode_profile (the decode steps `session.sh profile:` runs under Nsight Compute) always travels.
# BUNDLE_TESTS=0 neither builds nor packs gpu_tests and decode_loop_bench (about 0.95 MB packed): the
# device call carries 64 MiB with the working tree, and a measuring session needs neither.
# BUNDLE_PROXY_BENCH=1 adds bench/proxy_overhead_bench (the proxy's cost to a server's clients, on the GPU
# machine's 16 cores and the card's NVML: session.sh proxy-bench).
# BUNDLE_SERVER=0 (with a CUDA libllama here) leaves llama-server out: only `serve:` runs it, and its
# shared build takes minutes on 2 cores. With LLAMA_THERE=1 the server is left out unless BUNDLE_SERVER=1:
# then the one built in libllama's CPU tree (scripts/build_llama_server.sh cpu) travels with its own
# libraries (libllama-server-impl, libllama-common, libmtmd; they call libllama and ggml through their
# API only) and runs there on the CUDA libllama of the same commit that build-llama puts first.
#
# The GPU machine has CUDA, cmake and gcc but none of our Debian libraries and no package registry, so
# we build here (nvcc 13.0 matches its driver) against a CUDA libllama, built here or there
# (.device/llama-cuda.txz, from build_llama_there.sh), and carry the binary with the shared
# libraries it needs that are not part of the C/C++ runtime. A libllama built there needs glibc 2.38
# symbols our glibc 2.36 lacks, hence --allow-shlib-undefined: they resolve at run time there.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dev="$root/.device"
build="$root/build-device"
# LLAMA_THERE=1: ecocompute is linked against the CPU libllama built here (same commit, same ABI and
# sonames) and the bundle carries no libllama or libggml; the GPU machine builds libllama with CUDA
# itself (session.sh build-llama, ~4 min on its 16 cores against ~35 min on 2 cores here) and puts it
# first on LD_LIBRARY_PATH. Such a bundle has no llama-server and no CUDA selftest load.
llama_there=${LLAMA_THERE:-0}
if [ "$llama_there" = 1 ]; then
  [ -f "$root/third_party/llama-cpu/.ecocompute-built" ] || { echo "package.sh: build the CPU libllama first (scripts/build_llama.sh)" >&2; exit 3; }
  llama_prefix="$root/third_party/llama-cpu"
  cuda_flags=(-DECOCOMPUTE_CUDA=OFF)
else
  # libllama with CUDA: built here (scripts/build_llama.sh cuda) or there (build_llama_there.sh, then join.sh).
  if [ ! -f "$root/third_party/llama-cuda/.ecocompute-built" ]; then
    [ -f "$dev/llama-cuda.txz" ] || { echo "package.sh: no libllama with CUDA: run scripts/build_llama.sh cuda here, or build it on the GPU machine into $dev/llama-cuda.txz" >&2; exit 3; }
    tar -xJf "$dev/llama-cuda.txz" -C "$root/third_party"
  fi
  llama_prefix="$root/third_party/llama-cuda"
  cuda_flags=(-DECOCOMPUTE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" "${cuda_flags[@]}" \
  -DECOCOMPUTE_LLAMA_PREFIX="$llama_prefix" \
  -DECOCOMPUTE_BUILD_TESTS=ON -DECOCOMPUTE_BUILD_BENCH=ON -DECOCOMPUTE_POSTGRES=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--allow-shlib-undefined -Wl,-rpath-link,/usr/local/cuda/lib64/stubs" >/dev/null
targets=(ecocompute decode_profile)
[ "${BUNDLE_TESTS:-1}" = 0 ] || targets+=(decode_loop_bench gpu_tests)
[ "${BUNDLE_PROXY_BENCH:-0}" = 0 ] || targets+=(proxy_overhead_bench)
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"
with_server=0
if [ "$llama_there" = 1 ]; then
  [ "${BUNDLE_SERVER:-0}" = 0 ] || with_server=cpu
else
  [ "${BUNDLE_SERVER:-1}" = 0 ] || with_server=shared
fi
[ "$with_server" = 0 ] || "$root/scripts/build_llama_server.sh" "$with_server"

stage=$(mktemp -d)
mkdir -p "$stage/bundle/bin" "$stage/bundle/lib"
cp "$build/bin/ecocompute" "$build/bench/decode_profile" "$stage/bundle/bin/"
[ "${BUNDLE_TESTS:-1}" = 0 ] || cp "$build/bench/decode_loop_bench" "$build/tests/gpu_tests" "$stage/bundle/bin/"
[ "${BUNDLE_PROXY_BENCH:-0}" = 0 ] || cp "$build/bench/proxy_overhead_bench" "$stage/bundle/bin/"
strip "$stage/bundle/bin/"*
if [ "$llama_there" != 1 ]; then
  cp -a "$root/third_party/llama-cuda/lib/"*.so* "$stage/bundle/lib/"
fi
if [ "$with_server" = shared ]; then
  cp "$root/third_party/llama-server-shared/bin/llama-server" "$stage/bundle/bin/"
  strip "$stage/bundle/bin/llama-server"
  cp -a "$root/third_party/llama-server-shared/lib/"*.so* "$stage/bundle/lib/"
elif [ "$with_server" = cpu ]; then
  cp "$root/third_party/llama-server/bin/llama-server" "$stage/bundle/bin/"
  strip "$stage/bundle/bin/llama-server"
  for lib in libllama-server-impl libllama-common libmtmd; do
    cp -a "$root/third_party/build-llama-cpu/bin/$lib".so* "$stage/bundle/lib/"
  done
fi
# Shared libraries from Debian that the GPU machine's image may lack; the C/C++ runtime, CUDA and
# libllama's own come from there.
skip='^(linux-vdso|libc\.|libm\.|libstdc\+\+|libgcc_s|ld-linux|libdl\.|libpthread\.|librt\.|libcuda|libcudart|libcublas|libllama|libggml)'
for exe in "$stage/bundle/bin/"*; do
  LD_LIBRARY_PATH="$llama_prefix/lib" ldd "$exe" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $skip ]] && continue
  cp -L "$path" "$stage/bundle/lib/$name"
done
# The device call carries at most 64 MiB with the working tree: symbols off, the strongest xz preset.
find "$stage/bundle/lib" -type f -name '*.so*' -exec strip --strip-unneeded {} +
mkdir -p "$dev"
XZ_OPT='-T0 -9e' tar -cJf "$dev/bundle.tar.xz" -C "$stage" bundle
rm -rf "$stage"
ls -la "$dev/bundle.tar.xz"
