#!/usr/bin/env bash
# The results of issue 5: evolves each example kernel on a GPU with `gi-tool evolve --evaluator cuda`
# and measures what it found *outside the tool*, with the kernel's own driver (CUDA events, warm-up,
# median of repetitions, every output checked against the CPU reference):
#   original        the kernel as written (legacy defaults)
#   params only     the best parameter setting of the run's pre-tuning sweep (what a parameter
#                   auto-tuner finds; the sweep is exhaustive up to --tune-max points, sampled above)
#   evolved         the run's final genome: evolved, minimised, post-tuned, sanitizer-gated
# Each variant source is made by `gi-tool apply` from the genome and compiled into the driver in
# place of the original file, with the compile options the genome implies. The evolved variant also
# runs under compute-sanitizer (memcheck and racecheck) on a small input.
#
#   OUT=out/evolve bash bench/evolve-kernels.sh                    # all three kernels
#   GI_KERNELS="stereo" GI_TIME_LIMIT=300 bash bench/evolve-kernels.sh
#   GI_CONSUMER_CACHE=DIR bash bench/evolve-kernels.sh             # also write the stereo run as the
#                                                                  # consumer example's sm_XX cache entry
# Environment: GI_KERNELS (stereo bspline hydro), GI_TIME_LIMIT (seconds of pre-tuning + search per
# kernel, 240), GI_TUNE_MAX (points of the parameter sweeps, 1024), GI_POPULATION (100), GI_SEED (1),
# GI_BUILD (reuse a build of gi-optimize), GI_JOBS, GI_BASELINE_TUNE_MAX (when set, "params only" comes
# from a separate parameters-only run sweeping up to this many points, e.g. 100000 for an exhaustive
# sweep, instead of the evolve run's own pre-tuning), GI_START_GENOME (one kernel at a time: evolve from
# this genome without pre-tuning, e.g. the winner of bench/params-baseline.sh's exhaustive sweep;
# "params only" is then that genome, so "vs params" is what code evolution and post-tuning added),
# GI_EVOLVE_OPTIONS (more words for the search's gi-tool evolve, e.g. --run-binary-duplicates for the
# A/B arm of binary-duplicate reuse).
# Results: $OUT/results.md (the table), $OUT/<kernel>/ (run.xml, best.genome, logs, variant sources).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/evolve}"
mkdir -p "$OUT"
kernels="${GI_KERNELS:-stereo bspline hydro}"
time_limit="${GI_TIME_LIMIT:-240}"
tune_max="${GI_TUNE_MAX:-1024}"
baseline_tune_max="${GI_BASELINE_TUNE_MAX:-}"
start_genome="${GI_START_GENOME:-}"
start_options=()
if [[ -n "$start_genome" ]]; then
    [[ "${GI_KERNELS:-}" == *" "* || -z "${GI_KERNELS:-}" ]] && { echo "GI_START_GENOME needs exactly one kernel in GI_KERNELS"; exit 2; }
    start_options=(--start "$start_genome" --no-pre-tune)
fi
population="${GI_POPULATION:-100}"
seed="${GI_SEED:-1}"
jobs="${GI_JOBS:-$(nproc)}"
work=/tmp/gi-evolve-kernels
rm -rf "$work" && mkdir -p "$work"
export PATH="/usr/local/cuda/bin:$PATH"
step() { echo; echo "==== $*"; }
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"

step "dependencies"
unpack_carried_packages

step "build"
build_unless_given
detect_gpu
echo "GPU: ${gpu:-none found} (sm_$arch)"

rows=()
for kernel in $kernels; do
    step "$kernel"
    dir="$OUT/$kernel"
    mkdir -p "$dir"
    source_file="$root/kernels/$kernel/$kernel.cu"
    registration_options "$kernel"
    split_options
    record_cases "$kernel" "$dir"

    start=$(date +%s)
    # The search is bounded by --time-limit; the hard timeout only guards against a stuck run.
    timeout $(( time_limit + 420 )) "$tool" evolve "$source_file" "${options[@]}" --evaluator cuda --arch "sm_$arch" \
        --cases "$cases" --held-out "$held_out" --time-limit "$time_limit" --tune-max "$tune_max" \
        --population "$population" --generations 1000 --seed "$seed" "${start_options[@]}" ${GI_EVOLVE_OPTIONS:-} \
        --out "$dir/run" >"$dir/evolve.log" 2>&1
    status=$?
    wall=$(( $(date +%s) - start ))
    tail -16 "$dir/evolve.log"
    echo "evolve exit $status in $wall s"
    if [[ ! -f "$dir/run/run.xml" ]]; then
        rows+=("| $kernel | evolve failed (exit $status, see $kernel/evolve.log) | | | | | | | |")
        continue
    fi
    params_run="$dir/run"
    if [[ -n "$baseline_tune_max" ]]; then
        # The parameter tuner's answer on its own: the sweep alone, no search, no minimisation.
        start=$(date +%s)
        "$tool" evolve "$source_file" "${options[@]}" --evaluator cuda --arch "sm_$arch" --cases "$cases" \
            --held-out "$held_out" --generations 0 --tune-max "$baseline_tune_max" --no-minimise --no-post-tune \
            --seed "$seed" --out "$dir/params-run" >"$dir/params.log" 2>&1
        echo "parameters-only run (up to $baseline_tune_max points): exit $? in $(( $(date +%s) - start )) s"
        grep -m1 '^pre-tune:' "$dir/params.log"
        params_run="$dir/params-run"
    fi
    if [[ -n "$start_genome" ]]; then
        params_genome="$start_genome"
    else
        params_genome="$(python3 - "$params_run/run.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
