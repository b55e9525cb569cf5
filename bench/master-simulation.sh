#!/usr/bin/env bash
# Issue 45 item 3's simulation: how many evaluations a minute the search's master handles with
# many workers, and where it saturates, without a GPU. `gi-tool evolve --strategy anneal --workers W`
# keeps W evaluations in flight, each worker with an evaluator of its own; here every evaluator is
# the fake landscape (`--evaluator fake --fake delay-ms=L`): each evaluation takes L ms of injected
# latency and compiles nothing (the fake scores the genome itself; compiles, the pipe protocol and
# the GPU are the workers' cost, which a launcher puts on their nodes). What is measured is the
# master alone: breeding and drawing parents, scoring, the history database (every individual a
# SQLite row), the pool's hand-out and the in-order hand-back. W workers at L ms could do at most
# W x 60000 / L evaluations a minute; the table shows how much of that the master reached.
# The kernel is stereo (its grammar and genes as the CMake build registers it); tuning, minimisation
# and the final checks are off, so the rate is the search's own (evolve's "evaluated per minute"
# counts the whole wall time, start-up and the confirmation of the best included).
#
#   bash bench/master-simulation.sh                      # W = 64 128 256, L = 300 and 1000 ms, 30 s each
#   SIM_WORKERS="128" SIM_LATENCY_MS="200 300" SIM_SECONDS=60 bash bench/master-simulation.sh
#   GI_TOOL=build/gpus/gi-tool/gi-tool bash bench/master-simulation.sh   # a gi-tool already built
#
# Knobs: SIM_WORKERS, SIM_LATENCY_MS, SIM_SECONDS (each run's --time-limit), SIM_POPULATION (anneal's
# block: children per generation; default 4 x W, so a generation's end never leaves workers idle
# for long), GI_TOOL (else build/tests/gi-tool/gi-tool, else one is built in /tmp/gi-simulation-build).
# Writes $OUT/simulation.txt (the table) and each run's log.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/master-simulation}"
mkdir -p "$OUT"
read -r -a worker_counts <<<"${SIM_WORKERS:-64 128 256}"
read -r -a latencies <<<"${SIM_LATENCY_MS:-300 1000}"
seconds="${SIM_SECONDS:-30}"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"

tool="${GI_TOOL:-}"
if [[ -z "$tool" && -x "$root/build/tests/gi-tool/gi-tool" ]]; then tool="$root/build/tests/gi-tool/gi-tool"; fi
if [[ -z "$tool" ]]; then
    build=/tmp/gi-simulation-build
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
        cmake --build "$build" -j "$(nproc)" --target gi-tool >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    tool="$build/gi-tool/gi-tool"
fi

# stereo's registration without what only the cuda evaluator takes (geometry, tolerances).
registration_options stereo
search_options=()
skip=0
for word in "${options[@]}"; do
    if ((skip)); then skip=0; continue; fi
    case "$word" in --block|--grid|--tolerance) skip=1; continue ;; esac
    search_options+=("$word")
done

rows=()
for workers in "${worker_counts[@]}"; do
    for latency in "${latencies[@]}"; do
        population="${SIM_POPULATION:-$((4 * workers))}"
        log="$OUT/w$workers-l$latency.log"
        run="$OUT/run-w$workers-l$latency"
        rm -rf "$run"
        /usr/bin/time -f "master cpu: %U s user, %S s system, %M KiB" "$tool" evolve "$root/kernels/stereo/stereo.cu" \
            "${search_options[@]}" --evaluator fake --fake "delay-ms=$latency" --strategy anneal --workers "$workers" \
            --population "$population" --time-limit "$seconds" --seed 1 --no-pre-tune --no-post-tune --no-minimise \
            --quiet --out "$run" >"$log" 2>&1
        status=$?
        rate="$(grep -m1 '^evaluated per minute:' "$log" | awk '{ print $4 }')"
        evaluations="$(grep -m1 '^evaluated per minute:' "$log" | sed 's/.*(\([0-9]*\) evaluations.*/\1/')"
        wall="$(grep -m1 '^evaluated per minute:' "$log" | sed 's/.*wall time of \([0-9.]*\) s.*/\1/')"
        cpu="$(grep -m1 '^master cpu:' "$log" | awk '{ print $3 + $6 }')"
        ideal=$((workers * 60000 / latency))
        share="$(awk -v r="${rate:-0}" -v i="$ideal" 'BEGIN { printf "%.0f%%", 100 * r / i }')"
        load="$(awk -v c="${cpu:-0}" -v w="${wall:-0}" 'BEGIN { if (w > 0) printf "%.2f", c / w; else print "-" }')"
        rows+=("$(printf '%7s %8s %10s %9s %7s %11s %9s %6s  exit %s' "$workers" "$latency" "${rate:--}" "$ideal" "$share" \
            "${evaluations:--}" "${cpu:--}" "$load" "$status")")
        rm -rf "$run"
    done
done

{
    echo "search master with fake workers (anneal, --evaluator fake --fake delay-ms=L, no compiles), $seconds s runs"
    echo "$(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null); $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    printf '%7s %8s %10s %9s %7s %11s %9s %6s\n' workers "L (ms)" "eval/min" "at most" reached evaluations "cpu (s)" cores
    printf '%s\n' "${rows[@]}"
    echo "eval/min: evolve's own count over the run's whole wall time; at most: workers x 60000 / L; cpu: the master"
    echo "process's CPU seconds (user + system), cores: that over the wall time (how busy the master was)."
} | tee "$OUT/simulation.txt"
