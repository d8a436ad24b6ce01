#!/usr/bin/env bash
# README command (B): sets up a fresh machine, builds everything and runs every test except the
# `gpu` label (those need a real GPU: `ctest -L gpu` on such a machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
cd "${ECOCOMPUTE_BUILD_DIR:-$root/build}"
ctest --output-on-failure --label-exclude gpu --parallel "$(nproc)" --timeout 1800
