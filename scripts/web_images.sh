#!/usr/bin/env bash
# Redraws the web UI's screenshots in docs/img (landing.png, crossover-batch-1.png, crossover-batch-8.png,
# tested-models.png, optimize.png) by running the browser test with ECOCOMPUTE_DOCS_IMG set: each picture
# is taken by the check that asserts what it shows, so a picture never shows a page the test failed.
# Needs node, npm, chromium (scripts/install_deps.sh) and a built binary.
# Usage: scripts/web_images.sh [ECOCOMPUTE_BINARY]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-${ECOCOMPUTE_BUILD_DIR:-$root/build}/bin/ecocompute}
(cd "$root/web" && npm ci --no-audit --no-fund --prefer-offline >/dev/null && npm run build)
(cd "$root/tests/browser" && npm ci --no-audit --no-fund --prefer-offline >/dev/null)
artefacts=$(mktemp -d)
trap 'rm -rf "$artefacts"' EXIT
ECOCOMPUTE_DOCS_IMG="$root/docs/img" CHROMIUM_PATH=${CHROMIUM_PATH:-/usr/bin/chromium} \
  node "$root/tests/browser/web_ui_test.mjs" "$bin" "$root/web/dist" \
  "$root/tests/unit/server/fixtures/rtx4090_qwen2.5-3b_nf4.energy.json" "$artefacts" \
  "$root/data/sessions/h200-2026-11-29-llama3-8b-synthetic/energy-Q4_0.json"
ls -l "$root/docs/img"
