#!/usr/bin/env bash
# Session 22's device job, for the ONE-GPU kind, the kind issue 44's earlier runs were made on (the
# two-GPU kind's rates do not compare: bench/results/2026-11-29-h200-s21-two-lanes-and-guard-faults.md).
# Run through bench/calls/background.sh; carry .carry with the debs and b.tar.gz = `git archive HEAD`.
# 1. the build;
# 2. the gate's GPU tests, with the two that cover 225cf3b (a write past the end meets the zones
#    before the pages, and the session serves on), and the vec and hoist genes' driver checks;
#    then bench/transform-pays.sh on frame_corr and channel_gamma (issue 46);
# 3. issue 44's rows that guard-page faults made slow in session 21, three runs each at the new code
#    (the zones before the pages, 225cf3b; sessions that have finished starting first, 922ea6c):
#    dp_sweep in both modes, then the made rows of wavefront, matmul, elimination and thermal. Runs
#    5-7 (1-4 are the earlier sessions'); run-major, so a cut leaves whole runs of every kernel.
#   About 30 minutes in all: elimination's and thermal's later runs may be cut.
#   SKIP="tests pays dp made" skips steps by name. DEADLINE_S (default 1560) stops starting runs.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source bench/common.sh
job_start=$(date +%s)
build=/tmp/gi-throughput-build
device_job_build "$build" || exit 1
skip=" ${SKIP:-} "
step() { [[ "$skip" != *" $1 "* ]]; }
gpu_tests() {  # name filter
    local s
    s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter="$2" >"$OUT/gpu-tests-$1.log" 2>&1)
    echo "GPU tests ($1): exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests-$1.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/gpu-tests-$1.log" | head -20
}
corpus_run() {  # name modes(0|1|both) kernels...
    local name="$1" modes="$2" s left
    shift 2
    s=$(date +%s)
    left=$(( ${DEADLINE_S:-1560} - (s - job_start) ))
    GI_BUILD="$build" CORPUS_KERNELS="$*" CORPUS_RUNS="5 6 7" CORPUS_MODES="$modes" THROUGHPUT_SECONDS=110 \
        CORPUS_DEADLINE_S="$left" OUT="$OUT/gate-$name" bash bench/gate-corpus.sh >"$OUT/gate-$name.log" 2>&1
    echo "gate corpus ($name: $*; modes $modes; runs 5-7, $left s left): exit $? in $(( $(date +%s) - s )) s"
    grep '^| ' "$OUT/gate-$name.log" | tail -8
    cat "$OUT/gate-$name"/skipped-gpu*.txt 2>/dev/null
}
step tests && gpu_tests gate 'GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*:GpuVectorLoad.*:GpuHoist.*'
if step pays; then  # the vec and hoist genes on the corpus kernels written for them (a minute each)
    for kernel in frame_corr channel_gamma; do
        s=$(date +%s)
        KERNEL=$kernel bash bench/transform-pays.sh "$build" >"$OUT/pays-$kernel.log" 2>&1
        echo "transform-pays $kernel: exit $? in $(( $(date +%s) - s )) s"
        tail -n 12 "$OUT/pays-$kernel.log"
    done
fi
step dp && corpus_run dp both dp_sweep
step made && corpus_run made 1 wavefront matmul
step made && corpus_run made-more 1 elimination thermal
