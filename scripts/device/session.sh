#!/usr/bin/env bash
# Runs on the lent H200: unpacks .device/bundle.tar.xz (from scripts/device/package.sh) into /tmp/eco
# and runs the steps named as arguments, writing every output under $OUT.
#   steps: info selftest synth quantize measure bench
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/eco-out}
mkdir -p "$out" /tmp/eco
[ -x /tmp/eco/bundle/bin/ecocompute ] || tar -xJf "$root/.device/bundle.tar.xz" -C /tmp/eco
export LD_LIBRARY_PATH=/tmp/eco/bundle/lib:${LD_LIBRARY_PATH:-}
export ECOCOMPUTE_DATA_DIR="$root/data"
eco=/tmp/eco/bundle/bin/ecocompute
models=/tmp/eco/models
mkdir -p "$models"
status=0
for step in "$@"; do
  echo "=== $step $(date -u +%H:%M:%S)"
  case "$step" in
    info) "$eco" info | tee "$out/info.txt"; "$eco" info --json > "$out/info.json" ;;
    selftest) "$eco" selftest --markdown "$out/h200-selftest.md" --json "$out/h200-selftest.json" 2>&1 | tee "$out/selftest.log" || status=1 ;;
    synth) [ -f "$models/llama3-8b-f16.gguf" ] || "$eco" synth --arch llama3-8b --type f16 -o "$models/llama3-8b-f16.gguf" || status=1 ;;
    *) echo "session.sh: unknown step $step" >&2; status=2 ;;
  esac
done
exit $status
