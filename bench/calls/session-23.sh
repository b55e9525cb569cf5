#!/usr/bin/env bash
# Session 23's device job, for the ONE-GPU kind (issue 44's earlier runs were made on it). Run
# through bench/calls/background.sh; carry .carry with the debs and b.tar.gz = `git archive HEAD`.
# 1. the build;
# 2. the gate's GPU tests, with AGuardZonesWorkerKeepsTheCasesItCheckedOpen (gi-worker keeps up to
#    8 cases open; the pools hand a check to a session that holds its case);
# 3. wavefront with its hand-made gate case, runs 9-11: session 22 measured 1,694 a minute and 23%
#    (runs 5-7 at 9c34698) and 1,697 / 21% (run 8 at 023d92a), where its prescreen moved every guard
#    session across the 5 gate cases, each case open took about 113 ms, and each case waited for
#    its slowest check, a fault (bench/results/2026-11-29-h200-s22-gate-faults-and-genes.md). Since:
#    the kept cases (15b6a44) and each would-be parent through the cases on its own (e3ba775);
# 4. runs 5-7 of elimination and thermal made, the fault rows session 22 had no time for;
# 5. if time is left, run 8 of the rows without faults (session-24.sh's first step).
#   SKIP="tests wavefront more rows" skips steps by name. DEADLINE_S (default 1560) stops starting runs.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source bench/common.sh
build=/tmp/gi-throughput-build
device_job_build "$build" || exit 1
device_job_step tests && device_job_gpu_tests gate 'GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*'
device_job_step wavefront && device_job_corpus made 1 "9 10 11" wavefront
device_job_step more && device_job_corpus made-more 1 "5 6 7" elimination thermal
if device_job_step rows; then
    device_job_corpus both both 8 aniso_diffusion lu_update
    device_job_corpus none 0 8 wavefront thermal elimination
fi
