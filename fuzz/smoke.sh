#!/usr/bin/env bash
# CI's fuzz smoke: each libFuzzer target of hostile input (not the GGUF one, whose runs are long) for
# a short time (default 30 s each). Exit non-zero when a target finds a crash, leak of the limits or
# hang: its input is left in build/sanitize/fuzz/crash-* (or leak-, timeout-, oom-).
#   fuzz/smoke.sh [seconds]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-30}
for target in query_text report_consistency energy_json http_request mcp_frame; do
  echo "fuzz smoke: $target for $seconds s"
  log="${TMPDIR:-/tmp}/ecocompute-fuzz-smoke-$target.log"
  status=0
  "$root/fuzz/run_fuzz.sh" "$target" "$seconds" 1 >"$log" 2>&1 || status=$?
  grep -E "^(Done|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)" "$log" || true
  [ "$status" -eq 0 ] || { tail -n 40 "$log" >&2; echo "fuzz smoke: $target failed (exit $status)" >&2; exit 1; }
done
echo "fuzz smoke: no crash in any target"
