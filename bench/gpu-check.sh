#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU, builds gi-optimize, runs the whole test suite
# (the GPU tests included), records test cases from an example kernel's driver, runs a short
# `gi-tool evolve --evaluator cuda` and the cuda evaluator's throughput benchmark, and prints a
# summary table last. Logs go to $OUT (default: bench/data/gpu-check, git-ignored).
#
#   bash bench/gpu-check.sh                 # on the device machine: OUT=... set by the caller
#   GI_CHECK_VARIANTS=300 bash bench/gpu-check.sh
#   GI_CHECK_ONLY_BENCH=1 GI_CHECK_BENCH_OPTIONS="--timeout-margin-ms 50" bash bench/gpu-check.sh
#   GI_CHECK_ONLY_TESTS=1 bash bench/gpu-check.sh   # the build and the GPU tests, then the summary
#                                           # (a short check of worker changes)
#   GI_CHECK_GPU_FILTER="GpuEvaluator.*" ...         # only these GPU tests (gtest filter; default Gpu*)
#   GI_CHECK_BENCH_EXTRA="--no-loop-guard;--timeout-margin-ms 30" bash bench/gpu-check.sh
#                                           # the benchmark again under each ';'-separated option set
#                                           # build (no tests), record, cuda-bench with these options
#
# Dependencies missing on the device image (tinyxml2, sqlite) are unpacked from carried .deb files
# (.carry/debs, or ../debs next to a worktree copy) into /tmp/deps; nothing is installed system-wide.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/gpu-check}"
mkdir -p "$OUT"
jobs="${GI_JOBS:-$(nproc)}"
variants="${GI_CHECK_VARIANTS:-1000}"
work=/tmp/gi-check
rm -rf "$work" && mkdir -p "$work"
summary=()
row() { summary+=("$(printf '%-34s %s' "$1" "$2")"); }
step() { echo; echo "==== $*"; }
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"

step "machine"
gpu="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
row "GPU" "${gpu:-none found}"
row "date (UTC)" "$(date -u +%Y-%m-%dT%H:%MZ)"
row "CPU cores" "$jobs"
export PATH="/usr/local/cuda/bin:$PATH"
row "nvcc" "$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' | head -1)"
row "compute-sanitizer" "$(command -v compute-sanitizer >/dev/null && echo present || echo missing)"

step "dependencies"
unpack_carried_packages

step "build"
build="$work/build"
start=$(date +%s)
only_bench="${GI_CHECK_ONLY_BENCH:-0}"
only_tests="${GI_CHECK_ONLY_TESTS:-0}"
tests_option=ON
[[ "$only_bench" == 1 ]] && tests_option=OFF
if cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=$tests_option \
        -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
   cmake --build "$build" -j "$jobs" >>"$OUT/build.log" 2>&1; then
    row "build" "ok ($(( $(date +%s) - start )) s)"
else
    row "build" "FAILED (see build.log)"
    tail -30 "$OUT/build.log"
fi
tool="$build/gi-tool/gi-tool"

step "tests"
if [[ "$only_bench" == 1 ]]; then
    row "tests" "skipped (GI_CHECK_ONLY_BENCH=1)"
elif [[ -x "$build/tests/gi_tests" ]]; then
    # The GPU suites first (the point of this check), then everything else.
    gpu_filter="${GI_CHECK_GPU_FILTER:-Gpu*}"
    (cd "$build/tests" && timeout 400 ./gi_tests --gtest_color=no --gtest_filter="$gpu_filter") >"$OUT/gpu-tests.log" 2>&1
    status=$?
    gpu_ok=$(grep -c '^\[       OK \]' "$OUT/gpu-tests.log")
    gpu_failed=$(grep -c '^\[  FAILED  \] .*(' "$OUT/gpu-tests.log")
    gpu_skipped=$(grep -c '^\[  SKIPPED \] .*(' "$OUT/gpu-tests.log")
    row "GPU tests (gi_tests Gpu*)" "$gpu_ok passed, $gpu_failed failed, $gpu_skipped skipped (exit $status)"
    grep -E '^\[  FAILED  \] .*\(' "$OUT/gpu-tests.log" | head -20
    spread_line="$(grep -m1 '^timing spread:' "$OUT/gpu-tests.log")"
    [[ -n "$spread_line" ]] && row "timing spread (long kernel)" "${spread_line#timing spread: }"
    spread_line="$(grep -m1 '^timing spread in batches of 15:' "$OUT/gpu-tests.log")"
    [[ -n "$spread_line" ]] && row "timing spread (batches of 15)" "${spread_line#timing spread in batches of 15: }"
    if [[ "${GI_CHECK_SKIP_SUITE:-0}" == 1 ]]; then
        row "other tests (gi_tests -Gpu*)" "skipped (GI_CHECK_SKIP_SUITE=1; they need no GPU and run in CI)"
    else
        (cd "$build/tests" && timeout "${GI_CHECK_SUITE_TIMEOUT:-240}" ./gi_tests --gtest_color=no --gtest_filter="-$gpu_filter") >"$OUT/tests.log" 2>&1
        status=$?
        passed=$(grep -c '^\[       OK \]' "$OUT/tests.log")
        failed=$(grep -c '^\[  FAILED  \] .*(' "$OUT/tests.log")
        row "other tests (gi_tests -Gpu*)" "$passed passed, $failed failed (exit $status)"
        grep -E '^\[  FAILED  \] .*\(' "$OUT/tests.log" | head -10
    fi
