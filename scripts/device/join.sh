#!/usr/bin/env bash
# Here: puts back a file cut by split.sh and checks its sha256. Usage: join.sh FOLDER NAME DEST
# (e.g. join.sh <files_at of the run> llama-cuda.txz .device/llama-cuda.txz). Exit 1 on a mismatch.
set -euo pipefail
folder=${1:?usage: join.sh FOLDER NAME DEST}
name=${2:?usage: join.sh FOLDER NAME DEST}
dest=${3:?usage: join.sh FOLDER NAME DEST}
parts=("$folder/$name".part*)
[ -e "${parts[0]}" ] || { echo "join: no parts $folder/$name.part*" >&2; exit 1; }
mkdir -p "$(dirname "$dest")"
cat "${parts[@]}" > "$dest.tmp"
expected=$(awk '{print $1}' "$folder/$name.sha256")
actual=$(sha256sum "$dest.tmp" | awk '{print $1}')
if [ "$expected" != "$actual" ]; then
  rm -f "$dest.tmp"
  echo "join: sha256 of $name is $actual, expected $expected" >&2
  exit 1
fi
mv "$dest.tmp" "$dest"
echo "join: $dest (${#parts[@]} parts, sha256 $actual)"
