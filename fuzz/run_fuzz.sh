#!/usr/bin/env bash
# Builds the energy.json fuzzer with clang (libFuzzer + AddressSanitizer + UBSan) in build-fuzz/ and
# runs it for a given time (default 600 s) on a seed corpus of valid and broken reports.
#   fuzz/run_fuzz.sh [seconds] [jobs]
# Exit 0: no crash found in that time. A crash leaves its input in build-fuzz/fuzz/crash-*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
jobs=${2:-1}
build="${ECOCOMPUTE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
command -v clang++ >/dev/null || { echo "run_fuzz: clang++ is missing (apt-get install clang)" >&2; exit 3; }

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DECOCOMPUTE_BUILD_TESTS=OFF -DECOCOMPUTE_BUILD_BENCH=OFF -DECOCOMPUTE_WERROR=OFF \
    -DCMAKE_PROJECT_INCLUDE="$root/fuzz/enable_fuzz.cmake" \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
    "-DCMAKE_CXX_STANDARD_LIBRARIES=-lcpp-httplib -lpq" >/dev/null
fi
cmake --build "$build" --target energy_json_fuzzer -j"$(nproc)"

corpus="$build/fuzz/corpus"
mkdir -p "$corpus"
cp "$root"/tests/unit/server/fixtures/*.json "$corpus/" 2>/dev/null || true
cp "$root"/tests/golden/*.json "$corpus/" 2>/dev/null || true
printf '{}' >"$corpus/empty-object.json"
printf '{"schema_version":"ecocompute-energy/1.2"}' >"$corpus/bare-1.2.json"
printf '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]' >"$corpus/deep.json"

cd "$build/fuzz"
export ECOCOMPUTE_DATA_DIR="${ECOCOMPUTE_DATA_DIR:-$root/data}"
ASAN_OPTIONS=detect_leaks=0 ./energy_json_fuzzer -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -jobs="$jobs" -workers="$jobs" -print_final_stats=1 "$corpus"
