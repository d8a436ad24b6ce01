#!/usr/bin/env bash
# The decision layer on a large store: the shipped evidence imported into a fresh SQLite store, grown to
# N rows (bench/large_store.py), then the time of `data list`, of the first question after the change
# (it fits the decision model and keeps it in the store), and of `estimate` and `optimize` after it;
# then, when wrk is installed, `ecocompute serve` on that store under load on /v1/estimate and
# /v1/optimize (loopback). Results go to stdout; bench/RESULTS.md records them. Not a test.
# The server keeps answers by question (`serve --answer-cache`, ANSWER_CACHE here, default 4096; 0 keeps
# none): the same question asked again is then served from memory, so each route is also loaded with a
# new question per request (bench/distinct_questions.lua), which the cache rarely holds.
#   bench/large_store.sh [ecocompute binary] [rows] [seconds per wrk run] [connections] [server threads]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$root/build/bin/ecocompute}
rows=${2:-100000}
seconds=${3:-10}
connections=${4:-32}
threads=${5:-0}  # 0: one event loop per core (the default of `serve --threads`)
work=$(mktemp -d /tmp/ecocompute-large.XXXXXX)
trap 'rm -rf "$work"' EXIT
export ECOCOMPUTE_DATA_DIR=$root/data ECOCOMPUTE_CACHE_DIR=$work/cache
store=$work/store.sqlite
time_of() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc; }

mapfile -t reports < <(sed -e '/^#/d' -e '/^$/d' "$root/data/sessions/shipped.txt" | while read -r folder; do ls "$root/data/sessions/$folder"/energy-*.json; done)
"$binary" --log-level warn data import --store "$store" "$root/data/published" "${reports[@]}" >/dev/null
python3 "$root/bench/large_store.py" "$store" "$rows"
echo "# $(date -u +%FT%TZ) $(nproc) cores; store of $rows rows"
echo "data list: $(time_of "$binary" --log-level warn data list --store "$store") s"
echo "first estimate after the change (fits and stores the model): $(time_of "$binary" --log-level warn estimate -N 7 -g H200 -p Q4_K_M --store "$store") s"
for i in 1 2 3; do
  echo "estimate -N 7 -g H200 -p Q4_K_M: $(time_of "$binary" --log-level warn estimate -N 7 -g H200 -p Q4_K_M --store "$store") s"
done
echo "optimize -N 7 -g H200: $(time_of "$binary" --log-level warn optimize -N 7 -g H200 --store "$store") s"
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk): no server load run"; exit 0; }
"$binary" --log-level warn serve --port 0 --port-file "$work/port" --db "$work/r.sqlite" --rate-limit 0 --threads "$threads" \
  --store "$store" --web-dir "$work/none" --answer-cache "${ANSWER_CACHE:-4096}" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$work/port")"
for path in "/v1/estimate?params_b=7&gpu=H200&precision=Q4_K_M" "/v1/estimate?params_b=7&arch=ada&precision=NF4" \
            "/v1/optimize?params_b=7&gpu=H200"; do
  echo "## GET $path (wrk -t2 -c$connections -d${seconds}s, serve --threads $threads)"
  curl -fsS "$base$path" >/dev/null
  wrk -t2 -c"$connections" -d"${seconds}s" --latency "$base$path" | grep -E "Requests/sec|50%|99%|requests in"
done
for path in "/v1/estimate?gpu=H200&precision=Q4_K_M" "/v1/optimize?gpu=H200"; do
  echo "## GET $path&params_b=<a new size each request> (wrk -t2 -c$connections -d${seconds}s, distinct_questions.lua)"
  wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$root/bench/distinct_questions.lua" "$base$path" |
    grep -E "Requests/sec|50%|99%|requests in|Non-2xx"
done