else
    row "gi_tests" "not built"
fi
if [[ "$only_tests" == 1 ]]; then
    echo
    echo "================ gi-optimize GPU check (GPU tests only) ================"
    printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
    exit 0
fi

step "record test cases"
kernel="" function="" cases="$work/cases" held="$work/held-out" driver_line=""
kernel_options=()
if [[ -x "$build/kernels/stereo_driver" ]]; then
    kernel="$root/kernels/stereo/stereo.cu" function="stereo_kernel"
    # The kernel's registration (params, flags, geometry, tolerances) as gi-tool options.
    while read -r key value; do
        case "$key" in
            param) kernel_options+=(--param "$value") ;;
            flag) kernel_options+=(--flag "$value") ;;
            block) kernel_options+=(--block "$value") ;;
            grid) kernel_options+=(--grid "$value") ;;
            tolerance) kernel_options+=(--tolerance "$value") ;;
        esac
    done < <(grep -v '^#' "$root/kernels/stereo/registration.txt")
    "$tool" record "$kernel" --function "$function" --out "$cases" -- "$build/kernels/stereo_driver" --pairs 4 --seed 1 \
        >"$work/record.log" 2>&1
    "$tool" record "$kernel" --function "$function" --out "$held" -- "$build/kernels/stereo_driver" --pairs 2 --seed 7 \
        --width 480 --height 320 >>"$work/record.log" 2>&1
    driver_line="stereo_driver --pairs 4"
elif [[ -x "$build/gi-tool/recorder/gi_record_demo" ]]; then
    kernel="$root/gi-tool/recorder/demo/blur_kernel.cu" function="blurKernel"
    "$tool" record "$kernel" --function "$function" --out "$cases" -- "$build/gi-tool/recorder/gi_record_demo" --frames 4 \
        --width 1024 --height 512 >"$work/record.log" 2>&1
    "$tool" record "$kernel" --function "$function" --out "$held" -- "$build/gi-tool/recorder/gi_record_demo" --frames 2 \
        --width 640 --height 480 >>"$work/record.log" 2>&1
    driver_line="gi_record_demo --frames 4 --width 1024 --height 512"
fi
ncases=$(ls -d "$cases"/*/ 2>/dev/null | wc -l)
nheld=$(ls -d "$held"/*/ 2>/dev/null | wc -l)
row "recorded cases" "$ncases training + $nheld held out ($driver_line)"
cat "$work/record.log" >>"$OUT/build.log" 2>/dev/null

if [[ -n "$kernel" && $ncases -gt 0 ]]; then
    step "cuda-bench"
    timeout "${GI_CHECK_BENCH_TIMEOUT:-200}" "$tool" cuda-bench "$kernel" --function "$function" "${kernel_options[@]}" --cases "$cases" --variants "$variants" \
        --batch 100 --seed 1 --sanitize "${GI_CHECK_SANITIZE:-3}" ${GI_CHECK_BENCH_OPTIONS:-} >"$OUT/bench.log" 2>&1
    row "cuda-bench options" "${GI_CHECK_BENCH_OPTIONS:-(defaults)}"
    echo "exit $?" >>"$OUT/bench.log"
    cat "$OUT/bench.log"
    for key in "variants per minute" "answered without a run" "compile ms per variant" "run ms per variant" "run stages" "module load" "beside killed workers" "share of wall time" \
               "original kernel" "of which waiting" "restart ms per restart" "bound by" "statuses" "worker restarts" \
               "loop guard" "sanitizer"; do
        line="$(grep -m1 "^$key" "$OUT/bench.log")"
        [[ -n "$line" ]] && row "$key" "${line#*: }"
    done
    # The same benchmark again under other options, for comparison (same variants, same seed).
    IFS=';' read -r -a extra_configs <<<"${GI_CHECK_BENCH_EXTRA:-}"
    n=1
    for config in "${extra_configs[@]}"; do
        [[ -z "${config// /}" ]] && continue
        n=$((n + 1))
        timeout "${GI_CHECK_BENCH_TIMEOUT:-200}" "$tool" cuda-bench "$kernel" --function "$function" "${kernel_options[@]}" --cases "$cases" \
            --variants "$variants" --batch 100 --seed 1 $config >"$OUT/bench-$n.log" 2>&1
        echo "exit $?" >>"$OUT/bench-$n.log"
        for key in "variants per minute" "answered without a run" "compile ms per variant" "run stages" "share of wall time" "restart ms per restart" "statuses" "loop guard"; do
            line="$(grep -m1 "^$key" "$OUT/bench-$n.log")"
            [[ -n "$line" ]] && row "[$config] $key" "${line#*: }"
        done
    done

    step "evolve"
    [[ "$only_bench" == 1 ]] && evolve_help="" || evolve_help="$("$tool" evolve --help 2>&1)"
    if [[ "$evolve_help" == *"replays recorded launches"* && "$evolve_help" != *"not built into"* ]]; then
        start=$(date +%s)
        generations="${GI_CHECK_GENERATIONS:-3}" population="${GI_CHECK_POPULATION:-20}"
        timeout "${GI_CHECK_EVOLVE_TIMEOUT:-240}" "$tool" evolve "$kernel" --function "$function" "${kernel_options[@]}" \
            --evaluator cuda --cases "$cases" --held-out "$held" --generations "$generations" --population "$population" \
            --tune-max 16 --seed 1 --out "$work/evolve" >"$OUT/evolve.log" 2>&1
        status=$?
        row "gi-tool evolve --evaluator cuda" "exit $status in $(( $(date +%s) - start )) s ($generations generations x $population)"
        # The summary's own lines (a generation's progress line mentions "best" and the gate too).
        for key in "best genome" "best speedup" "validation" "note: sanitizer gate"; do
            line="$(grep -m1 "^$key:" "$OUT/evolve.log" | sed "s/^$key: *//")"
            [[ -n "$line" ]] && row "evolve: ${key#note: }" "$line"
        done
        tail -15 "$OUT/evolve.log"
    else
        row "gi-tool evolve --evaluator cuda" "not available in this build"
    fi
