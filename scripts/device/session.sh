#!/usr/bin/env bash
# Runs on the lent H200: unpacks .device/bundle.tar.xz (from scripts/device/package.sh) into /tmp/eco
# and runs the steps named as arguments, writing every output under $OUT (at most 8 files come back,
# so each step's files are packed into one tarball).
#   build-llama  builds libllama with CUDA (sm_90) here from .device/llama-src.tar.xz into
#              third_party/llama-cuda and puts it first on LD_LIBRARY_PATH (for a bundle packed with
#              LLAMA_THERE=1); with LLAMA_BACK=1 it also returns it as llama-cuda.txz parts (join.sh)
#   llama-part  keeps the libllama parts this call carries (.device/llama-parts/, from pack_llama.sh here)
#              in /tmp/eco/llama-parts; once every part is there (join.sh's sha256 holds), unpacks them into
#              third_party/llama-cuda, as build-llama would have built it. One part per call on one warm
#              machine: the parts together and the working tree exceed a call's 64 MiB
#   info       environment fingerprint
#   gpu-tests  the `gpu` test label (tests/gpu): engine offload and UUID selection, the NVML meter
#              around real decode work, `measure` end to end on the GPU counter; JUnit XML to $OUT
#   selftest   the meter against its own CUDA load
#   smoke      a short measure on a synthetic Qwen2-0.5B shape (catches GPU-path errors cheaply)
#   synth8b    writes the synthetic Llama-3-8B F16 GGUF and quantizes Q8_0, Q4_K_M, Q4_0 into the cache
#   measure8b  the issue's figure run: F16 vs Q8_0 vs Q4_K_M vs Q4_0, k = 3
#   bench8b    bare llama.cpp decode loop vs the engine on the same files
#   campaign:<arch>  one cell of the batch-1 crossover campaign: synthetic <arch> (see `synth --list`)
#              F16 vs $CAMPAIGN_FORMATS (default Q8_0,Q6_K,Q4_K_M,IQ4_NL,Q4_0), k = $CAMPAIGN_K (3),
#              $CAMPAIGN_EDGES edges (corrected), decode windows of $CAMPAIGN_WINDOW s (3), prefill
#              $CAMPAIGN_PREFILL s (2), idle 10 s, extra measure flags $CAMPAIGN_ARGS (e.g. --accept-throttled,
#              where F16 reaches the power limit, as at 14 B); reports packed as campaign-<arch>.tar.gz
#   batch:<arch>  the batch sweep of one size: F16 vs $BATCH_FORMATS (Q8_0,Q4_K_M) at batch $BATCHES
#              (1,4,16,64), k = 3, corrected edges, 3-s decode windows, at least $BATCH_ITERATIONS (10)
#              iterations per window; packed as batch-<arch>.tar.gz. At batch 64 one iteration (64 × 256
#              tokens) takes 3–4.5 s, so 10 make a 30–60-s window and 9 trials did not fit a call at 8 B
#              (2026-12-02): BATCH_ITERATIONS=2 there still gives windows of 6–9 s
#   quantize-bg:<arch>  the same quantizations as quantize:<arch>, started in a process session of their own
#              (setsid), so they run on while the steps after them use the GPU and outlive the call on a
#              warm machine; wait-quantize waits for them (log: quantize-bg.log in the models folder). Only
#              for steps that ship nothing: a measurement with the host's cores busy is not what `atlas:`
#              measures
#   wait-quantize  waits (inside what SESSION_SECONDS leaves) until quantize-bg's process has ended
#   atlas:<arch>  the batch atlas of one size (docs/findings/h200-batch-atlas.md): F16 vs $ATLAS_FORMATS
#              (Q8_0,Q6_K,Q4_K_M,Q4_0,IQ4_NL) at batch $ATLAS_BATCHES (1,2,4,8,16,32,64), k = $ATLAS_K (3):
#              every trial of a format runs its batch levels back to back (ascending, then descending in the
#              next block), the greedy choice on the device, a whole warm-up iteration only at a format
#              change and 16 decode steps at a batch change, corrected edges, decode windows of at least
#              $ATLAS_WINDOW s (1) sized per batch level, prefill windows of $ATLAS_PREFILL s (0.3), extra
#              measure flags $ATLAS_ARGS; packed as atlas-<arch>$ATLAS_TAG.tar.gz (ATLAS_TAG, e.g. -b1-8,
#              names a part when one size's batches are split over calls)
#   quantize:<arch>  quantizes synthetic <arch>'s F16 into the cache for $QUANTIZE_FORMATS (default the
#              atlas's five) in one process: one hash and one load check of the F16 file for all of them
#   profile:<arch>  Nsight Compute over decode steps (bench/decode_profile): a synthetic <arch> of its first
#              $PROFILE_LAYERS (2) layers (every matrix at the full shape, so each kernel is the full model's),
#              F16 and $PROFILE_FORMATS (the atlas's five) at batch $PROFILE_BATCHES (1,2,4,8,16,32,64), one
#              profiled step after 32 warm-up steps, --clock-control none: per kernel its name, time and DRAM
#              bytes; one CSV per format and batch, packed as profile-<arch>.tar.gz. PROFILE_F16=0 leaves F16
#              out (profiled at every batch by 2026-12-04; under ncu its batch-64 step alone takes > 120 s)
#   prequantize:<arch>  quantizes synthetic <arch>'s F16 into the cache for $PREQUANTIZE_FORMATS (a later call's
#              campaign then starts measuring at once); evict:<types> removes cached types (disk room)
#   drop:<arch>  removes synthetic <arch>'s F16 file (disk room before another size; its cached
#              quantizations go with evict:<types>)
#   fixture    the trained fixture (data/fixture/) on the GPU with its quality probe: F16 vs
#              $FIXTURE_FORMATS (Q8_0,Q4_K_M,Q4_0), k = $FIXTURE_K (3), corrected edges, decode windows of
#              $FIXTURE_WINDOW s (3); fixture.tar.gz
#   pair       needs two GPUs (A, B as nvidia-smi lists them): one sweep plan ($PAIR_JOBS synthetic
#              $PAIR_ARCH jobs, F16 vs Q8_0,Q4_0, k = 2) run on A alone, on B alone, then on both; each
#              run inside `meter --gpus A,B`, after an idle window on both: the attribution check (the
#              idle GPU's energy above its idle power while the other works) and the wall times; pair.tar.gz
#   split:<arch>  one model on one GPU and split over $SPLIT_GPUS (2): F16 vs $SPLIT_FORMATS (Q4_K_M),
#              k = $SPLIT_K (3), corrected edges, 3-s decode windows, 1-s prefill and 5-s idle windows, at
#              batch $SPLIT_BATCHES (unset: 1), extra measure flags $SPLIT_ARGS, for each of $SPLIT_MODES
#              (single,layer,tensor,row: single is GPU A alone); split-<arch>$SPLIT_TAG.tar.gz
#   serve:<arch>  llama-server (CUDA) serving synthetic <arch> at F16 and $SERVE_FORMAT (Q4_K_M), both on
#              GPU A (scripts/device/serve_level.sh); `measure-endpoint` over concurrency $SERVE_LEVELS
#              (1,2,4,8,16,32,64), k = $SERVE_K (3), $SERVE_REQUESTS (24) requests of $SERVE_OUTPUT (64-128) tokens,
#              at least $SERVE_PER_STREAM (4) per stream (longer steady windows at high C);
#              $SERVE_SLOTS slots: per-level (default: both servers restarted before each level with one
#              slot per stream, --level-cmd, the levels run one after another) or a number (fixed servers,
#              blocks interleave the levels); server flags $SERVE_ARGS (none). History: on 2026-12-01 the
#              first run had 64 fixed slots and no flags (a batch's attention spans every KV stream between
#              its lowest and highest slot, so speed depended on where the requests landed), the second 64
#              slots with --kv-unified (steady at C ≤ 8, slower above, and the F16 server died at C = 32);
#              more `measure-endpoint` flags in $SERVE_SWEEP_ARGS (none; e.g. "--target-ci 2 --min-trials 3",
#              "--level-warmup 0", "--endpoint-order baseline-first" as in the sweeps of 2026-12-01);
#              sweep and server logs packed as serve-<arch>$SERVE_TAG.tar.gz (SERVE_TAG, e.g. -c8, names one of
#              several serve steps of one call)
#   proxy:<arch>  `ecocompute proxy` in front of llama-server (CUDA) serving synthetic <arch> at $SERVE_FORMAT
#              (Q4_K_M) on GPU A: (1) the proxy's per-request energy against `meter` around the same load, at
#              each concurrency of $PROXY_LEVELS (1,16; $PROXY_REQUESTS_PER_STREAM (8) requests per stream, at
#              least 24, 96 output tokens, a quarter unstreamed) on a server with 16 slots
#              (scripts/device/proxy_load.py meter, inside `meter --json`); (2) the proxy's added latency
#              and throughput at $PROXY_STREAMS (256) streams against the same server restarted with that many
#              slots, direct and through the proxy alternating, $PROXY_ROUNDS (2) rounds each
#              (proxy_load.py latency; PROXY_STREAMS=0 leaves (2) out); proxy-<arch>.tar.gz
#   proxy-bench  bench/proxy_overhead_bench (bundle packed with BUNDLE_PROXY_BENCH=1): the proxy's added
#              latency and throughput at 256 and 16 streams against the tests' fake server, on this machine's cores
#              and the card's NVML; $PROXY_BENCH_FILTER (pace_ms:20), $PROXY_BENCH_REPETITIONS (2);
#              proxy-bench.json / .txt
#   engines:<arch>  the engine effect on one shape: transformers FP16 vs BF16 (eager, random weights from
#              the shape's config, contrib/transformers_example.py through the command engine) and
#              llama.cpp F16 vs Q4_K_M, k = 3, 128-token iterations, corrected 3-s decode windows each
#              (transformers: one iteration per window); engines-<arch>.tar.gz
#   bandwidth  the GPU's measured copy and read bandwidth (scripts/device/copy_bandwidth.py): bandwidth.json
#   edges:<arch>  the fast protocol's check: F16 vs $EDGES_FORMATS (Q8_0,Q4_0), k = 3, measured twice in
#              one session, counter edges with 20-s decode windows, then corrected edges with 3-s
#              windows; reports packed as edges-<arch>.tar.gz (long/ and fast/)
#
# SESSION_SECONDS (optional): the seconds this script may run in all, e.g. the device call's limit less
# a margin. Each metered step's timeout is cut to end 30 s before it, so its reports are written and
# packed before the call ends; a step that starts with less than 60 s left is skipped.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/eco-out}
mkdir -p "$out" /tmp/eco
# A warm machine keeps the last call's bundle: unpacked again only when the carried one differs.
bundle_sum=$(sha256sum "$root/.device/bundle.tar.xz" | cut -d' ' -f1)
if [ ! -x /tmp/eco/bundle/bin/ecocompute ] || [ "$(cat /tmp/eco/bundle.sha256 2>/dev/null)" != "$bundle_sum" ]; then
  rm -rf /tmp/eco/bundle && tar -xJf "$root/.device/bundle.tar.xz" -C /tmp/eco && echo "$bundle_sum" > /tmp/eco/bundle.sha256
