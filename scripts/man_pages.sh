#!/usr/bin/env bash
# man_pages.sh BINARY OUTDIR: man pages from --help with help2man: ecocompute(1) and one page per
# subcommand (ecocompute-measure(1), …), so what the manual says is what the binary prints.
set -euo pipefail
bin=$1 out=$2
command -v help2man >/dev/null || { echo "man_pages.sh: help2man is missing (scripts/install_deps.sh installs it)" >&2; exit 3; }
mkdir -p "$out"
rm -f "$out"/*.1 "$out"/*.1.gz
# Defaults that --help prints from the running machine's paths read as the installed package's.
export ECOCOMPUTE_DATA_DIR=/usr/share/ecocompute/data XDG_DATA_HOME='~/.local/share'
version=$("$bin" --version | awk '{print $2}')
wrap=$(mktemp -d)
trap 'rm -rf "$wrap"' EXIT
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name="energy per token of quantized LLM inference, measured, and the decision service built on it" \
  --output="$out/ecocompute.1" "$bin"
# The subcommands as --help lists them: the words indented by two spaces under "Subcommands:". The help
# text is read once: a reader that stops early (awk's exit) would end the binary's write with SIGPIPE,
# which pipefail turns into a silent exit of this script whenever the write was not finished yet.
help=$("$bin" --help)
printf '%s\n' "$help" | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}' | while read -r cmd; do
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$bin" "$cmd" > "$wrap/ecocompute-$cmd"
  chmod +x "$wrap/ecocompute-$cmd"
  summary=$(printf '%s\n' "$help" | awk -v c="$cmd" '$1 == c && !found {$1 = ""; sub(/^ +/, ""); print; found = 1}' | cut -c1-120)
  help2man --no-info --no-discard-stderr --version-string="$version" --name="$summary" \
    --output="$out/ecocompute-$cmd.1" "$wrap/ecocompute-$cmd"
done
# Debian policy: man pages compressed with gzip -9n (no name or time stamp, so the bytes are reproducible).
gzip -9nf "$out"/*.1
