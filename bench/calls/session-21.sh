#!/usr/bin/env bash
# Session 21's device job (run through bench/calls/background.sh; carry .carry with the debs and
# b.tar.gz = `git archive HEAD`). Two lanes on the two-GPU kind, each with its own GPU and half the
# cores (taskset), so lane A's rates read as on the one-GPU kind's 16 cores (evolve --jobs 16):
#
# lane A, GPU 0, cores 0-15: issue 44's table at the new default (guard pages on since 90597dd;
#   since b0db7a4 the prescreen runs the guard zones on every launch of the gate's recording): run 4
#   of six kernels, without a gate case and then with the hand-made one (wavefront first: the
#   prescreen change was made for it).
# lane B, GPU 1, cores 16-31: the GPU tests the default touched; one job of issue 46's edit-kinds
#   table (stereo, PTX arm: the drawer and its prefetch on a GPU for the first time); matmul's run 4
#   in both modes (lane A's seventh kernel); the rest of the GPU tests; the transformation genes of
#   conv1d and pcm_to_float through bench/transform-pays.sh. The 30 minutes may end first.
#
#   SKIP="tests ek matmul rest pays none made" skips steps by name.
#   ONE_GPU=1 runs both lanes one after the other on GPU 0 (the one-GPU kind; about 50 minutes).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source bench/common.sh
build=/tmp/gi-throughput-build
device_job_build "$build" || exit 1
skip=" ${SKIP:-} "
step() { [[ "$skip" != *" $1 "* ]]; }
two=1
[[ "${ONE_GPU:-0}" == 1 || "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]] && two=0
# Pins this (sub)shell and what it starts to the given cores, on the two-GPU kind.
pin_to() {  # cores
    ((two)) && (( $(nproc) >= 32 )) && command -v taskset >/dev/null && taskset -cp "$1" "$BASHPID" >/dev/null
}
gpu_tests() {  # name filter
    local s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter="$2" >"$OUT/gpu-tests-$1.log" 2>&1)
    echo "GPU tests ($1): exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests-$1.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/gpu-tests-$1.log" | head -20
}
corpus_run() {  # mode(none|made) first-gpu kernels...
    local mode="$1" first="$2" flag=0 s=$(date +%s)
    shift 2
    [[ "$mode" == made ]] && flag=1
    GI_BUILD="$build" CORPUS_KERNELS="$*" CORPUS_RUNS=4 CORPUS_MODES="$flag" CORPUS_FIRST_GPU="$first" \
        THROUGHPUT_SECONDS=110 THROUGHPUT_OPTIONS="--jobs 16" CORPUS_DEADLINE_S=100000 \
        OUT="$OUT/gate-$mode-gpu$first" bash bench/gate-corpus.sh >"$OUT/gate-$mode-gpu$first.log" 2>&1
    echo "gate corpus, gate case $mode, run 4 of $*: exit $? in $(( $(date +%s) - s )) s"
    grep '^| ' "$OUT/gate-$mode-gpu$first.log" | tail -7
}

lane_a() {
    step none && corpus_run none 0 wavefront aniso_diffusion dp_sweep thermal lu_update elimination
    step made && corpus_run made 0 wavefront aniso_diffusion dp_sweep thermal lu_update elimination
}
lane_b() {
    local g=$((two ? 1 : 0)) s
    step tests && gpu_tests gate 'GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*'
    if step ek; then
        s=$(date +%s)
        GI_BUILD="$build" EDIT_KERNELS=stereo EDIT_ARMS=ptx EDIT_DEADLINE_S=100000 EDIT_EVOLVE_OPTIONS="--jobs 16" \
            OUT="$OUT/ek" \
            bash bench/edit-kinds.sh >"$OUT/ek.log" 2>&1
        echo "edit kinds (stereo, ptx): exit $? in $(( $(date +%s) - s )) s"
        grep -E '^\||^estimate|^edit kinds' "$OUT/ek.log" | tail -12
    fi
    step matmul && corpus_run none "$g" matmul && corpus_run made "$g" matmul
    step rest && gpu_tests rest 'Gpu*:-GpuEvaluator.*Guard*:GpuRealPrograms.*:GpuSanitizer*:GpuIntegrity.*'
    if step pays; then
        for kernel in conv1d pcm_to_float; do
            s=$(date +%s)
            KERNEL=$kernel bash bench/transform-pays.sh "$build" >"$OUT/pays-$kernel.log" 2>&1
            echo "transform-pays $kernel: exit $? in $(( $(date +%s) - s )) s"
            tail -n 14 "$OUT/pays-$kernel.log"
        done
    fi
}

if ((two)); then
    # Each lane's output goes to its own log, printed as it ends, so the lines do not interleave.
    (pin_to 16-31; export CUDA_VISIBLE_DEVICES=1; lane_b >"$OUT/lane-b.log" 2>&1; echo "lane B ended"; cat "$OUT/lane-b.log") &
    (pin_to 0-15; lane_a >"$OUT/lane-a.log" 2>&1; echo "lane A ended"; cat "$OUT/lane-a.log")
    wait
else
    lane_a
    lane_b
fi
