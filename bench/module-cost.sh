#!/usr/bin/env bash
# Does a killed worker's context, torn down by the driver while its kernel hangs, slow the next
# worker's module loads, launches and unloads? (Issue 3: module loads take ~8 ms each in
# cuda-bench, where about a third of the variants hang or crash and their workers are killed, and
# 0.01-0.03 ms in bench/module_cost.cpp alone.)
#
#   bash bench/module-cost.sh            # on the device machine; markdown tables on stdout
#   GI_KILL_PERIOD=0.5 GI_ITERATIONS=150 GI_PACE_MS=20 bash bench/module-cost.sh
#
# Runs module_cost over 40 distinct stereo cubins, each iteration paced so one run spans seconds:
#   alone; beside a process holding a hung kernel (never killed); beside processes started and
#   killed every GI_KILL_PERIOD s while their kernel hangs (as gi-tool kills a worker whose variant
#   hangs); beside processes started and killed as often with an idle context (as gi-tool kills
#   spare workers). For the killed ones it reports how long each took to exit after SIGKILL.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="/usr/local/cuda/bin:$PATH"
work="${GI_WORK:-/tmp/gi-module-cost}"
period="${GI_KILL_PERIOD:-0.5}"
iterations="${GI_ITERATIONS:-150}"
pace="${GI_PACE_MS:-20}"
kernel=_Z13stereo_kernelPKhS0_PfPiii
rm -rf "$work" && mkdir -p "$work"

echo "# module_cost beside killed processes"
echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); $(date -u +%Y-%m-%dT%H:%MZ)"
g++ -O2 -std=c++17 -I/usr/local/cuda/include "$root/bench/module_cost.cpp" -o "$work/module_cost" -L/usr/local/cuda/lib64/stubs -lcuda ||
    { echo "module-cost.sh: building bench/module_cost.cpp failed" >&2; exit 1; }
nvcc -cubin -arch=sm_90 -o "$work/hang.cubin" "$root/bench/module_cost_hang.cu" ||
    { echo "module-cost.sh: compiling bench/module_cost_hang.cu failed" >&2; exit 1; }
for r in $(seq 1 40); do
    nvcc -cubin -arch=sm_90 -DROWS_PER_THREAD="$r" -o "$work/g$r.cubin" "$root/kernels/stereo/stereo.cu" &
    (( r % 16 == 0 )) && wait
done
wait
cubins=("$work"/g*.cubin)
[[ ${#cubins[@]} -eq 40 ]] || { echo "module-cost.sh: only ${#cubins[@]} of 40 stereo cubins compiled" >&2; exit 1; }

# Starts `module_cost ARGS`, waits until it says "hanging" (its kernel is running; a process
# without that line, --hold, is waited for $period s), then kills it with SIGKILL $period s later,
# over and over until the file $work/stop exists; appends each one's exit time (kill to gone, ms)
# to $1. Killing before CUDA is up would measure nothing: a process that never launched exits at once.
kill_loop() {
    local exits="$1"; shift
    local n=0
    while [[ ! -e "$work/stop" ]]; do
        n=$((n + 1))
        local said="$work/said.$n"
        "$work/module_cost" "$@" >"$said" 2>&1 &
        local pid=$!
        if [[ "$1" == --hang ]]; then
            for _ in $(seq 1 500); do grep -q hanging "$said" 2>/dev/null && break; sleep 0.02; done
        fi
        sleep "$period"
        local t0; t0=$(date +%s%N)
        kill -9 "$pid" 2>/dev/null
        # Gone = no longer running or in the kernel (a zombie is gone: the driver let it go).
        ( while [[ -e /proc/$pid ]] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do sleep 0.002; done
          echo $(( ($(date +%s%N) - t0) / 1000000 )) >>"$exits" ) &
    done
    wait
}

# How many of the killed processes had their kernel running when killed, and what the others said.
launched_summary() {
    local launched; launched=$(grep -l hanging "$work"/said.* 2>/dev/null | wc -l)
    local all; all=$(find "$work" -maxdepth 1 -name 'said.*' | wc -l)
    echo "$launched of $all killed processes had launched their kernel"
    grep -L hanging "$work"/said.* 2>/dev/null | head -1 | xargs -r cat | head -3
    rm -f "$work"/said.*
}

exit_summary() {
    sort -n "$1" | awk '{a[NR]=$1; s+=$1} END {if (NR) printf "%d killed, exit after SIGKILL: median %d ms, mean %.0f ms, max %d ms\n", NR, a[int((NR+1)/2)], s/NR, a[NR]}'
}

run_cost() { "$work/module_cost" --pace "$pace" "$kernel" "$iterations" "${cubins[@]}"; }

echo; echo "## alone"; run_cost

echo; echo "## beside one process whose kernel hangs throughout (never killed)"
"$work/module_cost" --hang "$work/hang.cubin" hang >"$work/hang.out" 2>&1 &
hang_pid=$!
for _ in $(seq 1 500); do grep -q hanging "$work/hang.out" 2>/dev/null && break; sleep 0.02; done
if ! grep -q hanging "$work/hang.out"; then
    echo "module-cost.sh: the hanging process never launched its kernel: $(cat "$work/hang.out")" >&2
fi
run_cost
kill -9 "$hang_pid" 2>/dev/null; wait "$hang_pid" 2>/dev/null

echo; echo "## beside processes whose kernel hangs, each killed after $period s"
rm -f "$work/stop"
kill_loop "$work/exits-hang" --hang "$work/hang.cubin" hang 2>/dev/null &
loop=$!
sleep 1
run_cost
touch "$work/stop"; wait "$loop" 2>/dev/null
exit_summary "$work/exits-hang"
launched_summary

echo; echo "## beside processes holding an idle context, each killed after $period s"
rm -f "$work/stop"
kill_loop "$work/exits-idle" --hold 60 2>/dev/null &
loop=$!
sleep 1
run_cost
touch "$work/stop"; wait "$loop" 2>/dev/null
exit_summary "$work/exits-idle"
rm -f "$work"/said.*

echo; echo "## alone again"; run_cost