fi
export LD_LIBRARY_PATH=/tmp/eco/bundle/lib:${LD_LIBRARY_PATH:-}
# A libllama with CUDA built on this machine (step build-llama; kept while the machine stays warm) comes
# first: a bundle packed with LLAMA_THERE=1 carries none.
llama_here="$root/third_party/llama-cuda"
[ -f "$llama_here/.ecocompute-built" ] && export LD_LIBRARY_PATH="$llama_here/lib:$LD_LIBRARY_PATH"
export ECOCOMPUTE_DATA_DIR="$root/data"
# VOCAB_TAR: a one-tokenizer tarball from prepare.sh (vocab-llama-bpe.tar.xz) when the carry is tight.
[ -d /tmp/eco/vocab ] || tar -xJf "$root/.device/${VOCAB_TAR:-vocab.tar.xz}" -C /tmp/eco
export ECOCOMPUTE_VOCAB_DIR=/tmp/eco/vocab
eco=/tmp/eco/bundle/bin/ecocompute
# MODELS_DIR: where synthetic F16 files and the quantization cache go (e.g. /dev/shm/eco-models: the
# machine's 128 GiB of memory spare the 64-GiB disk and its write speed).
models=${MODELS_DIR:-/tmp/eco/models}
cache="$models/cache"
mkdir -p "$models" "$cache"
status=0
atlas_formats=Q8_0,Q6_K,Q4_K_M,Q4_0,IQ4_NL
stamp() { date -u +%H:%M:%S; }
# seconds_left: what SESSION_SECONDS leaves of the call (a large number without it).
seconds_left() { echo $(( ${SESSION_SECONDS:-1000000000} - SECONDS )); }
# step_limit SECONDS: SECONDS, or less when SESSION_SECONDS leaves less (30 s kept for writing and packing).
step_limit() {
  local left=$(( $(seconds_left) - 30 ))
  (( left < 1 )) && left=1
  (( left < $1 )) && echo "$left" || echo "$1"
}
gpu_uuid() { nvidia-smi --query-gpu=uuid --format=csv,noheader | sed -n "$1p" | tr -d ' '; }
pack() { tar -czf "$out/$1.tar.gz" -C "$2" . ; }
# clean_unfinished: removes the temporary files of quantizations that were cut (<type>.gguf.tmp-<pid>, the pid
# gone), not those of one still running (quantize-bg's: on 2026-12-04 a step's clean-up removed its file).
clean_unfinished() {
  local f
  for f in "$cache"/*/*.tmp-*; do
    [ -e "$f" ] || continue
    kill -0 "${f##*.tmp-}" 2>/dev/null || rm -f "$f"
  done
}
# wait_ready PORT: until a server answers /v1/models (it answers 503 while loading), at most 300 s.
wait_ready() {
  local i
  for i in $(seq 1 300); do
    python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$1/v1/models', timeout=2)" 2>/dev/null && return 0
    sleep 1
  done
  return 1
}
# synth_f16 ARCH: the synthetic F16 GGUF of ARCH, written once per machine.
synth_f16() {
  local f16="$models/$1-f16.gguf"
  [ -f "$f16" ] || { time "$eco" synth --arch "$1" --type f16 -o "$f16"; } 2>&1 | tail -4 >&2
  echo "$f16"
}
# serve_files ARCH: sets f16 (the synthetic F16 of ARCH), q ($SERVE_FORMAT, Q4_K_M) and qf (its quantization).
serve_files() {
  f16=$(synth_f16 "$1")
  q=${SERVE_FORMAT:-Q4_K_M}
  { time "$eco" quantize -m "$f16" --type "$q" --cache-dir "$cache"; } 2>&1 | tail -4
  qf=$(ls "$cache"/*/"$q".gguf | head -1)
}
# stop_servers DIR: stops the llama-servers serve_level.sh started for DIR, then notes the card in DIR/gpu.csv.
stop_servers() {
  local pidfile
  for pidfile in "$1"/server-*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; done
  sleep 2
  nvidia-smi --query-gpu=uuid,name,power.limit,clocks.max.sm --format=csv > "$1/gpu.csv"
}
# measure_into DIR TIMEOUT ARGS…: one measure run, its reports and logs in DIR, its summary printed.
measure_into() {
  local dir=$1 limit=$2; shift 2
  # A step run twice on a warm machine must not pack the first run's reports with the second's.
  rm -rf "$dir"; mkdir -p "$dir"
  timeout -s TERM "$(step_limit "$limit")" "$eco" measure "$@" --cache-dir "$cache" -o "$dir" --no-progress --output md \
    > "$dir/stdout.md" 2> "$dir/stderr.log"
  echo "measure $dir exit $? $(stamp)"; grep -E "plan:|warning|error" "$dir/stderr.log" | tail -8; cat "$dir/stdout.md"
}
# A bundle packed with LLAMA_THERE=1 carries no libllama: on a machine that has not built one (a fresh
# machine, which a call can get even right after another: 2026-12-03 a call found none and exited 127),
# build-llama runs first whether or not the steps name it.
steps=("$@")
if ! compgen -G "/tmp/eco/bundle/lib/libllama.so*" > /dev/null && [ ! -f "$llama_here/.ecocompute-built" ] &&
   [[ " ${steps[*]} " != *" build-llama "* && " ${steps[*]} " != *" llama-part "* ]]; then
  echo "no libllama on this machine: build-llama first"
  steps=(build-llama "${steps[@]}")
