#!/usr/bin/env bash
# Session 21's device job (run through bench/calls/background.sh; carry .carry with the debs and
# b.tar.gz = `git archive HEAD`), in the order its results matter:
# 1. the build;
# 2. the GPU tests the guard pages' new default touched (the gate's, and GpuRealPrograms' struct of
#    pointers relocated into paged buffers);
# 3. issue 44's table at the new default (guard pages on since 90597dd; since b0db7a4 the prescreen
#    runs the guard zones on every launch of the gate's recording): one more run of every kernel,
#    without a gate case (the large training cases in the guard-zones run now sit in mapped
#    granules) and then with the hand-made one;
# 4. the rest of the GPU tests, last: the 30 minutes may end first.
#   SKIP="tests none made rest" skips steps by name.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source bench/common.sh
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
build=/tmp/gi-throughput-build
skip=" ${SKIP:-} "
step() { [[ "$skip" != *" $1 "* ]]; }
s=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - s )) s"
gpu_tests() {  # name filter
    local s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter="$2" >"$OUT/gpu-tests-$1.log" 2>&1)
    echo "GPU tests ($1): exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests-$1.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/gpu-tests-$1.log" | head -20
}
step tests && gpu_tests gate 'GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*'
for mode in none:0 made:1; do
    step "${mode%%:*}" || continue
    kernels="aniso_diffusion dp_sweep wavefront thermal lu_update elimination matmul"
    s=$(date +%s)
    GI_BUILD="$build" CORPUS_KERNELS="$kernels" CORPUS_RUNS=4 CORPUS_MODES="${mode#*:}" THROUGHPUT_SECONDS=110 \
        CORPUS_DEADLINE_S=100000 OUT="$OUT/gate-${mode%%:*}" bash bench/gate-corpus.sh >"$OUT/gate-${mode%%:*}.log" 2>&1
    echo "gate corpus, gate case ${mode%%:*}, run 4 at the new default: exit $? in $(( $(date +%s) - s )) s"
    grep '^| ' "$OUT/gate-${mode%%:*}.log" | tail -7
done
step rest && gpu_tests rest 'Gpu*:-GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*'
