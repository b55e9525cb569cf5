#!/usr/bin/env bash
# Can racecheck checks run side by side? (issue 19: racecheck is nearly all of stereo's gate, about
# 0.4 s a barrier-removing would-be parent on a 9-block gate case, and more sessions do not help.)
#   1. racecheck's own options (from its --help) and the time of one stereo check under each:
#      gi-worker --once on the consumer example's 160 x 120 gate case, 1 and 9 copies of the
#      original's module (the difference / 8: one more check in a running session);
#   2. racecheck_streams.cu: a stereo-shaped kernel (few blocks, a long loop of shared-memory
#      accesses between barriers) launched 8 times on one stream or on 8 streams of one process,
#      and in 1 or 4 processes at once: does the tool, or the GPU, run them one after another?
#   3. the same stereo checks in 1 and 4 processes at once;
#   4. sections 2 and 3 again with the processes as clients of a private CUDA MPS server (its pipe
#      and log folders under /tmp; stopped at the end), which lets kernels of several processes
#      share the GPU's SMs instead of taking turns.
#
#   5. the stereo checks (9 modules) in one process, one after another or side by side (gi-worker
#      --once --side-by-side 9, as a session's side-by-side request runs them), each with the
#      driver's lazy and eager module loading (CUDA_MODULE_LOADING): where a check's time goes.
#   6. as 5 (lazy loading) for 9 different modules (stereo.cu built with other STORE_*/USE_MUL24
#      settings, the same 9-block launch), and for 9 copies of a 300-block launch (BLOCK_W 32,
#      ROWS_PER_THREAD 2): do different programs, or a launch that fills the GPU, still overlap?
#
#   OUT=out/racecheck-concurrency bash bench/racecheck-concurrency.sh   # on the device: GPU, nvcc
#   GI_BUILD reuses a build (bench/throughput.sh's: /tmp/gi-throughput-build).
#   RACECHECK_SECTIONS="1 5" runs only those sections (default: all).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/racecheck-concurrency}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
build_tools_unless_built stereo_driver
work=/tmp/gi-racecheck-concurrency
rm -rf "$work" && mkdir -p "$work"
log="$work/runs.log"
sections=" ${RACECHECK_SECTIONS:-1 2 3 4 5 6} "
section() { [[ "$sections" == *" $1 "* ]]; }

# Wall seconds of a command (its output to runs.log); "(rc N)" after a failure.
seconds() {
    local start end rc
    start=$(date +%s.%N); timeout 120 "$@" >>"$log" 2>&1; rc=$?; end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" -v rc="$rc" 'BEGIN { printf "%.2f%s", b - a, rc == 0 ? "" : "(rc " rc ")" }'
}
# Wall seconds of P copies of a command started at once.
seconds_parallel() {  # P command...
    local p="$1" start end; shift
    start=$(date +%s.%N)
    for ((i = 0; i < p; ++i)); do timeout 120 "$@" >>"$log" 2>&1 & done
    wait
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}

"$tool" record "$root/kernels/stereo/stereo.cu" --function stereo_kernel --out "$work/case" -- \
    "$build/kernels/stereo_driver" --pairs 1 --width 160 --height 120 --seed 2000 >"$work/record.log" 2>&1 ||
    { cat "$work/record.log"; exit 1; }
case_dir="$(ls -d "$work/case"/*/ | head -1)"
nvcc -cubin -arch="sm_$arch" "$root/kernels/stereo/stereo.cu" -o "$work/stereo.cubin" || exit 1
nvcc -O2 -arch="sm_$arch" "$root/bench/racecheck_streams.cu" -o "$work/racecheck_streams" || exit 1
for n in 1 5 9; do for ((i = 0; i < n; ++i)); do printf '%s\t\t\t\n' "$work/stereo.cubin"; done >"$work/list-$n.txt"; done
# gi-worker on the stereo case, the list last (a command compute-sanitizer can start: no shell function).
stereo=("$worker" --once --case "$case_dir" --kernel stereo_kernel --variants)

