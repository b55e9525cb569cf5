#!/usr/bin/env bash
# What a parameter auto-tuner finds for each example kernel: an exhaustive sweep of the kernel's
# declared --param/--flag genes with gi-tool's cuda evaluator (no code edits, no search), then the
# best point timed and checked outside the tool, in the kernel's own driver, beside the original.
# It is the "params only" baseline of issue 5: bench/evolve-kernels.sh with GI_START_GENOME evolves
# code on top of the genome this prints, so "code evolution adds X%" compares like with like.
#
#   GI_KERNELS="hydro bspline" bash bench/params-baseline.sh
#
# Environment: GI_KERNELS (stereo bspline hydro), GI_TUNE_MAX (sweep size above which points are
# sampled; default 100000: exhaustive for bspline and hydro, while stereo's 155,520 points need
# GI_TUNE_MAX=200000 and several sittings; 34,560 of them set OUT_TYPE where no live code reads it
# and are left out as the same program as another point, so 120,960 are measured), GI_TUNE_SHARD (K/N: sweep only part K of N, every Nth
# point, so a sweep too long for one device call is done in N calls; then time the N winners side by
# side with bench/time-genomes.sh), GI_SWEEP_WITHOUT (gene names left out of the sweep at the
# source's default, e.g. "OUT_TYPE dlcm" to sweep stereo's 17,280 source-parameter points; time
# those genes on the winners afterwards with bench/time-genomes.sh), GI_SWEEP_VALUES (a box instead of
# the whole space: "NAME=v1,v2 ..." replaces the values of each named --param gene, e.g.
# "ROWS_PER_THREAD=3,4 DPER=3,4" to sweep the other genes around the best points of an earlier
# sweep; gi-tool adds the source's default to each list, so the original stays a point), GI_SEED (1),
# GI_BUILD, GI_JOBS.
# Results: $OUT/results.md, $OUT/<kernel>/ (run.xml with every point's verdict, logs).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/params-baseline}"
mkdir -p "$OUT"
kernels="${GI_KERNELS:-stereo bspline hydro}"
tune_max="${GI_TUNE_MAX:-100000}"
shard_options=()
[[ -n "${GI_TUNE_SHARD:-}" ]] && shard_options=(--tune-shard "$GI_TUNE_SHARD")
seed="${GI_SEED:-1}"
jobs="${GI_JOBS:-$(nproc)}"
work=/tmp/gi-params-baseline
rm -rf "$work" && mkdir -p "$work"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages
build_unless_given
detect_gpu