fi

# The third-party-style corpus (tests/corpus) evolved as a user would: recorded with gi-tool record,
# a short cuda evolution (the oracle gate, held-out validation on set-aside cases), with -I for
# <gi/launch.hpp> as the program's build has it.
if [[ -x "$build/tests/corpus/corpus_row_filter" && "$only_bench" != 1 ]]; then
    step "corpus"
    recorder_include="$root/gi-tool/recorder/include"
    # program|function|the name its launches are recorded under|program arguments|evolve options.
    # matrix_mul names its launches with the template's arguments ("MatrixMulCUDA<32>"); tile_param's
    # template argument is the parameter TILE, so its launches carry the template's name alone.
    corpus_runs=("row_filter|rowFilter|rowFilter|--width 512 --height 256 --frames 4|"
                 "matrix_mul|MatrixMulCUDA<32>|MatrixMulCUDA<32>|--n 256|"
                 "struct_pointers|axpyStruct|axpyStruct|--n 200000 --launches 4|"
                 "pointer_array|sumRows|sumRows|--rows 6 --n 100000|"
                 "tile_param|transposeTiled<TILE>|transposeTiled|--width 3000 --height 2000|--param TILE=8,16,32 --block-size TILE,TILE --block TILE,TILE --grid ceil(width/TILE),ceil(height/TILE)")
    for entry in "${corpus_runs[@]}"; do
        IFS='|' read -r program cfunction crecorded cargs coptions <<<"$entry"
        cdir="$work/corpus-$program"
        rm -rf "$cdir" && mkdir -p "$cdir"
        record_options=(--function "${cfunction%%<*}" --recorded-name "$crecorded" -I "$recorder_include" --out "$cdir/cases")
        for seed_args in "" "--seed 9"; do
            [[ -n "$seed_args" && "$program" != row_filter && "$program" != matrix_mul ]] && continue
            # shellcheck disable=SC2086
            "$tool" record "$root/tests/corpus/$program.cu" "${record_options[@]}" -- "$build/tests/corpus/corpus_$program" \
                $cargs $seed_args >>"$cdir/record.log" 2>&1
        done
        [[ "$program" == tile_param ]] && "$tool" record "$root/tests/corpus/$program.cu" "${record_options[@]}" -- \
            "$build/tests/corpus/corpus_$program" --width 1111 --height 999 >>"$cdir/record.log" 2>&1
        # shellcheck disable=SC2086
        timeout "${GI_CHECK_EVOLVE_TIMEOUT:-240}" "$tool" evolve "$root/tests/corpus/$program.cu" --function "$cfunction" \
            -I "$recorder_include" --evaluator cuda --cases "$cdir/cases" --generations 2 --population 10 --tune-max 8 \
            --seed 1 $coptions --out "$cdir/run" >"$cdir/evolve.log" 2>&1
        status=$?
        { echo "==== $program ($cfunction): evolve exit $status"; cat "$cdir/record.log" "$cdir/evolve.log"; } >>"$OUT/corpus.log"
        row "corpus $program ($cfunction)" "evolve exit $status; $(grep -m1 -E '^(validation|final check):' "$cdir/evolve.log" | cut -c1-110)"
        grep -m1 "reproduces its recorded outputs" "$cdir/evolve.log" | sed 's/^/    /'
    done
fi

echo
echo "================ gi-optimize GPU check ================"
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