"$sanitizer" --version >"$OUT/sanitizer-version.txt" 2>&1
"$sanitizer" --help >"$OUT/sanitizer-help.txt" 2>&1
mapfile -t racecheck_options < <(grep -oE '^ *--racecheck-[a-z-]+' "$OUT/sanitizer-help.txt" | tr -d ' ' | sort -u)

blocks=9 iterations="${RACECHECK_ITERATIONS:-4000}"
synthetic() {  # label, then a prefix (empty or env settings)
    local label="$1"; shift
    printf '%-34s %8s\n' "$label: plain, serial" "$(seconds "$@" "$work/racecheck_streams" serial 8 $blocks "$iterations")"
    for mode in serial streams; do
        printf '%-34s %8s\n' "$label: racecheck, $mode, 1 process" \
            "$(seconds "$@" "$sanitizer" --tool racecheck "$work/racecheck_streams" $mode 8 $blocks "$iterations")"
    done
    printf '%-34s %8s\n' "$label: racecheck, serial, 4 processes" \
        "$(seconds_parallel 4 "$@" "$sanitizer" --tool racecheck "$work/racecheck_streams" serial 8 $blocks "$iterations")"
    grep -E '^(serial|streams):' "$log" | tail -7 | sed "s/^/    $label: /"
}
stereo_parallel() {  # label, then a prefix
    local label="$1"; shift
    for p in 1 4; do
        printf '%-34s %8s\n' "$label: stereo x5, $p process(es)" \
            "$(seconds_parallel "$p" "$@" "$sanitizer" --tool racecheck --racecheck-detect-level error "${stereo[@]}" "$work/list-5.txt")"
    done
}

{
echo "racecheck side by side, $(date -u +%Y-%m-%dT%H:%MZ), commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}"
echo "GPU: ${gpu:-none}; $(grep -m1 -i version "$OUT/sanitizer-version.txt")"
echo "racecheck's options in --help: ${racecheck_options[*]}"
if section 1; then
echo
echo "== 1. one stereo check under racecheck (gi-worker --once; 160 x 120 gate case), seconds"
printf '%-48s %8s %8s %12s\n' options "1 copy" "9 copies" "per more"
variants=("--racecheck-detect-level error")
for option in "${racecheck_options[@]}"; do
    case "$option" in
        --racecheck-report) variants+=("--racecheck-detect-level error --racecheck-report hazard") ;;
        --racecheck-num-hazards) variants+=("--racecheck-detect-level error --racecheck-num-hazards 256") ;;
        --racecheck-memcpy-async) variants+=("--racecheck-detect-level error --racecheck-memcpy-async no") ;;
        --racecheck-num-workers) variants+=("--racecheck-detect-level error --racecheck-num-workers 1"
                                            "--racecheck-detect-level error --racecheck-num-workers 4") ;;
    esac
