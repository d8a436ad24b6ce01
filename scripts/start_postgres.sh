#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests, on a free loopback port in a temporary folder,
# owned by an unprivileged user, and prints the shell lines that export its connection URL:
#
#   eval "$(scripts/start_postgres.sh)"          # exports ECOCOMPUTE_TEST_PG_URL, ECOCOMPUTE_TEST_PG_DIR
#   ...run the tests...
#   scripts/start_postgres.sh stop "$ECOCOMPUTE_TEST_PG_DIR"
#
# Installs Debian's postgresql if no server binaries are found (needs root or sudo). Everything it
# says goes to stderr, so that stdout holds only the export lines.
set -euo pipefail

say() { echo "start_postgres: $*" >&2; }

find_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  return 1
}

as_owner() {  # runs a command as the cluster's owner
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$owner" -- "$@"; else "$@"; fi
}

if [ "${1:-}" = stop ]; then
  dir=${2:?usage: start_postgres.sh stop DIR}
  bindir=$(find_bindir)
  owner=$(stat -c %U "$dir/data")
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi

if ! bindir=$(find_bindir); then
  say "installing postgresql"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >&2
  bindir=$(find_bindir)
fi

# PostgreSQL refuses to run as root: use the package's postgres user, or create a system user.
owner=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  id -u "$owner" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
fi

dir=$(mktemp -d /tmp/ecocompute-pg.XXXXXX)
chmod 755 "$dir"
[ "$(id -u)" -eq 0 ] && chown "$owner" "$dir"
as_owner "$bindir/initdb" -D "$dir/data" -U ecocompute -A trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 \
  || { say "initdb failed:"; cat "$dir/initdb.log" >&2; exit 3; }

started=""
for _ in $(seq 1 20); do
  port=$(( 20000 + RANDOM % 40000 ))
  if as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
       -o "-c listen_addresses=127.0.0.1 -c port=$port -k $dir -c fsync=off -c full_page_writes=off" \
       start >/dev/null 2>&1; then
    started=$port
    break
  fi
done
[ -n "$started" ] || { say "could not start PostgreSQL (see $dir/server.log)"; cat "$dir/server.log" >&2 || true; exit 3; }

"$bindir/psql" -h 127.0.0.1 -p "$started" -U ecocompute -d postgres -qAt \
  -c "CREATE DATABASE ecocompute_test" >/dev/null
say "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$started ($dir)"
echo "export ECOCOMPUTE_TEST_PG_URL='postgresql://ecocompute@127.0.0.1:$started/ecocompute_test'"
echo "export ECOCOMPUTE_TEST_PG_DIR='$dir'"
