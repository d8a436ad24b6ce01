#!/usr/bin/env bash
# The readers of reports (the server and MCP modules, each in its unit-test executable) must not link
# llama.cpp; the measuring binary must. Usage: readers_link_no_llama.sh ECOCOMPUTE_BINARY READER...
set -euo pipefail
binary=$1; shift
# ldd's output is read whole: grep -q would close the pipe early and pipefail would read that as failure.
if ! grep -Eq 'lib(llama|ggml)' <<<"$(ldd "$binary")"; then
  echo "FAIL: $binary does not link libllama/libggml, so this check cannot see them" >&2; exit 1
fi
status=0
for reader in "$@"; do
  if linked=$(grep -E 'lib(llama|ggml)' <<<"$(ldd "$reader")"); then
    echo "FAIL: $(basename "$reader") links llama.cpp:" >&2; echo "$linked" >&2; status=1
  else
    echo "ok: $(basename "$reader") links no libllama/libggml"
  fi
done
exit $status
