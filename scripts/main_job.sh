#!/usr/bin/env bash
# README command (A): sets up a fresh machine, builds ecocompute and runs the main job on the
# embedded default: the environment fingerprint and the meter's status.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" "$@"
bin="${ECOCOMPUTE_BUILD_DIR:-$root/build}/bin/ecocompute"
"$bin" info
