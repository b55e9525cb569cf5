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
build=/tmp/gi-throughput-build
device_job_build "$build" || exit 1
device_job_step tests && device_job_gpu_tests gate 'GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*:GpuVectorLoad.*:GpuHoist.*'
if device_job_step pays; then  # the vec and hoist genes on the corpus kernels written for them (a minute each)
    for kernel in frame_corr channel_gamma; do
        s=$(date +%s)
        KERNEL=$kernel bash bench/transform-pays.sh "$build" >"$OUT/pays-$kernel.log" 2>&1
        echo "transform-pays $kernel: exit $? in $(( $(date +%s) - s )) s"
        tail -n 12 "$OUT/pays-$kernel.log"
    done
fi
device_job_step dp && device_job_corpus dp both "5 6 7" dp_sweep
device_job_step made && device_job_corpus made 1 "5 6 7" wavefront matmul
device_job_step made && device_job_corpus made-more 1 "5 6 7" elimination thermal
