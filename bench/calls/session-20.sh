#!/usr/bin/env bash
# Session 20's device job (run through bench/calls/background.sh; carry .carry with the debs and
# b.tar.gz = `git archive HEAD`), in the order its results matter:
# 1. the build;
# 2. the guard-page GPU tests (GpuEvaluator.GuardPagesJudgeReadsJustPastABuffersEnd has never run
#    on a GPU);
# 3. the guard-pages A/B on wavefront with its hand-made gate case (bench/guard-pages-ab.sh, 1 pair):
#    does --gate-guard-pages cut the 41% gate share, with no fewer refusals? Its "off" run has the
#    settings of gate-corpus.sh's CORPUS_MODES=1 rows, so it is wavefront's run 3 there;
# 4. issue 44's rows with the hand-made gate case that session 19 left: run 2 of thermal, lu_update,
#    elimination and matmul, then run 3 of the other six (the default gate, guard pages off);
# 5. the rest of the gate's GPU tests and GpuPtxEdits (the PTX base is nvcc's front end's since
#    7be2580), last: they matter less than the rows and the job may be cut off by the 30 minutes.
#   SKIP="tests ab made" skips steps by name.
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
if step tests; then
    s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter='GpuEvaluator.GuardPages*:GpuEvaluator.GuardZones*' \
        >"$OUT/gpu-tests.log" 2>&1)
    echo "GPU tests: exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]|guard zones, then memcheck' "$OUT/gpu-tests.log" | head -20
fi
if step ab; then
    s=$(date +%s)
    GI_BUILD="$build" AB_RUNS=1 OUT="$OUT/guard-pages" bash bench/guard-pages-ab.sh >"$OUT/guard-pages.log" 2>&1
    echo "guard pages A/B: exit $? in $(( $(date +%s) - s )) s"
    tail -6 "$OUT/guard-pages.log"
fi
if step made; then
    for part in "2:thermal lu_update elimination matmul" "3:aniso_diffusion dp_sweep thermal lu_update elimination matmul"; do
        s=$(date +%s)
        GI_BUILD="$build" CORPUS_KERNELS="${part#*:}" CORPUS_RUNS="${part%%:*}" CORPUS_MODES=1 THROUGHPUT_SECONDS=110 \
            CORPUS_DEADLINE_S=100000 OUT="$OUT/gate-made" bash bench/gate-corpus.sh >>"$OUT/gate-made.log" 2>&1
        echo "gate corpus with the hand-made case, run ${part%%:*}: exit $? in $(( $(date +%s) - s )) s"
    done
fi
if step tests; then
    s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter='GpuSanitizer*:GpuIntegrity.*:GpuPtxEdits*:GpuRealPrograms.*' \
        >"$OUT/gpu-tests-2.log" 2>&1)
    echo "GPU tests (2): exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests-2.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/gpu-tests-2.log" | head -20
fi
