#!/usr/bin/env bash
# Cuts FILE into parts of at most 15 MiB in FOLDER (FILE.part00, FILE.part01 …) with FILE.sha256, so a
# file larger than the 16 MiB a device run returns per file comes back whole; join.sh reverses it.
# PART_SIZE (split's -b, default 15M) sets the part size, e.g. 21M for parts carried one per call.
# Usage: split.sh FILE FOLDER
set -euo pipefail
file=${1:?usage: split.sh FILE FOLDER}
folder=${2:?usage: split.sh FILE FOLDER}
name=$(basename "$file")
mkdir -p "$folder"
split -b "${PART_SIZE:-15M}" -d -a 2 "$file" "$folder/$name.part"
(cd "$(dirname "$file")" && sha256sum "$name") > "$folder/$name.sha256"
ls -la "$folder"