# GI_SWEEP_WITHOUT: genes not declared to the sweep, so they keep the source's default (a --param
# NAME=..., or a --flag whose name is NAME, as in NAME:-option or -NAME).
leave_out_genes() {
    local kept=() i name value
    for (( i = 0; i < ${#options[@]}; i += 2 )); do
        value="${options[i + 1]}"
        for name in ${GI_SWEEP_WITHOUT:-}; do
            if [[ ( "${options[i]}" == --param && "$value" == "$name="* ) ||
                  ( "${options[i]}" == --flag && ( "$value" == "$name:"* || "$value" == "-$name" ) ) ]]; then
                echo "left out of the sweep: ${options[i]} $value"
                continue 2
            fi
        done
        kept+=("${options[i]}" "$value")
    done
    options=("${kept[@]}")
}

# GI_SWEEP_VALUES: each NAME=values replaces the value list of --param NAME. A name that is not a
# declared --param is an error, so a typo cannot silently sweep the whole space.
narrow_genes() {
    local entry name i found
    for entry in ${GI_SWEEP_VALUES:-}; do
        name="${entry%%=*}"
        [[ "$entry" == *=?* && -n "$name" ]] || { echo "GI_SWEEP_VALUES: '$entry' is not NAME=v1,v2,..." >&2; exit 2; }
        found=0
        for (( i = 0; i < ${#options[@]}; i += 2 )); do
            if [[ "${options[i]}" == --param && "${options[i + 1]}" == "$name="* ]]; then
                echo "narrowed: --param ${options[i + 1]} -> $entry"
                options[i + 1]="$entry"
                found=1
            fi
        done
        [[ $found == 1 ]] || { echo "GI_SWEEP_VALUES: '$name' is not a --param gene of kernels/$kernel/registration.txt" >&2; exit 2; }
    done
}

rows=()
for kernel in $kernels; do
    echo "==== $kernel"
    dir="$OUT/$kernel"
    mkdir -p "$dir"
    registration_options "$kernel"
    leave_out_genes
    narrow_genes
    split_options
    record_cases "$kernel" "$dir"
    start=$(date +%s)
    "$tool" evolve "$root/kernels/$kernel/$kernel.cu" "${options[@]}" --evaluator cuda --arch "sm_$arch" \
        --cases "$cases" --held-out "$held_out" --generations 0 --tune-max "$tune_max" "${shard_options[@]}" --no-minimise --no-post-tune \
        --seed "$seed" --out "$dir/run" >"$dir/sweep.log" 2>&1
    status=$?
    wall=$(( $(date +%s) - start ))
    sweep="$(grep -m1 '^pre-tune:' "$dir/sweep.log")"
    echo "sweep exit $status in $wall s: $sweep"
    if [[ $status -ne 0 || ! -f "$dir/run/run.xml" ]]; then
        tail -20 "$dir/sweep.log"
        rows+=("| $kernel | sweep failed (exit $status, see $kernel/sweep.log) | | | | | |")
        continue
    fi
    genome="$(python3 - "$dir/run/run.xml" <<'EOF2'
import sys, xml.etree.ElementTree as ET
pre = ET.parse(sys.argv[1]).getroot().find("pre-tune")
print(pre.get("best", "") if pre is not None and pre.get("ran") == "1" else "")
EOF2
)"
    speedup="$(grep -m1 '^parameter tuning alone:' "$dir/sweep.log" | grep -o '([0-9.]*x)$' | tr -d '()')"
    validation="$(grep -m1 '^validation:' "$dir/sweep.log" | sed 's/^validation: *//')"

    build_driver_with_genome "$kernel" original "" "$dir"
    build_driver_with_genome "$kernel" params "$genome" "$dir"
    wait
    driver_runs "$kernel"
    declare -A times=() checks=()
    for which in original params; do
        time_driver "$kernel" "$which" "$dir" || { echo "driver build failed for $which"; tail -5 "$dir/$which.build.log"; continue; }
        times[$which]="${driver_ms[0]}" checks[$which]="$driver_check"
    done
    rows+=("| $kernel | \`$genome\` | ${sweep#pre-tune: } | $wall s | ${speedup:-?} | ${times[original]:-?} / ${times[params]:-?} ($(speed "${times[original]:-0}" "${times[params]:-0}")), ${checks[original]:-?}/${checks[params]:-?} | $validation |")
    unset times checks
done

{
    echo "# Parameter-only baselines (exhaustive sweeps)"
    echo
    echo "- GPU: ${gpu:-none found} (sm_$arch); $(nproc) CPU cores; date: $(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
    echo "- command: \`GI_KERNELS=\"$kernels\" GI_TUNE_MAX=$tune_max${GI_TUNE_SHARD:+ GI_TUNE_SHARD=$GI_TUNE_SHARD}${GI_SWEEP_WITHOUT:+ GI_SWEEP_WITHOUT=\"$GI_SWEEP_WITHOUT\"}${GI_SWEEP_VALUES:+ GI_SWEEP_VALUES=\"$GI_SWEEP_VALUES\"} GI_SEED=$seed bash bench/params-baseline.sh\`"
    echo "- the sweep: \`gi-tool evolve --evaluator cuda --generations 0 --tune-max $tune_max --no-minimise --no-post-tune\`"
    echo "  (every point of the declared --param/--flag genes on the first training case; the best passes the"
    echo "  acceptance rule and is validated on every case); driver ms: CUDA events, median of 50 launches at the"
    echo "  training size; checks: training size and two held-out inputs against the CPU reference (original/params)"
    echo
    echo "| kernel | best parameter genome | sweep | sweep wall time | gi-tool speedup | driver ms original / params, checks | gi-tool validation |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} | tee "$OUT/results.md"
