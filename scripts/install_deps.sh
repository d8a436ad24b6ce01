#!/usr/bin/env bash
# Installs the Debian bookworm packages the build and the tests need (README "Dependencies").
# Does nothing when they are all present; needs root (or sudo) otherwise.
set -euo pipefail
packages=(
  build-essential cmake ninja-build git pkg-config ca-certificates
  nodejs npm                      # npm fetches llama.cpp's source (scripts/fetch_third_party.sh)
  nlohmann-json3-dev libcli11-dev libfmt-dev libssl-dev libsqlite3-dev sqlite3
  libvalijson-dev libcpp-httplib-dev libpq-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libnlopt-dev                    # BOBYQA: the decision model's variance components (src/decide/bounded_search)
  libboost-dev                    # Boost.Math (Student-t quantiles in protocol/statistics); Boost.Beast and Asio (the HTTP server)
  gnuplot-nox
  clang libclang-rt-14-dev        # libFuzzer (fuzz/: the smoke in scripts/test.sh and fuzz/run_fuzz.sh)
  postgresql                      # a real server for the replication store's tests (scripts/start_postgres.sh)
  chromium                        # headless browser for the web UI test (driven by playwright-core from npm)
  debootstrap help2man curl       # the Debian package: man pages from --help, its install test in a clean root (tests/package)
  slurmctld slurmd slurm-client munge   # a single-node Slurm for the sweep's job-array test (scripts/slurm_test_cluster.sh)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm may come from elsewhere than Debian (a NodeSource install, say): keep those.
if command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]}"
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install_deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