pre = ET.parse(sys.argv[1]).getroot().find("pre-tune")
print(pre.get("best", "") if pre is not None and pre.get("ran") == "1" else "")
EOF
)"
    fi
    final_genome="$(cat "$dir/run/best.genome" 2>/dev/null)"
    variants="$(grep -m1 '^variants evaluated:' "$dir/evolve.log" | sed 's/^variants evaluated: *//')"
    validation="$(grep -m1 '^validation:' "$dir/evolve.log" | sed 's/^validation: *//')"

    # Build the driver with each genome's variant in place of the original file (in parallel), then
    # time and check them one at a time.
    declare -A times=() checks=()
    for which in original params evolved; do
        genome=""
        [[ $which == params ]] && genome="$params_genome"
        [[ $which == evolved ]] && genome="$final_genome"
        build_driver_with_genome "$kernel" "$which" "$genome" "$dir"
    done
    wait
    driver_runs "$kernel"
    sanitizer="not run"
    for which in original params evolved; do
        time_driver "$kernel" "$which" "$dir" || { echo "driver build failed for $which"; tail -5 "$dir/$which.build.log"; continue; }
        times[$which]="${driver_ms[0]}" checks[$which]="$driver_check"
        if [[ $which == evolved ]]; then
            sanitize_driver "$kernel" evolved "$dir"
            echo "evolved: compute-sanitizer memcheck+racecheck: $sanitizer" | tee -a "$dir/driver.log"
        fi
    done
    rows+=("| $kernel | ${times[original]:-?} | ${times[params]:-?} | ${times[evolved]:-?} | $(speed "${times[original]:-0}" "${times[evolved]:-0}") | $(speed "${times[params]:-0}" "${times[evolved]:-0}") | ${checks[original]:-?}/${checks[params]:-?}/${checks[evolved]:-?}, sanitizer $sanitizer | $validation | $wall s, $variants |")
    {
        echo "## $kernel"
        echo "- params-only genome: \`${params_genome:-(original)}\`"
        echo "- evolved genome: \`${final_genome:-(original)}\`"
        echo
        echo "gi-tool evolve's summary:"
        echo '```'
        sed -n '/^generations:/,$p' "$dir/evolve.log"
        echo '```'
        echo "the drivers (training size, then held-out inputs):"
        echo '```'
        cat "$dir/driver.log"
        echo '```'
        echo
    } >>"$work/genomes.md"

    if [[ $kernel == stereo && -n "${GI_CONSUMER_CACHE:-}" && -s "$dir/run/best.genome" ]]; then
        step "consumer cache entry (sm_$arch)"
        mkdir -p "$GI_CONSUMER_CACHE"
        driver_version="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
        "$tool" cache write "$source_file" "${registration[@]}" --arch "$arch" --cache-dir "$GI_CONSUMER_CACHE" \
            --from-run "$dir/run" --gpu "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
            --driver "$driver_version" --nvcc-version "$(nvcc --version | grep -o 'release [0-9.]*' | cut -d' ' -f2)" &&
            "$tool" cache show "$GI_CONSUMER_CACHE"
    fi
done

{
    echo "# Example kernels evolved with gi-optimize"
    echo
    echo "- GPU: ${gpu:-none found} (sm_$arch); $(nproc) CPU cores; $(nvcc --version | grep -o 'release [0-9.]*' | head -1)"
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- command: \`GI_KERNELS=\"$kernels\" GI_TIME_LIMIT=$time_limit GI_TUNE_MAX=$tune_max${baseline_tune_max:+ GI_BASELINE_TUNE_MAX=$baseline_tune_max} GI_POPULATION=$population GI_SEED=$seed${start_genome:+ GI_START_GENOME=\"$start_genome\"}${GI_EVOLVE_OPTIONS:+ GI_EVOLVE_OPTIONS=\"$GI_EVOLVE_OPTIONS\"} bash bench/evolve-kernels.sh\`"
    echo "- times: each kernel's driver (CUDA events, median of 50 launches after warm-up) at the training size"
    echo "  (stereo: one 320x240 pair; bspline: 217^3; hydro: one two-launch step at 1024^2); checks: every output of"
    echo "  the training size and two held-out inputs against the CPU reference (original/params/evolved)"
    echo
    echo "| kernel | original ms | params only ms | evolved ms | vs original | vs params | driver checks, sanitizer | gi-tool held-out validation | search wall time, variants |"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    cat "$work/genomes.md" 2>/dev/null
} >"$OUT/results.md"
echo
cat "$OUT/results.md"
