#!/usr/bin/env bash
# Regenerates data/corpora/ from Debian bookworm packages: the King James Bible (bible-kjv-text's
# data file, decoded by bible-kjv's `bible` program, both run from an extracted package, nothing
# installed). Ruth and Ecclesiastes are held out as the quality text; every other book is the
# training text of the fixture model. Needs apt-get (for `apt-get download`) and dpkg-deb.
set -euo pipefail

KJV_VERSION=4.38
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/data/corpora"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
apt-get download "bible-kjv=$KJV_VERSION" "bible-kjv-text=$KJV_VERSION" >/dev/null
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
sha256sum ./*.deb | sed 's| \./| |' > debs.sha256

# One verse per line without its number, a "Book N" line before each chapter, blank lines dropped.
bible_text() {
  x/usr/bin/bible -p x/usr/lib -l100000 "$@" | sed -E -e 's/^ +[0-9]+ //' -e '/^$/d'
}

mkdir -p "$out/train" "$out/quality"
bible_text "gen1:1-judg21:25" "1sam1:1-prov31:31" "song1:1-rev22:21" > "$out/train/kjv-train.txt"
bible_text "ruth1:1-ruth4:22" "eccl1:1-eccl12:14" > "$out/quality/kjv-ruth-ecclesiastes.txt"

echo "packages:"
cat debs.sha256
for f in "$out/train/kjv-train.txt" "$out/quality/kjv-ruth-ecclesiastes.txt"; do
  printf '%s  %s bytes  sha256 %s\n' "${f#"$root"/}" "$(wc -c < "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"
done
