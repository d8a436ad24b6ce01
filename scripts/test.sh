#!/usr/bin/env bash
# README command (B): sets up a fresh machine, builds everything and runs every test except the
# `gpu` label (those need a real GPU: `ctest -L gpu` on such a machine), then builds the `sanitize`
# preset (clang: AddressSanitizer + UndefinedBehaviorSanitizer, with the libFuzzer targets in the same
# tree), runs a 20-s libFuzzer smoke of each hostile-input target (fuzz/smoke.sh) and the unit and
# integration tests again under the sanitizers. One sanitizer tree serves the fuzz targets and the tests:
# a third build of the project (a gcc sanitizer tree beside the fuzz tree) had pushed CI past its limit.
# ECOCOMPUTE_SKIP_SANITIZERS=1 skips the sanitizer tree (the smoke and the second pass) and
# ECOCOMPUTE_SKIP_FUZZ=1 the smoke alone (for a quick local run; CI always runs both).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
started=$(date +%s)
# Each part's start, so that a slow run says where its time went.
part() { echo "== test.sh: $1 (at $(($(date +%s) - started)) s)"; }
part "build"
# The tests need no benchmark program (bench/ is built by command A and measured by hand).
ECOCOMPUTE_BUILD_BENCH=OFF "$root/scripts/build.sh"
# A throwaway PostgreSQL server on loopback: the replication store's suite runs against it too.
eval "$("$root/scripts/start_postgres.sh")"
trap '"$root/scripts/start_postgres.sh" stop "$ECOCOMPUTE_TEST_PG_DIR"' EXIT
part "tests"
(cd "${ECOCOMPUTE_BUILD_DIR:-$root/build}" &&
  ctest --output-on-failure --label-exclude gpu --parallel "$(nproc)" --timeout 1800)

if [ "${ECOCOMPUTE_SKIP_SANITIZERS:-0}" = 1 ]; then part "done"; exit 0; fi
cd "$root"
part "sanitizer build"
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize --parallel "$(nproc)"
# libFuzzer smoke of the hostile-input targets, 20 s each (30 s until 2026-12-07: CI time; ECOCOMPUTE_SKIP_FUZZ=1 skips it).
if [ "${ECOCOMPUTE_SKIP_FUZZ:-0}" != 1 ]; then part "fuzz smoke"; "$root/fuzz/smoke.sh" 20; fi
part "sanitizer tests"
# The first pass's fit of the shipped evidence (same sources, minutes old) is read, not made again under
# the sanitizers (728 s of this pass's critical path on 2026-12-07; tests/CMakeLists.txt says why it may).
ECOCOMPUTE_TEST_FIT_SEED="${ECOCOMPUTE_BUILD_DIR:-$root/build}/test-fit-cache" \
  ctest --preset sanitize --label-regex 'unit|integration' --parallel "$(nproc)" --timeout 1800
part "done"
