#!/usr/bin/env bash
# Starts a real single-node Slurm on this machine (Debian's slurm-wlm and munge; localhost; every
# file in a temporary folder; the daemons stopped afterwards, whatever happens), then runs the
# gi_tests that need one (SlurmEvolve.*: `gi-tool evolve --worker-launcher "srun ..." --compile-on-workers`
# with the fake worker and NVRTC's compile processes as Slurm jobs), and checks Slurm saw every job.
# Registered with ctest as `slurm_evolve` (label slurm).
#   usage: run_slurm_test.sh GI_TESTS
# Exit 77 (ctest: skipped) when not root or Slurm is not installed (scripts/install-deps.sh installs
# it where apt can); the daemons need root here. The node uses no cgroups (proctrack/linuxproc,
# task/none), so it also runs in a container.
set -uo pipefail
gi_tests="${1:?usage: run_slurm_test.sh GI_TESTS}"
skip() {
    echo "slurm_evolve: SKIPPED: $*"
    exit 77
}
[[ $(id -u) -eq 0 ]] || skip "not root (slurmctld and slurmd are started as root; run the test command as root)"
for program in munged slurmctld slurmd srun sinfo; do
    command -v "$program" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin"
    command -v "$program" >/dev/null 2>&1 ||
        skip "$program is not installed (apt-get install slurm-wlm munge; scripts/install-deps.sh tries it)"
done

run="$(mktemp -d /tmp/gi-slurm-XXXXXX)"
chmod 755 "$run"
cleanup() {
    local status=$?
    for daemon in slurmd slurmctld munged; do
        local pid_file="$run/$daemon.pid"
        [[ -s "$pid_file" ]] && kill "$(cat "$pid_file")" 2>/dev/null
    done
    # Each daemon gets 10 s to go, then is killed.
    for _ in $(seq 100); do
        local alive=0
        for daemon in slurmd slurmctld munged; do
            [[ -s "$run/$daemon.pid" ]] && kill -0 "$(cat "$run/$daemon.pid")" 2>/dev/null && alive=1
        done
        ((alive)) || break
        sleep 0.1
    done
    for daemon in slurmd slurmctld munged; do
        [[ -s "$run/$daemon.pid" ]] && kill -9 "$(cat "$run/$daemon.pid")" 2>/dev/null
    done
    rm -rf "$run"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

show_logs() {
    for log in "$run"/*.log; do
        echo "--- $log (last lines)"
        tail -n 20 "$log"
    done
}
fail() {
    echo "slurm_evolve: FAILED: $*"
    show_logs
    exit 1
}

# Two free ports for slurmctld and slurmd.
free_port() {
    local port
    for _ in $(seq 50); do
        port=$((20000 + RANDOM % 30000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
    fail "no free port found"
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[[ $ctld_port != "$slurmd_port" ]] || slurmd_port=$((ctld_port + 1))

# munge: a key of our own and a socket in the folder.
mkdir -m 711 "$run/munge"
dd if=/dev/urandom of="$run/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$run/munge/munge.key"
munged --force --key-file="$run/munge/munge.key" --socket="$run/munge/socket" --pid-file="$run/munged.pid" \
    --log-file="$run/munged.log" --seed-file="$run/munge/seed" || fail "munged did not start"

node="$(hostname -s)"
mkdir -p "$run/spool/ctld" "$run/spool/d"
# CPUs above the machine's (config_overrides): the evaluator's worker and its spare are job steps at
# once, and a 2-core machine must not queue them.
cat >"$run/slurm.conf" <<EOF
ClusterName=gi-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$run/munge/socket
StateSaveLocation=$run/spool/ctld
SlurmdSpoolDir=$run/spool/d
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$run/slurmctld.log
SlurmdLogFile=$run/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=32 RealMemory=1000 State=UNKNOWN
PartitionName=gi Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF="$run/slurm.conf"
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$node" || fail "slurmd did not start"

for _ in $(seq 300); do
    [[ "$(sinfo -h -o %t 2>/dev/null)" == idle ]] && break
    sleep 0.1
done
[[ "$(sinfo -h -o %t 2>/dev/null)" == idle ]] || fail "the node did not come up (sinfo: $(sinfo -h 2>&1))"
[[ "$(timeout 60 srun -N1 -n1 --quiet echo up 2>&1)" == up ]] || fail "srun cannot run a step: $(timeout 60 srun -N1 -n1 echo up 2>&1)"
echo "slurm_evolve: single-node Slurm up ($node, slurmctld port $ctld_port, slurmd port $slurmd_port)"

output="$(GI_SLURM_LAUNCHER="srun -N1 -n1 --quiet" timeout 240 "$gi_tests" --gtest_filter='SlurmEvolve.*' 2>&1)"
status=$?
echo "$output"
((status == 0)) || fail "SlurmEvolve failed (exit $status)"
grep -q '^\[  PASSED  \] 1 test' <<<"$output" && ! grep -q '^\[  SKIPPED \]' <<<"$output" ||
    fail "SlurmEvolve did not run (skipped, or no such test in $gi_tests)"
# Every worker and every NVRTC compile process was a job of its own (srun outside an allocation),
# besides the probe above: the test says how many that makes; their ends reach the log shortly.
expected="$(sed -n 's/^GI_SLURM_EXPECTED_JOBS=\([0-9]*\)$/\1/p' <<<"$output")"
[[ -n "$expected" ]] || fail "SlurmEvolve did not say how many jobs its run made"
jobs=0
for _ in $(seq 100); do
    jobs=$(($(grep -c '_job_complete: JobId=.* done' "$run/slurmctld.log") - 1))
    ((jobs >= expected)) && break
    sleep 0.1
done
echo "slurm_evolve: jobs the run started: $jobs (its workers' and compile processes': $expected)"
((jobs >= expected)) || fail "the run's workers and compile processes made $jobs Slurm jobs, not the $expected they were"
