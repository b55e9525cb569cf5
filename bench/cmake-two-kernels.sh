#!/usr/bin/env bash
# Two registered kernels of one file on a GPU (issue 16, "several registered kernels of one file"):
# configures tests/cmake/two_kernels (a sum in two passes, partial_sums and final_sum in sum.cu, one
# gi_optimize_cuda_kernel() call each) with GI_OPTIMIZE=ON and an empty cache folder and builds it:
# the build records, evolves and accepts each kernel (final_sum's candidate together with
# partial_sums' accepted entry) and compiles one file holding both variants. Then checks:
#   1. both entries were written, each accepted by running the program;
#   2. the generated file holds both genomes, and the program built with it passes its own check
#      (the sum against a double-precision CPU sum) on the sizes it was evolved on and on others;
#   3. each header describes its own kernel's variant (sum --variant);
#   4. a second build does nothing;
#   5. (A/B) evolving a kernel by hand on the recorded cases with NVRTC (the device side of sum.cu
#      and of its headers) and with --nvcc-only, for TWO_KERNELS_AB_SECONDS (30) each.
# Usage (on the device): OUT=out/two-kernels bash bench/cmake-two-kernels.sh   Needs nvcc and a GPU.
# Environment: GI_BUDGET (minutes per kernel, 1), GI_JOBS, OUT.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/two-kernels}"
mkdir -p "$OUT"
budget="${GI_BUDGET:-1}"
jobs="${GI_JOBS:-$(nproc)}"
work=/tmp/gi-two-kernels
rm -rf "$work"
mkdir -p "$work/cache"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
# shellcheck source=bench/summary.sh
source "$root/bench/summary.sh"

unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
row "GPU" "$gpu"
row "date (UTC)" "$(date -u +%Y-%m-%dT%H:%MZ)"
row "commit" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
row "budget" "$budget min per kernel"

build="$work/build"
t0=$(now)
if cmake -S "$root/tests/cmake/two_kernels" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_OPTIMIZE=ON \
        -DGI_TEST_MODE=subdir -DGI_TEST_SOURCE="$root" -DGI_TEST_ARCHS="$arch" -DSUM_CACHE_DIR="$work/cache" \
        -DSUM_BUDGET="$budget" "${prefix_args[@]}" >"$OUT/configure.log" 2>&1; then
    row "configure" "ok ($(since "$t0") s)"
else
    fail "configure" "see configure.log"; tail -30 "$OUT/configure.log"; exit 1
fi
grep "gi-optimize:" "$OUT/configure.log" | sed 's/^-- //' | tee -a "$OUT/summary.txt"

t0=$(now)
if cmake --build "$build" -j "$jobs" --target sum >"$OUT/build.log" 2>&1; then
    row "build (records, evolves both, compiles)" "ok ($(since "$t0") s)"
else
    fail "build (records, evolves both, compiles)" "see build.log ($(since "$t0") s)"; tail -40 "$OUT/build.log"
fi
grep -E "gi-optimize:|gi-tool (record|accept):|^(generations|variants evaluated|evaluated per minute|best speedup|final genome|validation|final check):" \
    "$OUT/build.log" | tee -a "$OUT/summary.txt"
for kernel in partial_sums final_sum; do
    if [[ -f "$work/cache/$kernel.sm_$arch.xml" ]]; then
        row "entry $kernel.sm_$arch.xml" "written"
        cp "$work/cache/$kernel.sm_$arch.xml" "$OUT/"
    elif grep -q "$kernel sm_$arch: the evolved variant is NOT cached" "$OUT/build.log"; then
        row "entry $kernel.sm_$arch.xml" "not written: the acceptance rejected it (see build.log)"
    else
        fail "entry $kernel.sm_$arch.xml" "missing"
    fi
done
accepted=$(grep -c "gi-tool accept: accepted" "$OUT/build.log")
row "acceptances (program run with the candidate)" "$accepted accepted"
generated="$build/gi-optimize/sum/partial_sums+final_sum.sm_$arch.cu"
if [[ -f "$generated" ]]; then
    cp "$generated" "$OUT/"
    row "generated file" "$(head -1 "$generated" | cut -c1-200)"
else
    fail "generated file" "no $generated"
fi
if [[ -x "$build/sum" ]]; then
    "$build/sum" --variant "$arch" >"$OUT/variant.log" 2>&1
    row "headers (sum --variant $arch)" "$(tr '\n' ' ' <"$OUT/variant.log" | cut -c1-200)"
    for args in "--n 3000000" "--n 1000003 --seed 7" "--n 77777777 --seed 5" "--n 1"; do
        # shellcheck disable=SC2086
        if "$build/sum" $args >"$OUT/run.log" 2>&1; then
            row "sum $args" "$(tail -1 "$OUT/run.log")"
        else
            fail "sum $args" "$(tail -2 "$OUT/run.log" | tr '\n' ' ')"
        fi
    done
fi
cmake --build "$build" -j "$jobs" --target sum >"$OUT/rebuild.log" 2>&1
if grep -q "no work to do" "$OUT/rebuild.log"; then
    row "second build, nothing changed" "no work to do"
else
    fail "second build, nothing changed" "$(tail -3 "$OUT/rebuild.log" | tr '\n' ' ')"
fi
# NVRTC on the device side of sum.cu and its headers against nvcc, on the cases the build recorded:
# the same evolution by hand (`gi-tool evolve` with the build's registration file), same seed and
# time, with and without --nvcc-only, for TWO_KERNELS_AB_KERNELS (partial_sums; each pair takes about
# twice TWO_KERNELS_AB_SECONDS plus a minute). TWO_KERNELS_AB_SECONDS=0 skips it.
ab_seconds="${TWO_KERNELS_AB_SECONDS:-30}"
tool="$(find "$build" -type f -name gi-tool -perm -u+x | head -1)"
if [[ "$ab_seconds" != 0 && -x "$tool" ]]; then
    for kernel in ${TWO_KERNELS_AB_KERNELS:-partial_sums}; do
        mapfile -t registration <"$build/gi-optimize/sum/$kernel.registration"
        cases="$build/gi-optimize/sum/evolve.$kernel.sm_$arch"
        for label in nvrtc nvcc; do
            options=()
            [[ "$label" == nvcc ]] && options=(--nvcc-only)
            log="$OUT/ab-$kernel-$label.log"
            "$tool" evolve "${registration[@]}" --evaluator cuda --arch "sm_$arch" --cases "$cases/cases" \
                --held-out "$cases/held-out" --time-limit "$ab_seconds" --seed 1 "${options[@]}" --out "$work/ab-$kernel-$label" \
                >"$log" 2>&1
            rate="$(grep -m1 '^evaluated per minute:' "$log" | sed 's/^evaluated per minute: *//')"
            compiles="$(grep -m1 -o '[0-9]* compiles with [a-z ()]*, [0-9.]* ms each' "$log")"
            row "A/B $kernel, $label" "${rate:-?} | ${compiles:-?} | $(grep -m1 -o 'NVRTC compiles the kernel file.s device side[^;]*;[^;]*' "$log" | cut -c1-150)"
        done
    done
fi
row "result" "$([[ $failures == 0 ]] && echo "all checks passed" || echo "$failures check(s) FAILED")"
exit $((failures > 0))
