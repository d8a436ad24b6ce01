#!/usr/bin/env bash
# The readers of reports (the server and MCP modules, each in its unit-test executable) must not link
# llama.cpp; the measuring binary must. Usage: readers_link_no_llama.sh ECOCOMPUTE_BINARY READER...
set -euo pipefail
binary=$1; shift
if ! ldd "$binary" | grep -Eq 'lib(llama|ggml)'; then
  echo "FAIL: $binary does not link libllama/libggml, so this check cannot see them" >&2; exit 1
fi
status=0
for reader in "$@"; do
  if linked=$(ldd "$reader" | grep -E 'lib(llama|ggml)'); then
    echo "FAIL: $(basename "$reader") links llama.cpp:" >&2; echo "$linked" >&2; status=1
  else
    echo "ok: $(basename "$reader") links no libllama/libggml"
  fi
done
exit $status
