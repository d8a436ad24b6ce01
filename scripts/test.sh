#!/usr/bin/env bash
# README command (B): sets up a fresh machine, builds everything and runs every test except the
# `gpu` label (those need a real GPU: `ctest -L gpu` on such a machine), then builds the `asan` preset
# (AddressSanitizer + UndefinedBehaviorSanitizer) and runs the unit and integration tests again under it.
# Between the two, a 30-s libFuzzer smoke of each hostile-input target (fuzz/smoke.sh).
# ECOCOMPUTE_SKIP_SANITIZERS=1 skips the second pass and ECOCOMPUTE_SKIP_FUZZ=1 the smoke (for a quick
# local run; CI always runs both).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The tests need no benchmark program (bench/ is built by command A and measured by hand).
ECOCOMPUTE_BUILD_BENCH=OFF "$root/scripts/build.sh"
# A throwaway PostgreSQL server on loopback: the replication store's suite runs against it too.
eval "$("$root/scripts/start_postgres.sh")"
trap '"$root/scripts/start_postgres.sh" stop "$ECOCOMPUTE_TEST_PG_DIR"' EXIT
(cd "${ECOCOMPUTE_BUILD_DIR:-$root/build}" &&
  ctest --output-on-failure --label-exclude gpu --parallel "$(nproc)" --timeout 1800)

# libFuzzer smoke of the hostile-input targets, 30 s each (clang; ECOCOMPUTE_SKIP_FUZZ=1 skips it).
if [ "${ECOCOMPUTE_SKIP_FUZZ:-0}" != 1 ]; then "$root/fuzz/smoke.sh" 30; fi

if [ "${ECOCOMPUTE_SKIP_SANITIZERS:-0}" = 1 ]; then exit 0; fi
cd "$root"
cmake --preset asan >/dev/null
cmake --build --preset asan --parallel "$(nproc)"
ctest --preset asan --label-regex 'unit|integration' --parallel "$(nproc)" --timeout 1800
