#!/usr/bin/env bash
# Builds a libFuzzer target with clang (libFuzzer + AddressSanitizer + UBSan) in the `sanitize` preset's
# tree (build/sanitize/, which the sanitizer pass of the tests shares) and runs it for a given time
# (default 600 s):
#   fuzz/run_fuzz.sh [energy_json|report_consistency|query_text|http_request|mcp_frame|gguf] [seconds] [jobs]
# energy_json: an uploaded energy.json through every upload check, seeded with valid and broken reports.
# report_consistency: JSON through the report reader and the consistency checker, same seeds.
# query_text: the free-text question reader; http_request: raw HTTP requests; mcp_frame: MCP stdin
#   (each seeded from fuzz/seeds/<target>/).
# gguf: a model file through our GGUF checks and llama.cpp's loader (in a child process), seeded with
#   micro models (fuzz/make_gguf_seeds), the trained fixture and llama.cpp's vocab-only GGUFs; its
#   corpus, merged to the inputs that add coverage beyond those seeds, is kept in fuzz/corpus/gguf.tar.xz
#   (unpacked before a run, re-packed after it).
# Exit 0: no crash found in that time. A crash leaves its input in build/sanitize/fuzz/crash-*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=energy_json
case "${1:-}" in energy_json|report_consistency|query_text|http_request|mcp_frame|gguf) target=$1; shift ;; esac
seconds=${1:-600}
jobs=${2:-1}
build="$root/build/sanitize"
command -v clang++ >/dev/null || { echo "run_fuzz: clang++ is missing (apt-get install clang)" >&2; exit 3; }
[ -f "$build/build.ninja" ] || (cd "$root" && cmake --preset sanitize >/dev/null)
export ECOCOMPUTE_DATA_DIR="${ECOCOMPUTE_DATA_DIR:-$root/data}"
# One job runs in this process (its exit status is the fuzzer's: non-zero on a crash); more run as
# libFuzzer's worker processes, each logging to fuzz-<n>.log.
parallel=()
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
export ASAN_OPTIONS=detect_leaks=0

if [ "$target" = query_text ] || [ "$target" = http_request ] || [ "$target" = mcp_frame ]; then
  cmake --build "$build" --target "${target}_fuzzer" -j"$(nproc)"
  corpus="$build/fuzz/corpus-$target"
  mkdir -p "$corpus"
  cp "$root/fuzz/seeds/$target"/* "$corpus/"
  cd "$build/fuzz"
  exec "./${target}_fuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -rss_limit_mb=2048 "${parallel[@]}" -print_final_stats=1 "$corpus"
fi

if [ "$target" = energy_json ] || [ "$target" = report_consistency ]; then
  cmake --build "$build" --target "${target}_fuzzer" -j"$(nproc)"
  corpus="$build/fuzz/corpus-$target"
  mkdir -p "$corpus"
  cp "$root"/tests/unit/server/fixtures/*.json "$corpus/" 2>/dev/null || true
  cp "$root"/tests/golden/*/*.json "$corpus/" 2>/dev/null || true
  printf '{}' >"$corpus/empty-object.json"
  printf '{"schema_version":"ecocompute-energy/1.2"}' >"$corpus/bare-1.2.json"
  printf '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]' >"$corpus/deep.json"
  cd "$build/fuzz"
  exec "./${target}_fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 "${parallel[@]}" -print_final_stats=1 "$corpus"
fi

cmake --build "$build" --target gguf_fuzzer make_gguf_seeds ecocompute -j"$(nproc)"
export ECOCOMPUTE_BINARY="$build/bin/ecocompute"
seeds="$build/fuzz/gguf-seeds"
work="$build/fuzz/gguf-corpus"
kept="$root/fuzz/corpus/gguf.tar.xz"  # the committed corpus: inputs that added coverage beyond the seeds
rm -rf "$seeds" && mkdir -p "$seeds" "$work"
"$build/fuzz/make_gguf_seeds" "$root/data/fixture/fixture-kjv-f16.gguf" "$seeds"
cp "$root/data/fixture/fixture-kjv-f16.gguf" "$seeds/"
cp "$root"/third_party/llama.cpp/models/ggml-vocab-llama-spm.gguf "$root"/third_party/llama.cpp/models/ggml-vocab-gpt-2.gguf "$seeds/"
[ -f "$kept" ] && tar -C "$work" -xJf "$kept"
cd "$build/fuzz"
./gguf_fuzzer -max_total_time="$seconds" -max_len=2000000 -timeout=30 -rss_limit_mb=4096 \
  -jobs="$jobs" -workers="$jobs" -print_final_stats=1 "$work" "$seeds"
# Keep the inputs that add coverage beyond the seeds (which the next run rebuilds), packed.
rm -rf merged && mkdir merged && cp "$seeds"/* merged/
./gguf_fuzzer -merge=1 -max_len=2000000 -timeout=30 merged "$work" >/dev/null 2>&1
(cd "$seeds" && for f in *; do rm -f "../merged/$f"; done)
mkdir -p "$(dirname "$kept")" && tar -C merged -cJf "$kept" . && rm -rf "$root/fuzz/corpus/gguf"
echo "run_fuzz: $(find merged -type f | wc -l) inputs kept in $kept ($(du -h "$kept" | cut -f1))"
