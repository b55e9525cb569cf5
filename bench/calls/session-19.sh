#!/usr/bin/env bash
# Session 19's device job (run through bench/calls/background.sh; carry .carry with the debs,
# b.tar.gz = `git archive HEAD` and rejudge-old.tgz = `git archive 269c876`). 30 minutes of device
# time do not hold everything issue 44 and the measurement fixes want, so the steps come in the
# order their results matter, and whatever the time leaves out is run by a later session:
# 1. the build;
# 2. the GPU tests (gi_tests 'Gpu*'): the twice-timed original, speed confirmation and minimiser
#    rounds change what the GPU tests' evolve runs choose; GpuThreadCoarsen and GpuSharedStage have
#    never run on a GPU. The older tree for the rejudge builds beside them (the tests time nothing
#    that a verdict depends on);
# 3. the rejudge A/B of issue 44 (269c876 against this tree, with the gate's refusals);
# 4. run 1 of every kernel with the hand-made gate case (issue 44's "with" rows);
# 5. the measurement check: one run each of dp_sweep, elimination, wavefront without a gate case,
#    against bench/results/2026-11-29-h200-issue-44-gate-corpus-table.md (rates, best speedups and
#    final genomes after the fixes);
# 6. runs 2 and 3 with the hand-made gate case.
#   SKIP="tests rejudge made check" skips steps by name.
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
rejudge=(REJUDGE_OLD=.carry/rejudge-old.tgz REJUDGE_OLD_COMMIT=269c876 REJUDGE_KERNELS="aniso_diffusion dp_sweep wavefront"
         REJUDGE_VARIANTS=100 REJUDGE_SANITIZE=40 GI_BUILD="$build" OUT="$OUT/rejudge")
old_build_pid=
if step rejudge; then
    env "${rejudge[@]}" REJUDGE_BUILD_ONLY=1 GI_JOBS=6 bash bench/rejudge-ab.sh >"$OUT/rejudge-build.log" 2>&1 &
    old_build_pid=$!
fi
if step tests; then
    s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter='Gpu*' >"$OUT/gpu-tests.log" 2>&1)
    echo "GPU tests: exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/gpu-tests.log" | head -20
fi
if step rejudge; then
    wait "$old_build_pid"; echo "older tree built: exit $? ($(tail -1 "$OUT/rejudge-build.log"))"
    s=$(date +%s)
    env "${rejudge[@]}" bash bench/rejudge-ab.sh >"$OUT/rejudge.log" 2>&1
    echo "rejudge: exit $? in $(( $(date +%s) - s )) s"
fi
made() {  # runs...
    s=$(date +%s)
    GI_BUILD="$build" CORPUS_RUNS="$*" CORPUS_MODES=1 THROUGHPUT_SECONDS=110 CORPUS_DEADLINE_S=100000 \
        OUT="$OUT/gate-made" bash bench/gate-corpus.sh >>"$OUT/gate-made.log" 2>&1
    echo "gate corpus with the hand-made case, runs $*: exit $? in $(( $(date +%s) - s )) s"
}
step made && made 1
if step check; then
    s=$(date +%s)
    GI_BUILD="$build" CORPUS_KERNELS="dp_sweep elimination wavefront" CORPUS_RUNS=1 CORPUS_MODES=0 \
        THROUGHPUT_SECONDS=110 CORPUS_DEADLINE_S=100000 OUT="$OUT/check" bash bench/gate-corpus.sh >"$OUT/check.log" 2>&1
    echo "measurement check: exit $? in $(( $(date +%s) - s )) s"
    grep -h "^best speedup:\|^final genome:" "$OUT"/check/run1/*/evolve.log 2>/dev/null | cut -c1-200
fi
step made && made 2 3
