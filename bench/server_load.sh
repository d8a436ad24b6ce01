#!/usr/bin/env bash
# Load test of `ecocompute serve` on loopback with wrk (Debian package wrk): throughput and latency
# percentiles of /v1/estimate (and /healthz as the server's floor). Traffic goes to 127.0.0.1 only, and
# each run is bounded in time. Results go to stdout; bench/server_load.md records them.
#   bench/server_load.sh [ecocompute binary] [seconds per run] [connections] [server threads]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/bin/ecocompute}
seconds=${2:-20}
connections=${3:-32}
threads=${4:-0}  # 0: one event loop per core (the default of `serve --threads`)
command -v wrk >/dev/null || { echo "server_load: wrk is missing (apt-get install wrk)" >&2; exit 3; }

work=$(mktemp -d /tmp/ecocompute-load.XXXXXX)
"$binary" --log-level warn serve --port 0 --port-file "$work/port" --db "$work/r.sqlite" --rate-limit 0 \
  --threads "$threads" --store "$work/none.sqlite" --web-dir "$work/none" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
base="http://127.0.0.1:$port"
echo "# $(date -u +%FT%TZ) $(nproc) cores; ecocompute serve --threads $threads; wrk -t2 -c$connections -d${seconds}s"
for path in "/healthz" "/v1/estimate?params_b=7&arch=ada&precision=NF4" "/v1/estimate?params_b=14&gpu=A100&precision=INT8"; do
  echo "## GET $path"
  curl -fsS "$base$path" >/dev/null
  wrk -t2 -c"$connections" -d"${seconds}s" --latency "$base$path"
done
