#!/usr/bin/env bash
# Session 23's device job, for the ONE-GPU kind, after session 22's (bench/calls/session-22.sh):
# what issue 44's table and issue 46 still owe that fits in one sitting. Run through
# bench/calls/background.sh; carry .carry with the debs and b.tar.gz = `git archive HEAD`.
# 1. the build;
# 2. issue 44: one run at the new default (guard pages, the zones first, ready sessions first) of
#    each row that had no faults to speak of in session 21 (their 3-run medians were taken with the
#    pages off): aniso_diffusion and lu_update in both modes, then wavefront, thermal and
#    elimination without a gate case. Run 8; about 13 minutes;
# 3. issue 46: the PTX drawer's cost, read from evolve's note (ec3f6df), on conv1d (a corpus kernel
#    whose PTX nvcc's front end makes in a fraction of a second) in a 150 s search with
#    --ptx-edits 0.5, and the same search without PTX edits, for the rate the drawer costs;
# 4. the GPU tests not run in session 22 (all but the gate's).
#   SKIP="corpus drawer rest" skips steps by name. DEADLINE_S (default 1560) stops starting runs.
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
left() { echo $(( ${DEADLINE_S:-1560} - ($(date +%s) - job_start) )); }
corpus_run() {  # name modes(0|1|both) kernels...
    local name="$1" modes="$2" s
    shift 2
    s=$(date +%s)
    GI_BUILD="$build" CORPUS_KERNELS="$*" CORPUS_RUNS=8 CORPUS_MODES="$modes" THROUGHPUT_SECONDS=110 \
        CORPUS_DEADLINE_S="$(left)" OUT="$OUT/gate-$name" bash bench/gate-corpus.sh >"$OUT/gate-$name.log" 2>&1
    echo "gate corpus ($name: $*; modes $modes; run 8): exit $? in $(( $(date +%s) - s )) s"
    grep '^| ' "$OUT/gate-$name.log" | tail -8
    cat "$OUT/gate-$name"/skipped-gpu*.txt 2>/dev/null
}
if step corpus; then
    corpus_run both both aniso_diffusion lu_update
    corpus_run none 0 wavefront thermal elimination
fi
if step drawer && (( $(left) > 420 )); then
    record_args conv1d
    cases=/tmp/gi-drawer/conv1d
    rm -rf "$cases" && mkdir -p "$cases"
    # shellcheck disable=SC2086 # the driver's arguments are words
    "$build/gi-tool/gi-tool" record kernels/conv1d/conv1d.cu --function conv1d --out "$cases/cases" -- \
        "$build/kernels/conv1d_driver" ${train[0]} >"$OUT/drawer-record.log" 2>&1 || tail -5 "$OUT/drawer-record.log"
    for arm in "ptx:--ptx-edits 0.5" "lines:"; do
        s=$(date +%s)
        # shellcheck disable=SC2086 # the arm's options are words
        "$build/gi-tool/gi-tool" evolve kernels/conv1d/conv1d.cu --function conv1d --tolerance out:abs=1e-5,rel=1e-5 \
            --evaluator cuda --arch sm_90 --cases "$cases/cases" --time-limit 150 --seed 1 --jobs 16 ${arm#*:} \
            --out "$OUT/drawer-${arm%%:*}" >"$OUT/drawer-${arm%%:*}.log" 2>&1
        echo "conv1d, ${arm%%:*}: exit $? in $(( $(date +%s) - s )) s"
        grep -E '^evaluated per minute|^note: PTX edits' "$OUT/drawer-${arm%%:*}.log"
        rm -f "$OUT/drawer-${arm%%:*}"/history.sqlite*
    done
fi
if step rest; then
    s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter='Gpu*:-GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*:GpuVectorLoad.*:GpuHoist.*' \
        >"$OUT/gpu-tests-rest.log" 2>&1)
    echo "GPU tests (rest): exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests-rest.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/gpu-tests-rest.log" | head -20
fi