done
variants+=("--racecheck-detect-level error --kernel-name kns=stereo_kernel")
for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    one="$(seconds "$sanitizer" --tool racecheck $v "${stereo[@]}" "$work/list-1.txt")"
    # shellcheck disable=SC2086
    nine="$(seconds "$sanitizer" --tool racecheck $v "${stereo[@]}" "$work/list-9.txt")"
    printf '%-48s %8s %8s %12s\n' "$v" "$one" "$nine" "$(awk -v a="${one%%(*}" -v b="${nine%%(*}" 'BEGIN { printf "%.3f", (b - a) / 8 }')"
done
printf '%-48s %8s %8s\n' "(no sanitizer)" "$(seconds "${stereo[@]}" "$work/list-1.txt")" "$(seconds "${stereo[@]}" "$work/list-9.txt")"
fi
if section 2; then
echo
echo "== 2. racecheck_streams: 8 launches of $blocks blocks x $iterations iterations, wall seconds"
synthetic "no MPS"
fi
if section 3; then
echo
echo "== 3. stereo checks in processes at once (each: start-up + 5 checks), wall seconds"
stereo_parallel "no MPS"
fi
if section 4; then
echo
echo "== 4. the same as clients of a private MPS server"
export CUDA_MPS_PIPE_DIRECTORY="$work/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$work/mps-log"
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d >>"$log" 2>&1; then
    trap 'echo quit | nvidia-cuda-mps-control >/dev/null 2>&1' EXIT
    synthetic "MPS"
    stereo_parallel "MPS"
    echo quit | nvidia-cuda-mps-control >>"$log" 2>&1
    trap - EXIT
    echo "MPS server log (tail):"; tail -5 "$CUDA_MPS_LOG_DIRECTORY/control.log" 2>/dev/null | sed 's/^/    /'
else
    echo "nvidia-cuda-mps-control -d failed (see runs.log)"
fi
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi
if section 5; then
echo
echo "== 5. 9 stereo modules in one racecheck process: wall seconds (gi-worker's own split, ms)"
for loading in LAZY EAGER; do
    for mode in "one at a time" "side by side"; do
        extra=(--print-times 1)
        [[ "$mode" == "side by side" ]] && extra+=(--side-by-side 9)
        for n in 1 9; do
            wall="$(seconds env CUDA_MODULE_LOADING=$loading "$sanitizer" --tool racecheck --racecheck-detect-level error \
                      "${stereo[@]}" "$work/list-$n.txt" "${extra[@]}")"
            printf '%-6s %-14s %d modules %8s   %s\n' "$loading" "$mode" "$n" "$wall" \
                "$(grep -o 'module loads.*' "$log" | tail -1)"
        done
    done
done
fi
if section 6; then
echo
echo "== 6. 9 modules in one racecheck process, lazy loading: different programs; a 300-block launch"
: >"$work/list-distinct.txt"
for mul in 1 0; do for pixel in 0 1 2; do for ssd in 0 1; do
    [[ $(grep -c . "$work/list-distinct.txt") -ge 9 ]] && break
    cubin="$work/stereo-$mul$pixel$ssd.cubin"
    nvcc -cubin -arch="sm_$arch" -DUSE_MUL24=$mul -DSTORE_DISPARITY_PIXEL=$pixel -DSTORE_MIN_SSD=$ssd \
        "$root/kernels/stereo/stereo.cu" -o "$cubin" && printf '%s\t\t\t\n' "$cubin" >>"$work/list-distinct.txt"
done; done; done
nvcc -cubin -arch="sm_$arch" -DBLOCK_W=32 -DROWS_PER_THREAD=2 "$root/kernels/stereo/stereo.cu" -o "$work/stereo-wide.cubin"
for ((i = 0; i < 9; ++i)); do printf '%s\t5,60,1\t32,1,1\t\n' "$work/stereo-wide.cubin"; done >"$work/list-wide.txt"
echo "distinct modules: $(grep -c . "$work/list-distinct.txt") ($(md5sum "$work"/stereo-[01]*.cubin | cut -c1-32 | sort -u | wc -l) distinct files)"
for list in distinct wide; do
    for mode in "one at a time" "side by side"; do
        extra=(--print-times 1)
        [[ "$mode" == "side by side" ]] && extra+=(--side-by-side 9)
        wall="$(seconds "$sanitizer" --tool racecheck --racecheck-detect-level error "${stereo[@]}" "$work/list-$list.txt" "${extra[@]}")"
        printf '%-9s %-14s %8s   %s\n' "$list" "$mode" "$wall" "$(grep -o 'module loads.*' "$log" | tail -1)"
    done
done
fi
} 2>&1 | tee "$OUT/racecheck-concurrency.txt"
grep -E 'ERROR|error|rc [0-9]' "$log" | head -20 >"$OUT/errors.txt"
cp "$log" "$OUT/runs.log"
