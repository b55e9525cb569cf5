#!/usr/bin/env bash
# Times given genomes of one example kernel side by side, with the same driver runs, checks and
# sanitizer as bench/evolve-kernels.sh: the original, then each NAME=GENOME in GI_GENOMES. Made to
# answer "what does this one code edit add on top of these parameters?" with one measurement
# (evolution runs on different days measure their params-only and evolved kernels separately).
#
#   GI_KERNEL=stereo GI_GENOMES="params=DPER=4 XHALO=1;edit=DPER=4 XHALO=1 <_stereo.cu_215>" bash bench/time-genomes.sh
#
# Environment: GI_KERNEL (stereo), GI_GENOMES (';'-separated NAME=GENOME), GI_BUILD (reuse a build),
# GI_JOBS. Results: $OUT/results.md, $OUT/<kernel>/ (variant sources, logs).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/time-genomes}"
mkdir -p "$OUT"
kernel="${GI_KERNEL:-stereo}"
jobs="${GI_JOBS:-$(nproc)}"
work=/tmp/gi-time-genomes
rm -rf "$work" && mkdir -p "$work"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages
build_unless_given
detect_gpu

dir="$OUT/$kernel"
mkdir -p "$dir"
registration_options "$kernel"
split_options
names=(original)
build_driver_with_genome "$kernel" original "" "$dir"
IFS=';' read -r -a entries <<<"${GI_GENOMES:-}"
for entry in "${entries[@]}"; do
    [[ "$entry" == *=* ]] || { echo "GI_GENOMES: '$entry' is not NAME=GENOME"; exit 2; }
    name="${entry%%=*}"
    names+=("$name")
    build_driver_with_genome "$kernel" "$name" "${entry#*=}" "$dir"
done
wait

driver_runs "$kernel"
rows=()
for which in "${names[@]}"; do
    time_driver "$kernel" "$which" "$dir" || { rows+=("| $which | build failed (see $kernel/$which.build.log) | | |"); continue; }
    sanitizer="-"
    [[ $which != original ]] && sanitize_driver "$kernel" "$which" "$dir"
    [[ $which == original ]] && original_ms="${driver_ms[0]}"
    rows+=("| $which | \`$(cat "$dir/$which.genome")\` | ${driver_ms[*]} | $(speed "${original_ms:-0}" "${driver_ms[0]:-0}") | $driver_check | $sanitizer |")
done

{
    echo "# Genomes of $kernel timed side by side"
    echo
    echo "- GPU: ${gpu:-none found} (sm_$arch); date: $(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
    echo "- command: \`GI_KERNEL=$kernel GI_GENOMES=\"${GI_GENOMES:-}\" bash bench/time-genomes.sh\`"
    echo "- ms: driver medians (CUDA events) for each run: ${runs[*]}"
    echo
    echo "| name | genome | ms per run | vs original (first run) | checks vs CPU reference | compute-sanitizer |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} | tee "$OUT/results.md"
