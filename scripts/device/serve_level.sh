#!/usr/bin/env bash
# Runs on the lent H200, from session.sh's serve step (directly, or as measure-endpoint's --level-cmd):
# (re)starts the step's llama-servers with SLOTS slots of 512 tokens each, so a level of C streams can
# run on a server with one slot per stream (--parallel C). Each old server is stopped and gone before
# its successor binds the port and the GPU memory. Reads from the environment:
#   SERVE_DIR    folder for the logs (appended) and pid files
#   SERVE_GPU    the GPU's UUID
#   SERVE_BIN    llama-server
#   SERVE_SPECS  "LABEL FILE PORT;LABEL FILE PORT…"
#   SERVE_ARGS   more server flags (may be empty)
set -euo pipefail
slots=$1
IFS=';' read -ra specs <<< "$SERVE_SPECS"
for spec in "${specs[@]}"; do
  read -r label file port <<< "$spec"
  pidfile="$SERVE_DIR/server-$label.pid"
  if [ -f "$pidfile" ]; then
    old=$(cat "$pidfile")
    kill "$old" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$old" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$old" 2>/dev/null || true
  fi
  echo "=== serve_level.sh: $slots slots $(date -u +%H:%M:%S)" >> "$SERVE_DIR/server-$label.log"
  # shellcheck disable=SC2086  # SERVE_ARGS is a list of flags
  CUDA_VISIBLE_DEVICES=$SERVE_GPU "$SERVE_BIN" -m "$file" --alias "$label" --host 127.0.0.1 --port "$port" -ngl 999 \
    --parallel "$slots" -c $((slots * 512)) $SERVE_ARGS >> "$SERVE_DIR/server-$label.log" 2>&1 &
  echo $! > "$pidfile"
done
