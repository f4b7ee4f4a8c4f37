#!/usr/bin/env bash
# A one-node SLURM on localhost for tests/test_slurm.py (Debian/Ubuntu, root, no systemd needed).
#
#   tests/slurm/start-local-slurm.sh up      install (apt) if needed, configure, (re)start with no jobs
#   tests/slurm/start-local-slurm.sh down    stop the daemons that `up` started (by their pid)
#   tests/slurm/start-local-slurm.sh status  exit 0 when the node accepts jobs
#   tests/slurm/start-local-slurm.sh clean   remove its slurm.conf if its controller is not running
#
# Exit codes of `up`: 0 ready, 3 cannot set up here (not root / no apt-get), 1 anything else.
# No accounting (no slurmdbd): submit with the squeue status command. Cgroup plugins are off so
# it runs in containers and VMs without a cgroup hierarchy. Everything the script creates lives
# under /var/lib/paramid-local-slurm and /run/paramid-local-slurm, plus /etc/slurm/slurm.conf,
# which it writes only when absent or written by itself (marker line) and `down` removes again
# (the job steps' srun reads no other place: Snakemake's jobstep plugin drops SLURM_CONF).
# One test run at a time per machine: `up` restarts the daemons it started, ending any jobs.
set -euo pipefail

MARKER="# written by paramid tests/slurm/start-local-slurm.sh"
STATE=/var/lib/paramid-local-slurm
RUN=/run/paramid-local-slurm
CONF=/etc/slurm/slurm.conf
STARTED="$RUN/started"   # daemons this script started, one "name pidfile" per line
PACKAGES=(slurmctld slurmd slurm-client munge)
WAIT_S=${SLURM_WAIT_S:-60}

log() { echo "start-local-slurm: $*" >&2; }

have_binaries() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
        command -v sbatch >/dev/null && command -v munged >/dev/null
}

node_name() { hostname -s; }

ready() {
    # the node is idle or already running jobs, and sbatch/squeue can reach the controller
    local state
    scontrol ping 2>/dev/null | grep -q "is UP" || return 1
    state=$(sinfo -h -n "$(node_name)" -o %T 2>/dev/null | head -n1)
    [[ $state =~ ^(idle|mixed|allocated|completing)$ ]]
}

install() {
    if have_binaries; then return 0; fi
    if [[ $(id -u) -ne 0 ]]; then
        log "SLURM is not installed and installing needs root"
        exit 3
    fi
    if ! command -v apt-get >/dev/null; then
        log "SLURM is not installed and there is no apt-get here"
        exit 3
    fi
    log "installing ${PACKAGES[*]} (apt)"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"; } \
        >"/tmp/paramid-local-slurm-apt.log" 2>&1; then
        log "apt-get failed (see /tmp/paramid-local-slurm-apt.log)"
        exit 3
    fi
    # postinst may have tried to start the services: the package's daemons are not ours to keep
}

write_config() {
    if [[ -f $CONF ]] && ! grep -qF "$MARKER" "$CONF"; then
        log "$CONF exists, was not written by this script and its cluster is not up;"
        log "start that cluster yourself, or move $CONF away to use this script"
        exit 1
    fi
    local node cpus mem_mb
    node=$(node_name)
    # the CPUs slurmd finds (nproc follows OMP_NUM_THREADS and the CPU affinity; a node
    # configured with other than slurmd's count is invalid)
    cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p')
    mem_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 - 512))
    mkdir -p /etc/slurm "$STATE/ctld" "$STATE/d" "$STATE/log" "$RUN"
    chown slurm:slurm "$STATE/ctld" "$STATE/log" 2>/dev/null || true
    local tmp
    tmp=$(mktemp "$CONF.XXXXXX")
    cat >"$tmp" <<EOF
$MARKER
ClusterName=paramid-local
SlurmctldHost=$node(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
# no cgroups: plain /proc process tracking, no task binding, no accounting gathering
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# finished jobs stay visible to squeue for 300 s (the squeue status check relies on it)
MinJobAge=300
ReturnToService=2
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    chmod 644 "$tmp"
    mv "$tmp" "$CONF"
}

