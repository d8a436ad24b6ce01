#!/usr/bin/env bash
# install_test.sh DEB: installs the Debian package with `apt install ./….deb` in a clean Debian bookworm
# root (debootstrap --variant=minbase, chroot) and runs it from the installed paths only: `info`,
# `estimate` against the shipped data, man pages, the systemd unit, and `serve` answering /healthz,
# /v1/estimate and the web UI. Needs root, debootstrap and the Debian mirror (scripts/install_deps.sh).
# Each failed check prints what it expected and exits 1.
set -euo pipefail
deb=$(readlink -f "$1")
[ -f "$deb" ] || { echo "install_test: no package at $1 (build the package_deb target)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "install_test: needs root (debootstrap, chroot)"; exit 1; }
command -v debootstrap >/dev/null || { echo "install_test: debootstrap missing (scripts/install_deps.sh)"; exit 1; }
# The mirror this machine's apt uses, else Debian's.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /var/tmp/ecocompute-root.XXXXXX)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  umount "$root/proc" "$root/dev" 2>/dev/null || true
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
fail() { echo "install_test: FAIL: $*"; exit 1; }
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

echo "install_test: debootstrap bookworm from $mirror into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log"; fail "debootstrap"; }
rm -f "$root.debootstrap.log"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp "$deb" "$root/tmp/"
in_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" > /dev/null ||
  fail "apt install ./$(basename "$deb") in a clean root"

info=$(in_root ecocompute info) || fail "ecocompute info exited $?"
grep -q "^ecocompute " <<<"$info" || fail "info prints no version line: $info"
# The shipped data are found under /usr/share/ecocompute without any variable set.
# 8.030261248 B: the measured Llama-3-8B shape (the decision model answers "measured" at a measured size
# only; 8 B is read between the measured sizes, "interpolated").
answer=$(in_root ecocompute estimate -N 8.030261248 -g H200 -p Q4_K_M -e llama.cpp --json) || fail "estimate exited $?"
grep -q '"basis"' <<<"$answer" || fail "estimate --json has no basis: ${answer:0:400}"
grep -q '"basis": *"measured"' <<<"$answer" || fail "8.03 B Q4_K_M on H200 is measured in the shipped sessions, the installed estimate says otherwise: ${answer:0:400}"
for page in ecocompute ecocompute-measure ecocompute-serve; do
  [ -f "$root/usr/share/man/man1/$page.1.gz" ] || fail "man page $page(1) not installed"
done
grep -q "^ExecStart=/usr/bin/ecocompute serve" "$root/lib/systemd/system/ecocompute.service" || fail "systemd unit missing or without ExecStart"
[ -f "$root/usr/share/ecocompute/web/dist/index.html" ] || fail "web UI not installed"

# Started without the in_root function: a function run in the background is a subshell, and $! was that
# subshell, so the cleanup's kill left the server running after the test (found listening on 2026-12-07).
# chroot and env exec what they run, so $! is the server itself.
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  ecocompute serve --port 0 --port-file /tmp/port --db /tmp/replications.sqlite > "$root/tmp/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do [ -s "$root/tmp/port" ] && break; sleep 0.2; done
[ -s "$root/tmp/port" ] || { cat "$root/tmp/serve.log"; fail "serve wrote no port file"; }
port=$(cat "$root/tmp/port")
curl -fsS "http://127.0.0.1:$port/healthz" > /dev/null || fail "/healthz"
# Whole answers first, then the checks (grep -q stopping early would make curl fail under pipefail).
api=$(curl -fsS "http://127.0.0.1:$port/v1/estimate?params_b=8&gpu=H200&precision=Q4_K_M&engine=llama.cpp") ||
  fail "/v1/estimate from the installed server"
grep -q '"delta_pct"' <<<"$api" || fail "/v1/estimate answer without delta_pct: ${api:0:400}"
page=$(curl -fsS "http://127.0.0.1:$port/") || fail "GET / from the installed server"
grep -qi "<title>" <<<"$page" || fail "the web UI from /usr/share/ecocompute/web/dist: ${page:0:200}"
echo "install_test: the package installs in a clean bookworm root; info, estimate, man pages, unit and serve work from the installed paths"
