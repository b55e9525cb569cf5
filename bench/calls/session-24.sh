#!/usr/bin/env bash
# Session 24's device job, for the ONE-GPU kind, after session 23's (bench/calls/session-23.sh):
# what issue 44's table and issue 46 still owe that fits in one sitting. Run through
# bench/calls/background.sh; carry .carry with the debs and b.tar.gz = `git archive HEAD`.
# 1. the build;
# 2. issue 44: one run at the new default (guard pages, the zones first, ready sessions first) of
#    each row that had no faults to speak of in session 21 (their 3-run medians were taken with the
#    pages off): aniso_diffusion and lu_update in both modes, then wavefront, thermal and
#    elimination without a gate case. Run 8; about 13 minutes;
# 3. issue 44's verdicts: the gate changed since session 19's rejudge (the zones' copy first, kept
#    cases, each would-be parent through the gate cases on its own, one working copy), so the same
#    A/B against 269c876 again (bench/rejudge-ab.sh with the gate's wave; carry
#    .carry/rejudge-old.tgz = `git archive 269c876 | gzip`), this build once ("old new"). The guard
#    pages may refuse more than 269c876's memcheck did: reads that land in a neighbouring buffer;
# 4. issue 46: the PTX drawer's cost, read from evolve's note (ec3f6df), on conv1d (a corpus kernel
#    whose PTX nvcc's front end makes in a fraction of a second) in a 150 s search with
#    --ptx-edits 0.5, and the same search without PTX edits, for the rate the drawer costs;
# 5. the GPU tests not run in sessions 22 and 23 (all but the gate's).
#   SKIP="corpus rejudge drawer rest" skips steps by name. DEADLINE_S (default 1560) stops starting runs.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source bench/common.sh
build=/tmp/gi-throughput-build
device_job_build "$build" || exit 1
if device_job_step corpus; then
    device_job_corpus both both 8 aniso_diffusion lu_update
    device_job_corpus none 0 8 wavefront thermal elimination
fi
if device_job_step rejudge && [[ -f .carry/rejudge-old.tgz ]] && (( $(device_job_seconds_left) > 600 )); then
    s=$(date +%s)
    REJUDGE_OLD=.carry/rejudge-old.tgz REJUDGE_OLD_COMMIT=269c876 REJUDGE_KERNELS="dp_sweep wavefront" \
        REJUDGE_VARIANTS=100 REJUDGE_SANITIZE=40 REJUDGE_RUNS="old new" GI_BUILD="$build" OUT="$OUT/rejudge" \
        bash bench/rejudge-ab.sh >"$OUT/rejudge.log" 2>&1
    echo "rejudge: exit $? in $(( $(date +%s) - s )) s"
    grep '^| ' "$OUT/rejudge/rejudge.md" 2>/dev/null | tail -12
fi
if device_job_step drawer && (( $(device_job_seconds_left) > 420 )); then
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
device_job_step rest &&
    device_job_gpu_tests rest 'Gpu*:-GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*:GpuVectorLoad.*:GpuHoist.*'
