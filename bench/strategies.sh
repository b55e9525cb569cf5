#!/usr/bin/env bash
# Compares the three search strategies of `gi-tool evolve` (gp: Langdon's generational GP,
# nsga2: GEVO's multi-objective search, anneal: Paraiso's asynchronous genetic annealing) on the
# example kernels, on a GPU, at the same budget: the same number of evaluated variants
# (generations x population; anneal counts completions) and the same wall-time limit, the same
# seed and training cases. For each run it keeps the history database's progress curve
# (`gi-tool history --curve`: best accepted speedup after each evaluated variant, with wall time)
# and prints a table of the best speedup after 25%, 50% and 100% of the variants and of the time.
# Pre-tuning is off so every strategy starts from the same (legacy) parameters, and minimisation
# and post-tuning are off so the table measures the search alone.
#
#   OUT=out/strategies bash bench/strategies.sh                      # all three kernels
#   GI_KERNELS="stereo" GI_GENERATIONS=10 GI_POPULATION=50 bash bench/strategies.sh
#   GI_BUILD=/path/to/build bash bench/strategies.sh                 # reuse a build
#
# Environment: GI_KERNELS (stereo bspline hydro), GI_STRATEGIES (gp nsga2 anneal), GI_GENERATIONS
# (20), GI_POPULATION (50), GI_TIME_LIMIT (seconds per run, 150), GI_SEED (1), GI_WORKERS (anneal's
# evaluations in flight, 1: one GPU), GI_ANNEAL_BATCH (children per evaluator call, 16, so the GPU
# evaluator compiles them in parallel), GI_JOBS (build parallelism).
# Results: $OUT/strategies.txt (the table), $OUT/<kernel>-<strategy>.curve, $OUT/<kernel>-<strategy>.log.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/strategies}"
mkdir -p "$OUT"
kernels="${GI_KERNELS:-stereo bspline hydro}"
strategies="${GI_STRATEGIES:-gp nsga2 anneal}"
generations="${GI_GENERATIONS:-20}"
population="${GI_POPULATION:-50}"
time_limit="${GI_TIME_LIMIT:-150}"
seed="${GI_SEED:-1}"
workers="${GI_WORKERS:-1}"
anneal_batch="${GI_ANNEAL_BATCH:-16}"
jobs="${GI_JOBS:-$(nproc)}"
work=/tmp/gi-strategies
mkdir -p "$work"
export PATH="/usr/local/cuda/bin:$PATH"
step() { echo; echo "==== $*"; }
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"

step "dependencies"
unpack_carried_packages

step "build"
build_unless_given
[[ -x "$tool" ]] || { echo "no gi-tool in $build"; exit 1; }

record() {  # kernel -> training cases in $work/cases-<kernel>
    local kernel="$1" driver="$build/kernels/${1}_driver" dir="$work/cases-$1" function
    rm -rf "$dir"
    function="$(awk '$1 == "function" { print $2; exit }' "$root/kernels/$kernel/registration.txt")"
    case "$kernel" in
        stereo) record_with_tool "$kernel" "$function" "$dir" "$driver" --pairs 4 --seed 1 ;;
        bspline) record_with_tool "$kernel" "$function" "$dir" "$driver" --size 217 --cases 3 --seed 1 ;;
        hydro) record_with_tool "$kernel" "$function" "$dir" "$driver" --nx 1024 --ny 1024 --problem 5 --seed 1 --steps 2 ;;
    esac
}

# Best speedup in a curve file when `fraction` of its variants (column 1) or of its wall time
# (column 2) had been spent.
at_fraction() {
    awk -v col="$2" -v f="$3" 'NR > 1 { x[NR] = $col; b[NR] = $3; n = NR }
        END { if (n < 2) { print "-"; exit } limit = x[n] * f; best = 0
              for (i = 2; i <= n; i++) if (x[i] <= limit) best = b[i]; printf "%.3f", best }' "$1"
}

table=("$(printf '%-8s %-7s %9s %8s  %-23s %-23s %s' kernel strategy variants wall_s \
    'best @25/50/100% vars' 'best @25/50/100% time' 'final genome')")
for kernel in $kernels; do
    step "kernel $kernel"
    [[ -x "$build/kernels/${kernel}_driver" ]] || { echo "no ${kernel}_driver (CUDA not found?)"; continue; }
    record "$kernel" >"$OUT/$kernel-record.log" 2>&1
    ncases=$(ls -d "$work/cases-$kernel"/*/ 2>/dev/null | wc -l)
    echo "$ncases cases recorded"
    [[ $ncases -gt 0 ]] || { tail -5 "$OUT/$kernel-record.log"; continue; }
    registration_options "$kernel"
    for strategy in $strategies; do
        run="$work/run-$kernel-$strategy"
        rm -rf "$run"
        extra=()
        [[ "$strategy" == anneal ]] && extra=(--workers "$workers" --anneal-batch "$anneal_batch")
        start=$(date +%s)
        timeout $(( time_limit + 240 )) "$tool" evolve "$root/kernels/$kernel/$kernel.cu" "${options[@]}" \
            --evaluator cuda --cases "$work/cases-$kernel" --strategy "$strategy" \
            --generations "$generations" --population "$population" --time-limit "$time_limit" \
            --seed "$seed" --no-pre-tune --no-minimise --no-post-tune --out "$run" "${extra[@]}" \
            >"$OUT/$kernel-$strategy.log" 2>&1
        status=$?
        wall=$(( $(date +%s) - start ))
        "$tool" history --out "$run" --curve --strategy "$strategy" >"$OUT/$kernel-$strategy.curve" 2>>"$OUT/$kernel-$strategy.log"
        variants=$(( $(wc -l <"$OUT/$kernel-$strategy.curve") - 1 ))
        by_vars="$(at_fraction "$OUT/$kernel-$strategy.curve" 1 0.25)/$(at_fraction "$OUT/$kernel-$strategy.curve" 1 0.5)/$(at_fraction "$OUT/$kernel-$strategy.curve" 1 1)"
        by_time="$(at_fraction "$OUT/$kernel-$strategy.curve" 2 0.25)/$(at_fraction "$OUT/$kernel-$strategy.curve" 2 0.5)/$(at_fraction "$OUT/$kernel-$strategy.curve" 2 1)"
        genome="$(cat "$run/best.genome" 2>/dev/null | head -c 60)"
        [[ $status -eq 0 ]] || genome="(exit $status, see $kernel-$strategy.log)"
        table+=("$(printf '%-8s %-7s %9s %8.0f  %-23s %-23s %s' "$kernel" "$strategy" "$variants" "$wall" \
            "$by_vars" "$by_time" "$genome")")
        tail -3 "$OUT/$kernel-$strategy.log"
        [[ -f "$run/pareto.xml" ]] && cp "$run/pareto.xml" "$OUT/$kernel-$strategy.pareto.xml"
    done
done

{
    echo "gi-optimize search strategies, same budget: $generations generations x $population variants" \
         "(anneal: as many completions), time limit ${time_limit} s, seed $seed, anneal workers $workers" \
         "batch $anneal_batch"
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)" \
         " date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "best = best accepted speedup over the original on the case it was measured on"
    printf '%s\n' "${table[@]}"
} | tee "$OUT/strategies.txt"
