#!/usr/bin/env bash
# Where a sanitizer check's time goes (issue 19): gi-worker --once under compute-sanitizer, each
# checker, on the small cases bench/throughput.sh records for the gate, with a list of 1 and of 4
# copies of the original kernel's module. The difference says what a further variant costs in a
# process that already runs; the 1-variant time minus that is the process's fixed cost (start-up,
# CUDA context, first instrumentation). A plain gi-worker run is the baseline.
#
#   OUT=out/sanitizer-cost bash bench/sanitizer-cost.sh      # on the device: needs a GPU and nvcc
#   GI_BUILD=/tmp/gi-throughput-build reuses bench/throughput.sh's build.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/sanitizer-cost}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
build_tools_unless_built stereo_driver corpus_row_filter
work=/tmp/gi-sanitizer-cost
rm -rf "$work" && mkdir -p "$work"
recorder_include="$root/gi-tool/recorder/include"

seconds() { local start end; start=$(date +%s.%N); "$@" >>"$work/runs.log" 2>&1; local rc=$?; end=$(date +%s.%N)
            awk -v a="$start" -v b="$end" -v rc="$rc" 'BEGIN { printf "%.2f%s", b - a, rc == 0 ? "" : "(rc " rc ")" }'; }

{
echo "compute-sanitizer cost per check, gi-worker --once, $(date -u +%Y-%m-%dT%H:%MZ), commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}"
echo "GPU: ${gpu:-none}"
printf '%-12s %-10s %10s %10s %14s\n' kernel checker "1 (s)" "4 (s)" "per more (s)"
for kernel in stereo row_filter; do
    case "$kernel" in
        stereo) file="$root/kernels/stereo/stereo.cu" program="$build/kernels/stereo_driver" function=stereo_kernel
                includes=() args="--pairs 1 --width 160 --height 120 --seed 2000" ;;
        row_filter) file="$root/tests/corpus/row_filter.cu" program="$build/tests/corpus/corpus_row_filter" function=rowFilter
                    includes=(-I "$recorder_include") args="--width 509 --height 250 --frames 1 --seed 11" ;;
    esac
    # shellcheck disable=SC2086
    "$tool" record "$file" --function "$function" "${includes[@]}" --out "$work/$kernel-case" -- "$program" $args \
        >>"$work/record.log" 2>&1
    case_dir="$(ls -d "$work/$kernel-case"/*/ | head -1)"
    nvcc -cubin -arch=sm_90 "${includes[@]}" "$file" -o "$work/$kernel.cubin" >>"$work/nvcc.log" 2>&1
    printf '%s\t\t\t\n' "$work/$kernel.cubin" >"$work/$kernel-1.txt"
    for _ in 1 2 3 4; do printf '%s\t\t\t\n' "$work/$kernel.cubin"; done >"$work/$kernel-4.txt"
    for checker in none memcheck racecheck synccheck; do
        run=("$worker" --once --case "$case_dir" --kernel "$function" --variants)
        [[ "$checker" != none ]] && run=("$sanitizer" --tool "$checker" --error-exitcode 86 --print-limit 20 "${run[@]}")
        one="$(seconds "${run[@]}" "$work/$kernel-1.txt")"
        four="$(seconds "${run[@]}" "$work/$kernel-4.txt")"
        more="$(awk -v a="${one%%(*}" -v b="${four%%(*}" 'BEGIN { printf "%.2f", (b - a) / 3 }')"
        printf '%-12s %-10s %10s %10s %14s\n' "$kernel" "$checker" "$one" "$four" "$more"
    done
    # A variant that removed a barrier (the only kind the gate sends to racecheck): the kernel file
    # without its first __syncthreads(), under racecheck as the gate runs it and with options that
    # leave out the warning-level hazards the gate never counts.
    sed '0,/__syncthreads();/s//\/* barrier removed *\//' "$file" >"$work/$kernel-racy.cu"
    cp "$(dirname "$file")"/*.h* "$work/" 2>/dev/null
    nvcc -cubin -arch=sm_90 "${includes[@]}" -I "$(dirname "$file")" "$work/$kernel-racy.cu" -o "$work/$kernel-racy.cubin" \
        >>"$work/nvcc.log" 2>&1
    printf '%s\t\t\t\n' "$work/$kernel-racy.cubin" >"$work/$kernel-racy-1.txt"
    for _ in 1 2 3 4; do printf '%s\t\t\t\n' "$work/$kernel-racy.cubin"; done >"$work/$kernel-racy-4.txt"
    for options in "" "--racecheck-detect-level error" "--racecheck-report hazard"; do
        # shellcheck disable=SC2086
        run=("$sanitizer" --tool racecheck $options --print-limit 20 "$worker" --once --case "$case_dir" --kernel "$function" --variants)
        one="$(seconds "${run[@]}" "$work/$kernel-racy-1.txt")"
        four="$(seconds "${run[@]}" "$work/$kernel-racy-4.txt")"
        more="$(awk -v a="${one%%(*}" -v b="${four%%(*}" 'BEGIN { printf "%.2f", (b - a) / 3 }')"
        printf '%-12s %-10s %10s %10s %14s  %s\n' "$kernel" "racy" "$one" "$four" "$more" "racecheck ${options:-(as the gate)}"
    done
done
} | tee "$OUT/summary.txt"
cp "$work/runs.log" "$work/record.log" "$work/nvcc.log" "$OUT/" 2>/dev/null
