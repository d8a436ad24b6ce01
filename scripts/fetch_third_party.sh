#!/usr/bin/env bash
# Fetches llama.cpp at a pinned commit into third_party/llama.cpp (ignored by git).
#
# There is no route to GitHub from our build machines; the npm package node-llama-cpp ships the full
# llama.cpp source as a git bundle, so we take it from the npm registry, verify the tarball's sha256,
# clone the bundle, check out the pinned commit and apply the loader fix the package ships.
set -euo pipefail

NODE_LLAMA_CPP_VERSION=3.21.1
TARBALL_SHA256=7a231d6bafa14142a1cbed9893d4ec5bc6041b2a5f5939a623accaab4203c11f
LLAMA_COMMIT=80fb11ac73e66d89eae2c6a91d8a77428fa733ed
PATCH=PR-22566.diff

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party"
src="$dest/llama.cpp"
stamp="$src/.ecocompute-fetched"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$LLAMA_COMMIT+$PATCH" ]; then
  echo "llama.cpp $LLAMA_COMMIT already fetched in $src"
  exit 0
fi

mkdir -p "$dest/download"
tarball="$dest/download/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz"
if [ ! -f "$tarball" ]; then
  (cd "$dest/download" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null)
fi
echo "$TARBALL_SHA256  $tarball" | sha256sum --check --status || {
  echo "fetch_third_party: checksum mismatch for $tarball (expected $TARBALL_SHA256)" >&2
  rm -f "$tarball"
  exit 1
}

unpack="$dest/download/unpacked"
rm -rf "$unpack" "$src"
mkdir -p "$unpack"
tar -xzf "$tarball" -C "$unpack" package/llama/gitRelease.bundle "package/llama/patches/$PATCH"
git clone --quiet "$unpack/package/llama/gitRelease.bundle" "$src"
git -C "$src" -c advice.detachedHead=false checkout --quiet "$LLAMA_COMMIT"
git -C "$src" apply "$unpack/package/llama/patches/$PATCH"
rm -rf "$unpack"
echo "$LLAMA_COMMIT+$PATCH" > "$stamp"
echo "llama.cpp $LLAMA_COMMIT (+$PATCH) fetched into $src"
