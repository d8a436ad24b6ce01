#!/usr/bin/env bash
# README command (B): sets up a fresh machine, builds everything and runs every test except the
# `gpu` label (those need a real GPU: `ctest -L gpu` on such a machine), then builds the `asan` preset
# (AddressSanitizer + UndefinedBehaviorSanitizer) and runs the unit and integration tests again under it.
# ECOCOMPUTE_SKIP_SANITIZERS=1 skips that second pass (for a quick local run; CI always runs it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
# A throwaway PostgreSQL server on loopback: the replication store's suite runs against it too.
eval "$("$root/scripts/start_postgres.sh")"
trap '"$root/scripts/start_postgres.sh" stop "$ECOCOMPUTE_TEST_PG_DIR"' EXIT
(cd "${ECOCOMPUTE_BUILD_DIR:-$root/build}" &&
  ctest --output-on-failure --label-exclude gpu --parallel "$(nproc)" --timeout 1800)

if [ "${ECOCOMPUTE_SKIP_SANITIZERS:-0}" = 1 ]; then exit 0; fi
cd "$root"
cmake --preset asan >/dev/null
cmake --build --preset asan --parallel "$(nproc)"
ctest --preset asan --label-regex 'unit|integration' --parallel "$(nproc)" --timeout 1800
