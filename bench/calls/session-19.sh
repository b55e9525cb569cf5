#!/usr/bin/env bash
# The next session's device job (run through bench/calls/background.sh; carry .carry with the debs,
# b.tar.gz = `git archive HEAD` and rejudge-old.tgz = `git archive 269c876`), in the order its
# results matter, each step's log and results under $OUT:
# 1. the GPU tests (gi_tests 'Gpu*'): the twice-timed original, speed confirmation and minimiser
#    rounds change what the GPU tests' evolve runs choose; GpuThreadCoarsen and GpuSharedStage have
#    never run on a GPU;
# 2. the measurement fixes on the kernels whose finals lost their gains in session 18 (one run each
#    of dp_sweep, elimination, wavefront, no gate case): each run's "best speedup:" line and final
#    genome, against bench/results/2026-11-29-h200-issue-44-gate-corpus-table.md;
# 3. issue 44's rest (bench/calls/issue-44-rest.sh: the rejudge against 269c876, then the rows with
#    the hand-made gate case, run after run).
#   SKIP="tests check" skips steps by name.
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
s=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - s )) s"
if [[ "$skip" != *" tests "* ]]; then
    s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter='Gpu*' >"$OUT/gpu-tests.log" 2>&1)
    echo "GPU tests: exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')"
fi
if [[ "$skip" != *" check "* ]]; then
    s=$(date +%s)
    GI_BUILD="$build" CORPUS_KERNELS="dp_sweep elimination wavefront" CORPUS_RUNS=1 CORPUS_MODES=0 \
        THROUGHPUT_SECONDS=110 CORPUS_DEADLINE_S=100000 OUT="$OUT/check" bash bench/gate-corpus.sh >"$OUT/check.log" 2>&1
    echo "measurement check: exit $? in $(( $(date +%s) - s )) s"
    grep -h "^best speedup:\|^final genome:" "$OUT"/check/run1/*/evolve.log 2>/dev/null | cut -c1-200
fi
GI_BUILD="$build" bash bench/calls/issue-44-rest.sh