fi
for step in "${steps[@]}"; do
  echo "=== $step $(stamp)"
  if (( $(seconds_left) < 60 )); then
    echo "skipped: less than 60 s of SESSION_SECONDS=$SESSION_SECONDS left"; status=1; continue
  fi
  case "$step" in
    build-llama)
      if [ ! -f "$llama_here/.ecocompute-built" ]; then
        mkdir -p "$root/third_party"
        [ -f "$root/third_party/llama.cpp/.ecocompute-fetched" ] || tar -xJf "$root/.device/llama-src.tar.xz" -C "$root/third_party"
        { time "$root/scripts/build_llama.sh" cuda > /tmp/eco/build-llama.log 2>&1; } 2>&1 | tail -3
        tail -2 /tmp/eco/build-llama.log
      fi
      [ -f "$llama_here/.ecocompute-built" ] || { echo "build-llama: failed"; status=3; break; }
      export LD_LIBRARY_PATH="$llama_here/lib:$LD_LIBRARY_PATH"
      if [ "${LLAMA_BACK:-0}" = 1 ]; then
        XZ_OPT='-T0 -6' tar -cJf /tmp/eco/llama-cuda.txz -C "$root/third_party" llama-cuda
        "$root/scripts/device/split.sh" /tmp/eco/llama-cuda.txz "$out"
      fi ;;
    llama-part)
      parts=/tmp/eco/llama-parts
      mkdir -p "$parts" && cp -v "$root/.device/llama-parts/"* "$parts/"
      if [ ! -f "$llama_here/.ecocompute-built" ]; then
        if "$root/scripts/device/join.sh" "$parts" llama-cuda.txz /tmp/eco/llama-cuda.txz; then
          mkdir -p "$root/third_party" && tar -xJf /tmp/eco/llama-cuda.txz -C "$root/third_party"
        else
          echo "llama-part: not every part is here yet ($(ls "$parts" | grep -c '\.part')); carry the next in the next call"
        fi
      fi
      [ -f "$llama_here/.ecocompute-built" ] && export LD_LIBRARY_PATH="$llama_here/lib:$LD_LIBRARY_PATH" ;;
    info)
      "$eco" info | tee "$out/info.txt"; "$eco" info --json > "$out/info.json" ;;
    gpu-tests)
      [ -x /tmp/eco/bundle/bin/gpu_tests ] || { echo "gpu-tests: the bundle was packed with BUNDLE_TESTS=0"; status=2; continue; }
      ECOCOMPUTE_BINARY="$eco" /tmp/eco/bundle/bin/gpu_tests --gtest_output="xml:$out/gpu-tests.xml" 2>&1 | tail -40
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1 ;;
    selftest)
      "$eco" selftest --markdown "$out/h200-selftest.md" --json "$out/h200-selftest.json" 2>&1 | tail -40 || status=1 ;;
    smoke)
      "$eco" synth --arch qwen2-0.5b --type f16 -o "$models/qwen2-0.5b-f16.gguf" &&
      "$eco" measure -m "$models/qwen2-0.5b-f16.gguf" -p Q8_0,Q4_K_M -k 2 --warmups 1 --min-window 3 \
        --min-prefill-window 1 --idle-window 3 --cache-dir "$cache" -o /tmp/eco/smoke --no-progress --output md \
        > /tmp/eco/smoke.out 2> /tmp/eco/smoke.err; echo "smoke exit $?"; tail -25 /tmp/eco/smoke.err; cat /tmp/eco/smoke.out
      cp /tmp/eco/smoke.out /tmp/eco/smoke.err /tmp/eco/smoke/ 2>/dev/null; pack smoke /tmp/eco/smoke ;;
    synth8b)
      [ -f "$models/llama3-8b-f16.gguf" ] || { time "$eco" synth --arch llama3-8b --type f16 -o "$models/llama3-8b-f16.gguf"; } 2>&1 | tail -5
      for t in Q8_0 Q4_K_M Q4_0; do
        { time "$eco" quantize -m "$models/llama3-8b-f16.gguf" --type "$t" --cache-dir "$cache" ; } 2>&1 | tail -4
      done ;;
    measure8b)
      mkdir -p /tmp/eco/session
      timeout -s TERM "$(step_limit "${MEASURE_TIMEOUT:-540}")" "$eco" measure -m "$models/llama3-8b-f16.gguf" -p Q8_0,Q4_K_M,Q4_0 -k 3 \
        --min-prefill-window "${PREFILL_WINDOW:-5}" --cache-dir "$cache" -o /tmp/eco/session --no-progress --output md \
        > /tmp/eco/session/stdout.md 2> /tmp/eco/session/stderr.log
      echo "measure exit $?"; tail -30 /tmp/eco/session/stderr.log; cat /tmp/eco/session/stdout.md
      pack session /tmp/eco/session ;;
    bench8b)
      [ -x /tmp/eco/bundle/bin/decode_loop_bench ] || { echo "bench8b: the bundle was packed with BUNDLE_TESTS=0"; status=2; continue; }
      for t in F16 Q4_K_M; do
        f="$models/llama3-8b-f16.gguf"; [ "$t" = F16 ] || f=$(ls "$cache"/*/"$t".gguf | head -1)
        echo "--- $t $f"
        ECOCOMPUTE_BENCH_MODEL="$f" /tmp/eco/bundle/bin/decode_loop_bench --benchmark_format=console 2>&1 | tail -12
      done 2>&1 | tee "$out/decode_loop_bench.txt" ;;
    campaign:*)
      arch=${step#campaign:}
      f16=$(synth_f16 "$arch")
      measure_into "/tmp/eco/campaign-$arch" "${MEASURE_TIMEOUT:-480}" -m "$f16" \
        -p "${CAMPAIGN_FORMATS:-Q8_0,Q6_K,Q4_K_M,IQ4_NL,Q4_0}" -k "${CAMPAIGN_K:-3}" --edges "${CAMPAIGN_EDGES:-corrected}" \
        --min-window "${CAMPAIGN_WINDOW:-3}" --min-prefill-window "${CAMPAIGN_PREFILL:-2}" --idle-window 10 ${CAMPAIGN_ARGS-}
      pack "campaign-$arch" "/tmp/eco/campaign-$arch" ;;
    prequantize:*)
      # The quantizations a later call's campaign needs, done at the end of this one (at 14 B a k-quant takes
      # minutes of the host CPU); formats $PREQUANTIZE_FORMATS, each inside what SESSION_SECONDS leaves.
      arch=${step#prequantize:}
      f16=$(synth_f16 "$arch")
      for t in $(echo "${PREQUANTIZE_FORMATS:?set PREQUANTIZE_FORMATS}" | tr , ' '); do
        if (( $(seconds_left) < 60 )); then echo "prequantize: $t skipped, less than 60 s left"; status=1; break; fi
        { time timeout -s TERM "$(step_limit 1200)" "$eco" quantize -m "$f16" --type "$t" --cache-dir "$cache"; } 2>&1 | tail -4
        echo "prequantize $t exit ${PIPESTATUS[0]} $(stamp)"
      done
      clean_unfinished  # a quantization cut by the limit leaves its temporary file
      ls -l "$cache"/*/ ; df -h "$models" | tail -1 ;;
    evict:*)
      # Disk room (64 GiB on the lent machine): removes the cached files of the types named (evict:Q8_0,Q4_0).
      for t in $(echo "${step#evict:}" | tr , ' '); do rm -fv "$cache"/*/"$t".gguf; done
      df -h "$models" | tail -1 ;;
    drop:*)
      rm -fv "$models/${step#drop:}-f16.gguf"; df -h "$models" | tail -1 ;;
    quantize:*)
      arch=${step#quantize:}
      f16=$(synth_f16 "$arch")
      { time timeout -s TERM "$(step_limit 1200)" "$eco" quantize -m "$f16" --type "${QUANTIZE_FORMATS:-$atlas_formats}" \
          --cache-dir "$cache"; } 2>&1 | tail -8
      clean_unfinished
      df -h "$models" | tail -1 ;;
    quantize-bg:*)
      arch=${step#quantize-bg:}
      f16=$(synth_f16 "$arch")
      setsid nohup "$eco" quantize -m "$f16" --type "${QUANTIZE_FORMATS:-$atlas_formats}" --cache-dir "$cache" \
        > "$models/quantize-bg.log" 2>&1 < /dev/null &
      echo $! > "$models/quantize-bg.pid"; echo "quantize-bg: pid $(cat "$models/quantize-bg.pid")" ;;
    wait-quantize)
      pid=$(cat "$models/quantize-bg.pid" 2>/dev/null)
      while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && (( $(seconds_left) > 60 )); do sleep 2; done
      if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "wait-quantize: still running"; status=1; fi
      tail -8 "$models/quantize-bg.log"; df -h "$models" | tail -1 ;;
    atlas:*)
      arch=${step#atlas:}
      f16=$(synth_f16 "$arch")
      dir="/tmp/eco/atlas-$arch${ATLAS_TAG-}"
      measure_into "$dir" "${MEASURE_TIMEOUT:-560}" -m "$f16" -p "${ATLAS_FORMATS:-$atlas_formats}" \
        --batch "${ATLAS_BATCHES:-1,2,4,8,16,32,64}" -k "${ATLAS_K:-3}" --edges corrected \
        --min-window "${ATLAS_WINDOW:-1}" --min-prefill-window "${ATLAS_PREFILL:-0.3}" --idle-window 10 \
        --iterations 1 --warmups 1 --trial-warmup change --token-choice device --prefill-windows first-batch ${ATLAS_ARGS-}
      nvidia-smi --query-gpu=uuid,name,power.limit,clocks.max.sm,temperature.gpu --format=csv > "$dir/gpu.csv"
      pack "atlas-$arch${ATLAS_TAG-}" "$dir" ;;
    profile:*)
      arch=${step#profile:}
      dir=/tmp/eco/profile-$arch; layers=${PROFILE_LAYERS:-2}
      rm -rf "$dir"; mkdir -p "$dir"
      small="$models/$arch-l$layers-f16.gguf"
      [ -f "$small" ] || "$eco" synth --arch "$arch" --layers "$layers" --type f16 -o "$small" 2>&1 | tail -2
      "$eco" quantize -m "$small" --type "${PROFILE_FORMATS:-$atlas_formats}" --cache-dir "$cache" > "$dir/files.tsv"
      ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      [ -n "$ncu" ] || { echo "profile: no ncu"; status=2; continue; }
      "$ncu" --version | tail -1 | tee "$dir/ncu-version.txt"
      files=$(cut -f1 "$dir/files.tsv")
      [ "${PROFILE_F16:-1}" = 0 ] || files="$small $files"
      for file in $files; do
        type=$("$eco" inspect "$file" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['gguf_type'])")
        for b in $(echo "${PROFILE_BATCHES:-1,2,4,8,16,32,64}" | tr , ' '); do
          if (( $(seconds_left) < 45 )); then echo "profile: stopped, less than 45 s left"; status=1; break 2; fi
          timeout -s TERM "$(step_limit 120)" "$ncu" --profile-from-start off --clock-control none --csv --page raw \
            --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
            /tmp/eco/bundle/bin/decode_profile "$file" "$b" 1 32 > "$dir/$type-b$b.csv" 2> "$dir/$type-b$b.log"
          echo "$type b$b exit $? $(grep -c '^"' "$dir/$type-b$b.csv") rows $(tail -1 "$dir/$type-b$b.log" | cut -c1-120)"
        done
      done
      pack "profile-$arch" "$dir" ;;
    batch:*)
      arch=${step#batch:}
      f16=$(synth_f16 "$arch")
      measure_into "/tmp/eco/batch-$arch" "${MEASURE_TIMEOUT:-480}" -m "$f16" -p "${BATCH_FORMATS:-Q8_0,Q4_K_M}" \
        --batch "${BATCHES:-1,4,16,64}" -k 3 --edges corrected --min-window 3 --min-prefill-window 2 --idle-window 10 \
        --iterations "${BATCH_ITERATIONS:-10}"
      pack "batch-$arch" "/tmp/eco/batch-$arch" ;;
    fixture)
      measure_into /tmp/eco/fixture "${MEASURE_TIMEOUT:-480}" -m "$root/data/fixture/fixture-kjv-f16.gguf" \
        -p "${FIXTURE_FORMATS:-Q8_0,Q4_K_M,Q4_0}" -k "${FIXTURE_K:-3}" --edges corrected --min-window "${FIXTURE_WINDOW:-3}" \
        --min-prefill-window 2 --idle-window 10
      pack fixture /tmp/eco/fixture ;;
    pair)
      a=$(gpu_uuid 1); b=$(gpu_uuid 2); dir=/tmp/eco/pair
      [ -n "$b" ] || { echo "pair: needs two GPUs"; status=2; continue; }
      rm -rf "$dir"; mkdir -p "$dir"
      plan() {  # plan GPUS…: the same jobs, on the GPUs named
        local models="" gpus="" i
        for i in $(seq 1 "${PAIR_JOBS:-4}"); do models+="${models:+, }{\"synth\": \"${PAIR_ARCH:-qwen2-0.5b}\", \"seed\": $i}"; done
        for i in "$@"; do gpus+="${gpus:+, }\"$i\""; done
        printf '{"name": "pair", "models": [%s], "precisions": ["Q8_0", "Q4_0"], "trials": 2, "warmups": 1, "quality": false,
  "window": {"min_s": 3, "min_prefill_s": 1, "idle_s": 5, "edges": "corrected"}, "gpus": [%s]}\n' "$models" "$gpus"
      }
      plan "$a" > "$dir/plan-a.json"; plan "$b" > "$dir/plan-b.json"; plan "$a" "$b" > "$dir/plan-ab.json"
      nvidia-smi -L > "$dir/gpus.txt"
      "$eco" meter --gpus "$a,$b" --json -- sleep "${PAIR_IDLE:-20}" > "$dir/idle.json"; echo "idle exit $? $(stamp)"
      for run in a b ab; do
        start=$(date +%s%N)
        timeout -s TERM "$(step_limit "${PAIR_TIMEOUT:-240}")" "$eco" meter --gpus "$a,$b" --json -- \
          "$eco" sweep run "$dir/plan-$run.json" --out "$dir/sweep-$run" > "$dir/meter-$run.json" 2> "$dir/sweep-$run.log"
        rc=$?; end=$(date +%s%N)
        echo "sweep $run exit $rc wall $(( (end - start) / 1000000 )) ms $(stamp)" | tee -a "$dir/wall.txt"
        "$eco" sweep status "$dir/sweep-$run" | tail -4
      done
      python3 - "$dir" <<'PY' | tee "$dir/attribution.md"
import json, sys
d = sys.argv[1]
def gpus(name):
    w = json.load(open(f"{d}/{name}.json"))["windows"][0]
    return w["duration_s"], [(g["device"], g["energy_j"]) for g in w["per_gpu"]]
t0, idle = gpus("idle")
p_idle = [e / t0 for _, e in idle]
print("| run | s | GPU | energy J | idle-power J | above idle J | share of the loaded GPU's energy |")
print("|---|---|---|---|---|---|---|")
for run, loaded in (("a", 0), ("b", 1), ("ab", None)):
    t, parts = gpus(f"meter-{run}")
    for i, (dev, e) in enumerate(parts):
        share = "" if loaded is None or i == loaded else f"{100 * (e - p_idle[i] * t) / parts[loaded][1]:+.3f} %"
        print(f"| {run} | {t:.1f} | {dev[dev.find('GPU-'):][:12]} | {e:.1f} | {p_idle[i] * t:.1f} | {e - p_idle[i] * t:.1f} | {share} |")
PY
      # The sweeps' quantization caches are gigabytes: the reports, journals and logs travel.
      tar -czf "$out/pair.tar.gz" -C "$dir" --exclude='*/cache' --exclude='*/models' --exclude='*.gguf' . ;;
    split:*)
      arch=${step#split:}
      f16=$(synth_f16 "$arch")
      n=${SPLIT_GPUS:-2}; a=$(gpu_uuid 1)
      list=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -n "$n" | tr -d ' ' | paste -sd,)
      if (( n < 2 )) || [ "$(echo "$list" | tr , '\n' | grep -c .)" -lt "$n" ]; then
        echo "split: needs $n GPUs (SPLIT_GPUS), this machine has $(echo "$list" | tr , '\n' | grep -c .)"; status=2; continue
      fi
      batches=(); [ -z "${SPLIT_BATCHES-}" ] || batches=(--batch "$SPLIT_BATCHES")
      for mode in $(echo "${SPLIT_MODES:-single,layer,tensor,row}" | tr , ' '); do
        if [ "$mode" = single ]; then where=(--gpu "$a"); else where=(--gpus "$list" --split-mode "$mode"); fi
        measure_into "/tmp/eco/split-$arch${SPLIT_TAG-}/$mode" "${MEASURE_TIMEOUT:-200}" -m "$f16" -p "${SPLIT_FORMATS:-Q4_K_M}" \
          "${where[@]}" "${batches[@]}" -k "${SPLIT_K:-3}" --edges corrected --min-window 3 --min-prefill-window 1 \
          --idle-window 5 ${SPLIT_ARGS-}
      done
      pack "split-$arch${SPLIT_TAG-}" "/tmp/eco/split-$arch${SPLIT_TAG-}" ;;
    serve:*)
      arch=${step#serve:}
      serve_files "$arch"
      dir=/tmp/eco/serve-$arch${SERVE_TAG-}; slots=${SERVE_SLOTS:-per-level}
      rm -rf "$dir"; mkdir -p "$dir"
      params=$("$eco" synth --list | awk -v a="$arch" '$1 == a {printf "%.3f", $NF / 1e9}')
      # The servers' aliases are the formats; the reports name the model measured.
      model_name="synthetic $("$eco" synth --list | awk -v a="$arch" '$1 == a {print $2}') shape"
      export SERVE_DIR=$dir SERVE_GPU=$(gpu_uuid 1) SERVE_BIN=/tmp/eco/bundle/bin/llama-server \
        SERVE_SPECS="F16 $f16 8081;$q $qf 8082" SERVE_ARGS=${SERVE_ARGS-}
      sized=(); ready=yes
      if [ "$slots" = per-level ]; then
        sized=(--level-cmd "bash $root/scripts/device/serve_level.sh {concurrency}")
      else
        bash "$root/scripts/device/serve_level.sh" "$slots"
        wait_ready 8081 && wait_ready 8082 || { echo "serve: a server did not answer"; tail -20 "$dir"/server-*.log; status=1; ready=; }
      fi
      echo "serving from $(stamp), slots $slots"
      if [ -n "$ready" ]; then
        timeout -s TERM "$(step_limit "${MEASURE_TIMEOUT:-420}")" "$eco" measure-endpoint --gpu "$SERVE_GPU" \
          --endpoint "F16=http://127.0.0.1:8081/v1#F16" --endpoint "$q=http://127.0.0.1:8082/v1#$q" \
          --concurrency "${SERVE_LEVELS:-1,2,4,8,16,32,64}" -k "${SERVE_K:-3}" --n-requests "${SERVE_REQUESTS:-24}" \
          --requests-per-stream "${SERVE_PER_STREAM:-4}" \
          --output-tokens "${SERVE_OUTPUT:-64-128}" --params-b "$params" --ready-timeout 300 "${sized[@]}" \
          --server-engine llama-server --model-name "$model_name" ${SERVE_SWEEP_ARGS-} \
          -o "$dir/sweep" > "$dir/stdout.md" 2> "$dir/stderr.log"
        echo "measure-endpoint exit $? $(stamp)"; grep -E "warning|error" "$dir/stderr.log" | tail -8; cat "$dir/stdout.md"
      fi
      stop_servers "$dir"
      pack "serve-$arch${SERVE_TAG-}" "$dir" ;;
    proxy:*)
      arch=${step#proxy:}
      serve_files "$arch"
      dir=/tmp/eco/proxy-$arch; rm -rf "$dir"; mkdir -p "$dir"
      gpu=$(gpu_uuid 1)
      export SERVE_DIR=$dir SERVE_GPU=$gpu SERVE_BIN=/tmp/eco/bundle/bin/llama-server SERVE_SPECS="$q $qf 8082" \
        SERVE_ARGS=${SERVE_ARGS-}
      bash "$root/scripts/device/serve_level.sh" 16
      wait_ready 8082 || { echo "proxy: the server did not answer"; tail -20 "$dir"/server-*.log; status=1; }
      "$eco" proxy --upstream http://127.0.0.1:8082 --listen 127.0.0.1:0 --port-file "$dir/proxy.port" --gpus "$gpu" \
        > "$dir/proxy-stdout.log" 2> "$dir/proxy.log" &
      proxy_pid=$!
      for _ in $(seq 1 50); do [ -s "$dir/proxy.port" ] && break; sleep 0.1; done
      purl=http://127.0.0.1:$(cat "$dir/proxy.port" 2>/dev/null)
      echo "proxy $purl from $(stamp)"
      load="python3 $root/scripts/device/proxy_load.py"
      for c in $(echo "${PROXY_LEVELS:-1,16}" | tr , ' '); do
        n=$(( c * ${PROXY_REQUESTS_PER_STREAM:-8} )); (( n < 24 )) && n=24
        sleep 5  # an idle stretch before each load, inside neither window
        timeout -s TERM "$(step_limit 240)" "$eco" meter --gpu "$gpu" --allow-shared --json -- $load meter --url "$purl" \
          --model "$q" --concurrency "$c" --requests "$n" --unstreamed 0.25 --out "$dir/meter-load-c$c.json" \
          > "$dir/meter-c$c.json" 2> "$dir/meter-c$c.log"
        echo "meter c$c exit $? $(stamp)"; tail -3 "$dir/meter-c$c.log"
      done
      streams=${PROXY_STREAMS:-256}
      (( streams > 0 )) && bash "$root/scripts/device/serve_level.sh" "$streams"
      if (( streams > 0 )) && wait_ready 8082; then
        timeout -s TERM "$(step_limit 300)" $load latency --url "$purl" --url http://127.0.0.1:8082 --model "$q" \
          --concurrency "$streams" --requests "$streams" --rounds "${PROXY_ROUNDS:-2}" --out "$dir/latency.json" \
          2> "$dir/latency.log"
        echo "latency exit $? $(stamp)"; cat "$dir/latency.log"
      fi
      python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('$purl/metrics').read().decode())" > "$dir/proxy-metrics-end.txt"
      kill -TERM "$proxy_pid" 2>/dev/null; wait "$proxy_pid"; echo "proxy exit $?"
      stop_servers "$dir"
      rm -f "$dir"/server-*.pid
      pack "proxy-$arch" "$dir" ;;
    proxy-bench)
      # The proxy's cost to a server's clients on this machine's cores, beside the card whose NVML the
      # proxy's counter poller reads (bench/proxy_overhead_bench.cpp; bench/RESULTS.md).
      bench=/tmp/eco/bundle/bin/proxy_overhead_bench
      [ -x "$bench" ] || { echo "proxy-bench: the bundle was packed without BUNDLE_PROXY_BENCH=1"; status=2; continue; }
      nproc > "$out/proxy-bench-cores.txt"
      timeout -s TERM "$(step_limit 300)" "$bench" --benchmark_filter="${PROXY_BENCH_FILTER:-pace_ms:20}" \
        --benchmark_repetitions="${PROXY_BENCH_REPETITIONS:-2}" --benchmark_out="$out/proxy-bench.json" \
        --benchmark_out_format=json 2>&1 | tee "$out/proxy-bench.txt" | tail -12
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1 ;;
    engines:*)
      arch=${step#engines:}
      f16=$(synth_f16 "$arch")
      cfg="$models/$arch-config.json"
      "$eco" synth --arch "$arch" --hf-config "$cfg"
      python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
      py="python3 $root/contrib/transformers_example.py --config $cfg"
      measure_into "/tmp/eco/engines-$arch/transformers" "${HF_TIMEOUT:-300}" --engine command \
        --baseline-command "FP16=$py --precision fp16" --candidate-command "BF16=$py --precision bf16" \
        --tokens 128 --iterations 1 -k 3 --edges corrected --min-window 3 --min-prefill-window 2 --idle-window 10
      measure_into "/tmp/eco/engines-$arch/llama.cpp" "${MEASURE_TIMEOUT:-240}" -m "$f16" -p "${ENGINES_FORMATS:-Q4_K_M}" \
        --tokens 128 -k 3 --edges corrected --min-window 3 --min-prefill-window 2 --idle-window 10
      cp "$cfg" "/tmp/eco/engines-$arch/"
      pack "engines-$arch" "/tmp/eco/engines-$arch" ;;
    bandwidth)
      python3 "$root/scripts/device/copy_bandwidth.py" | tee "$out/bandwidth.json" || status=1 ;;
    edges:*)
      arch=${step#edges:}
      f16=$(synth_f16 "$arch")
      formats=${EDGES_FORMATS:-Q8_0,Q4_0}
      measure_into "/tmp/eco/edges-$arch/long" "${LONG_TIMEOUT:-330}" -m "$f16" -p "$formats" -k 3 --edges counter \
        --min-window 20 --min-prefill-window 3 --idle-window 10
      measure_into "/tmp/eco/edges-$arch/fast" "${FAST_TIMEOUT:-200}" -m "$f16" -p "$formats" -k 3 --edges corrected \
        --min-window 3 --min-prefill-window 3 --idle-window 10
      pack "edges-$arch" "/tmp/eco/edges-$arch" ;;
    *) echo "session.sh: unknown step $step" >&2; status=2 ;;
  esac
done
echo "=== done $(stamp)"
exit $status
