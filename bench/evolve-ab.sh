#!/usr/bin/env bash
# One search, two settings, side by side: gi-tool evolve on one example kernel for a fixed number of
# generations with the same seed, once with the default options (arm "default") and once with
# GI_AB_OPTIONS added (arm "option"), in alternating order over GI_ROUNDS rounds, so drift of the
# machine hits both arms alike. Each run's own record says where its time went (evaluation and the
# sanitizer gate, `search time:`), so the table answers "what does this setting cost or save a
# search", e.g. GI_AB_OPTIONS=--run-binary-duplicates for binary-duplicate reuse. No minimisation
# or post-tuning: the search alone is compared.
#
#   GI_KERNEL=stereo GI_START_GENOME="ROWS_PER_THREAD=3 XHALO=1 DPER=4 STORE_DISPARITY_PIXEL=1 STORE_MIN_SSD=2" \
#       GI_AB_OPTIONS=--run-binary-duplicates bash bench/evolve-ab.sh
#
# Environment: GI_KERNEL (stereo), GI_AB_OPTIONS (required), GI_START_GENOME (evolve from it without
# pre-tuning; default: pre-tuning with GI_TUNE_MAX points), GI_GENERATIONS (5), GI_POPULATION (100),
# GI_ROUNDS (2), GI_SEED (1), GI_TUNE_MAX (64), GI_BUILD, GI_JOBS, GI_EVALUATOR (cuda; "fake" runs the
# script's logic without a GPU). Results: $OUT/results.md, $OUT/<arm>-<round>/ (run.xml, evolve.log).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/evolve-ab}"
mkdir -p "$OUT"
kernel="${GI_KERNEL:-stereo}"
ab_options="${GI_AB_OPTIONS:?GI_AB_OPTIONS: the gi-tool evolve options of the second arm, e.g. --run-binary-duplicates}"
generations="${GI_GENERATIONS:-5}"
population="${GI_POPULATION:-100}"
rounds="${GI_ROUNDS:-2}"
seed="${GI_SEED:-1}"
tune_max="${GI_TUNE_MAX:-64}"
evaluator="${GI_EVALUATOR:-cuda}"
jobs="${GI_JOBS:-$(nproc)}"
[[ -f "$root/kernels/$kernel/registration.txt" ]] || { echo "GI_KERNEL: no kernels/$kernel/registration.txt"; exit 2; }
start_options=()
[[ -n "${GI_START_GENOME:-}" ]] && start_options=(--start "$GI_START_GENOME" --no-pre-tune)
work=/tmp/gi-evolve-ab
rm -rf "$work" && mkdir -p "$work"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages
build_unless_given
registration_options "$kernel"
evaluator_options=(--evaluator "$evaluator")
if [[ "$evaluator" == cuda ]]; then
    detect_gpu
    record_cases "$kernel" "$OUT"
    evaluator_options+=(--arch "sm_$arch" --cases "$cases" --held-out "$held_out")
else
    gpu="none (--evaluator $evaluator)"
    # The fake evaluator takes the kernel's genes but no launch or comparison options.
    kept=()
    for ((i = 0; i < ${#options[@]}; i += 2)); do
        case "${options[i]}" in --block|--grid|--tolerance) ;; *) kept+=("${options[i]}" "${options[i + 1]}") ;; esac
    done
    options=("${kept[@]}")
fi

# The value after "NAME:" on the summary line that starts with it.
summary_value() { grep -m1 "^$1:" "$2" | sed "s/^$1: *//"; }

rows=()
for ((round = 1; round <= rounds; round++)); do
    # Alternate which arm goes first, so neither always runs on the fresher machine.
    if (( round % 2 == 1 )); then arms=(default option); else arms=(option default); fi
    for arm in "${arms[@]}"; do
        dir="$OUT/$arm-$round"
        rm -rf "$dir" && mkdir -p "$dir"
        extra=()
        # shellcheck disable=SC2206
        [[ "$arm" == option ]] && extra=($ab_options)
        start=$(date +%s.%N)
        "$tool" evolve "$root/kernels/$kernel/$kernel.cu" "${options[@]}" "${evaluator_options[@]}" \
            --generations "$generations" --population "$population" --seed "$seed" --tune-max "$tune_max" \
            --no-minimise --no-post-tune "${start_options[@]}" "${extra[@]}" --out "$dir/run" >"$dir/evolve.log" 2>&1
        status=$?
        wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        echo "$arm round $round: exit $status in $wall s"
        if (( status != 0 )); then
            tail -5 "$dir/evolve.log"
            rows+=("| $arm | $round | failed (exit $status, see $arm-$round/evolve.log) | | | | |")
            continue
        fi
        rows+=("| $arm | $round | $wall s | $(summary_value "search time" "$dir/evolve.log") | $(summary_value "evaluated per minute" "$dir/evolve.log" | cut -d' ' -f1) | $(summary_value "best speedup" "$dir/evolve.log") | \`$(summary_value "best genome" "$dir/evolve.log")\` |")
    done
done

{
    echo "# Search A/B: $kernel, default against \`$ab_options\`"
    echo
    echo "- GPU: ${gpu:-none found}; $(nproc) CPU cores; date: $(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
    echo "- command: \`GI_KERNEL=$kernel GI_AB_OPTIONS=\"$ab_options\"${GI_START_GENOME:+ GI_START_GENOME=\"$GI_START_GENOME\"} GI_GENERATIONS=$generations GI_POPULATION=$population GI_ROUNDS=$rounds GI_SEED=$seed GI_EVALUATOR=$evaluator bash bench/evolve-ab.sh\`"
    echo "- each run: \`gi-tool evolve --generations $generations --population $population --seed $seed --no-minimise --no-post-tune\`; the arms alternate in order from round to round"
    echo
    echo "| arm | round | wall time | search time (from the run's summary) | evaluated per minute | best speedup | best genome |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} | tee "$OUT/results.md"