running() {
    # process $1 exists and is no zombie left unreaped (kill -0 and pgrep count those)
    kill -0 "$1" 2>/dev/null && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

alive() {
    # the daemon named $1 runs with the pid in file $2 (not another process that took a stale
    # pidfile's pid)
    local pid
    [[ -f $2 ]] && pid=$(cat "$2") && running "$pid" &&
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$1" ]]
}

note_started() { echo "$1 $2" >>"$STARTED"; }

start_munge() {
    local pidfile=/run/munge/munged.pid
    if alive munged "$pidfile"; then return 0; fi
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown munge:munge /run/munge /var/lib/munge /var/log/munge
    chmod 755 /run/munge
    if [[ ! -s /etc/munge/munge.key ]]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        chown munge:munge /etc/munge/munge.key
        chmod 400 /etc/munge/munge.key
    fi
    runuser -u munge -- /usr/sbin/munged --force
    note_started munged "$pidfile"
    for _ in $(seq 50); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    log "munged did not come up"
    exit 1
}

start_slurm() {
    if ! alive slurmctld "$RUN/slurmctld.pid"; then
        # -c: from a cleared state (no jobs kept in $STATE/ctld from an interrupted run)
        slurmctld -c -f "$CONF"
        note_started slurmctld "$RUN/slurmctld.pid"
    fi
    if ! alive slurmd "$RUN/slurmd.pid"; then
        slurmd -f "$CONF" -N "$(node_name)"
        note_started slurmd "$RUN/slurmd.pid"
    fi
    local deadline=$((SECONDS + WAIT_S)) state
    while ((SECONDS < deadline)); do
        if ready; then return 0; fi
        state=$(sinfo -h -n "$(node_name)" -o %T 2>/dev/null | head -n1 || true)
        if [[ $state =~ ^(down|drain|drained|draining) ]]; then
            scontrol update NodeName="$(node_name)" State=RESUME >/dev/null 2>&1 || true
        fi
        sleep 0.5
    done
    log "the node did not become idle within ${WAIT_S}s; logs: $STATE/log/"
    sinfo -N -l >&2 || true
    exit 1
}

up() {
    if [[ ! -f $STARTED ]] && have_binaries && ready; then
        log "already up (not started by this script): using it as it is"
        return 0
    fi
    if [[ $(id -u) -ne 0 ]]; then
        log "starting the SLURM and munge daemons needs root"
        exit 3
    fi
    install
    mkdir -p "$RUN"
    # daemons this script started earlier are restarted from a cleared state: a run that was
    # killed (or a machine copied) mid-test leaves its jobs RUNNING in the controller with no
    # process behind them, holding the node until their time limit while every new job pends
    cancel_jobs
    stop_started
    write_config
    start_munge
    start_slurm
    log "up: partition 'local' on $(node_name), $(sinfo -h -o %c) CPUs, no jobs"
}

cancel_jobs() {
    # the jobs of the controller this script started, ended with their processes (bounded)
    alive slurmctld "$RUN/slurmctld.pid" || return 0
    local jobs pids=() pid
    jobs=$(squeue -h -o %i 2>/dev/null || true)
    [[ -n $jobs ]] || return 0
    for job in $jobs; do
        pids+=($(scontrol listpids "$job" 2>/dev/null | awk 'NR > 1 {print $1}' || true))
    done
    echo "$jobs" | xargs scancel 2>/dev/null || true
    for _ in $(seq 100); do
        local left=0
        for pid in "${pids[@]}"; do running "$pid" && left=1; done
        [[ $left == 0 && -z $(squeue -h -o %i 2>/dev/null || true) ]] && return 0
        sleep 0.1
    done
    log "jobs or their processes outlived scancel by 10 s: the restart ends them"
}

stop_pidfile() {
    local name=$1 pidfile=$2 pid
    if alive "$name" "$pidfile"; then
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 100); do
            running "$pid" || break
            sleep 0.1
        done
        if running "$pid"; then
            log "$name ($pid) did not stop on SIGTERM; sending SIGKILL"
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile"  # its pid may be another process's later
}

stop_started() {
    # the daemons listed in $STARTED, in reverse start order: slurmd, slurmctld, munged
    [[ -f $STARTED ]] || return 0
    local name pidfile
    while read -r name pidfile; do
        stop_pidfile "$name" "$pidfile"
    done < <(tac "$STARTED")
    rm -f "$STARTED"
}

remove_config() {
    # A slurm.conf naming a controller that is not running makes every `scontrol` wait ~9 s for
    # it, and the slurm executor plugin runs `scontrol show config` whenever Snakemake starts:
    # without this, every later snakemake call on the machine would start 9 s slower (tests/
    # conftest.py runs `clean` before a test session: a run killed before its `down` left it)
    if [[ -f $CONF ]] && grep -qF "$MARKER" "$CONF" && ! alive slurmctld "$RUN/slurmctld.pid"; then
        rm -f "$CONF"
    fi
}

down() {
    if [[ ! -f $STARTED ]]; then
        log "nothing started by this script is running"
        remove_config
        return 0
    fi
    cancel_jobs
    stop_started
    remove_config
    log "down"
}

case "${1:-}" in
up) up ;;
down) down ;;
clean) remove_config ;;
status) ready ;;
*)
    echo "usage: $0 up|down|status|clean" >&2
    exit 2
    ;;
esac
