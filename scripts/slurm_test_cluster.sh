#!/usr/bin/env bash
# A single-node Slurm cluster for the tests (Debian slurmctld + slurmd + munge, scripts/install_deps.sh),
# private to one folder: its own munge socket and key, state, spool, logs and ports. Needs root.
#
#   scripts/slurm_test_cluster.sh start DIR   # prints "export SLURM_CONF=DIR/slurm.conf" once the node is idle
#   scripts/slurm_test_cluster.sh stop DIR    # stops the daemons it started (by their pid files)
#
# Exit 77 (skip) when Slurm or munge is not installed or this is not root.
set -euo pipefail
command=${1:?usage: slurm_test_cluster.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: slurm_test_cluster.sh start|stop DIR}")

stop() {
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$pidfile"
  done
}

if [ "$command" = stop ]; then stop; exit 0; fi
[ "$command" = start ] || { echo "slurm_test_cluster.sh: unknown command $command" >&2; exit 2; }
for tool in munged slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null || { echo "slurm_test_cluster.sh: $tool is not installed" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurm_test_cluster.sh: the daemons need root" >&2; exit 77; }

mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
head -c 128 /dev/urandom > "$dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"

# Ports from the folder's name, so that two clusters of parallel test runs do not meet, and below the
# kernel's range for outgoing connections' own ports (ip_local_port_range, 32768-60999 by default): a port
# there can be held by any client socket of another test, and slurmctld then dies on "Address already in
# use" (seen 2026-12-07 at 49136, with the wait below then taking the test's whole limit).
low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
[ "$low" -gt 12002 ] || low=32768
port=$((10000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % ((low - 10002) / 2) * 2))
host=$(hostname)
cat > "$dir/slurm.conf" <<CONF
ClusterName=ecocompute-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF"
# A daemon that died (its log says why) ends the wait at once: sinfo against no controller retries for
# minutes, so each look is also bounded.
alive() {
  local pidfile
  for pidfile in "$dir/slurmctld.pid" "$dir/slurmd.pid"; do
    [ -s "$pidfile" ] || { sleep 0.2; [ -s "$pidfile" ] || return 1; }
    kill -0 "$(cat "$pidfile")" 2>/dev/null || return 1
  done
}
for _ in $(seq 100); do
  if timeout 5 sinfo -h -o '%t' 2>/dev/null | grep -q idle; then echo "export SLURM_CONF=$SLURM_CONF"; exit 0; fi
  if ! alive; then
    echo "slurm_test_cluster.sh: a Slurm daemon stopped: $(grep -h -m1 -E 'fatal|error: Error' "$dir"/log/*.log 2>/dev/null || echo "see $dir/log")" >&2
    stop
    exit 1
  fi
  sleep 0.2
done
echo "slurm_test_cluster.sh: the node did not become idle (see $dir/log)" >&2
stop
exit 1
