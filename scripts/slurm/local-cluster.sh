#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, for testing the scripts beside this one on a
# machine without Slurm (CI does this; see docs/cluster.md):
#
#   scripts/slurm/local-cluster.sh start    # prints the SLURM_CONF line to export
#   scripts/slurm/local-cluster.sh stop     # stops every daemon that start started
#   scripts/slurm/local-cluster.sh install  # only installs the packages (start does too)
#
# Needs root: it installs Debian's Slurm and MUNGE packages when they are missing, and
# runs slurmctld and slurmd as root. State, spool, logs and the configuration live in
# $LMBIAS_SLURM_DIR (default: ${TMPDIR:-/tmp}/lmbias-slurm). A munged that is already
# running is used and left running; one that start launched is stopped by stop.
set -euo pipefail

dir=${LMBIAS_SLURM_DIR:-${TMPDIR:-/tmp}/lmbias-slurm}
conf=$dir/slurm.conf

log() { echo "local-cluster: $*" >&2; }

# Stops the daemon whose PID file is $1 and waits (bounded) for it to exit.
stop_pid() {
  local file=$1 pid
  [[ -s $file ]] || return 0
  pid=$(<"$file")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

install_packages() {
  local missing=()
  command -v munged >/dev/null || missing+=(munge)
  command -v slurmctld >/dev/null || missing+=(slurmctld)
  command -v slurmd >/dev/null || missing+=(slurmd)
  command -v sbatch >/dev/null || missing+=(slurm-client)
  ((${#missing[@]} == 0)) && return 0
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

start_munge() {
  # The package creates the key; services do not start on install in containers.
  if munge -n </dev/null >/dev/null 2>&1; then
    log "munged already running: using it"
    return 0
  fi
  install -d -o munge -g munge -m 0755 /run/munge
  runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
  cp /run/munge/munged.pid "$dir/munged.pid"
  for _ in $(seq 50); do
    munge -n </dev/null >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  log "munged did not come up"
  return 1
}

write_conf() {
  local cpus mem host
  cpus=$(nproc)
  # What slurmd -C reports, less a little for the daemons themselves.
  mem=$(($(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) - 512))
  host=$(hostname -s)
  mkdir -p "$dir/state" "$dir/spool"
  cat >"$conf" <<EOF
# Written by scripts/slurm/local-cluster.sh: a one-node cluster for tests.
ClusterName=lmbias-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups here (the freezer controller is not mounted).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
# Else every job waits about 3 s before it is scheduled.
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# A job that names no memory gets 1 GB a core, not the whole node.
DefMemPerCPU=1024
# No accounting database (sacct does not work): finished jobs stay visible to
# scontrol for 10 minutes.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  if [[ -s $dir/slurmctld.pid ]] && kill -0 "$(<"$dir/slurmctld.pid")" 2>/dev/null; then
    log "already running ($conf)"
    echo "export SLURM_CONF=$conf"
    return 0
  fi
  install_packages
  mkdir -p "$dir"
  start_munge
  write_conf
  # -i: start with a clean state (no jobs from an earlier cluster in this folder).
  slurmctld -f "$conf" -i
  slurmd -f "$conf" -N localhost
  export SLURM_CONF=$conf
  # Ready when the node takes jobs (bounded: 30 s).
  local state=
  for _ in $(seq 150); do
    state=$(sinfo -h -n localhost -o %t 2>/dev/null || true)
    [[ $state == idle ]] && break
    sleep 0.2
  done
  if [[ $state != idle ]]; then
    log "the node did not become idle (state: '${state:-none}'); logs in $dir"
    stop
    return 1
  fi
  log "up: one node, $(nproc) CPUs; logs in $dir"
  echo "export SLURM_CONF=$conf"
}

stop() {
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  # Only a munged that start launched.
  stop_pid "$dir/munged.pid"
  log "stopped"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  install) install_packages ;;
  *)
    sed -n '2,11p' "$0" >&2
    exit 2
    ;;
esac
