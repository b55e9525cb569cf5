#!/usr/bin/env bash
# The cuda evaluator alone, A/B of two builds: `gi-tool cuda-bench` on the same recorded cases with
# the same seed (so the same variants), build A on GPU 0 and build B on GPU 1 at once, then swapped
# (ROUNDS=2), printing each run's variants per minute and per-stage times. Unlike an evolve A/B,
# the searches cannot diverge: every run judges the same variants.
#
#   A_BUILD=/tmp/gi-tt-build-531049e B_BUILD=/tmp/gi-tt-build-after LABELS="531049e after" \
#       CASES=/tmp/gi-tt-work-after/stereo/cases KERNEL=stereo OUT=out/evaluator-trees bash bench/evaluator-trees.sh
# (builds as bench/throughput-trees.sh leaves them; KERNEL names kernels/<KERNEL>/registration.txt;
# VARIANTS, default 200; SEED, default 7; each run at most RUN_LIMIT s, default 80; SANITIZE=N then
# puts the first N correct variants through the sanitizer gate, timed apart: the gate's A/B).
# A run whose output stands still for STALL_S seconds (default 30) gets a dump of its processes
# (state, kernel wait channel, and stacks where gdb is installed) in $OUT/stall-<label>-r<round>.txt.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/evaluator-trees}"
mkdir -p "$OUT"
source "$root/bench/common.sh"
unpack_carried_packages >/dev/null
kernel="${KERNEL:-stereo}"
registration_options "$kernel"
read -r label_a label_b <<<"${LABELS:-A B}"
declare -A build_of=([$label_a]="${A_BUILD:?}" [$label_b]="${B_BUILD:?}")
file="$root/kernels/$kernel/$(awk '$1 == "kernel" { print $2 }' "$root/kernels/$kernel/registration.txt")"
sanitize=()
[[ -n "${SANITIZE:-}" ]] && sanitize=(--sanitize "$SANITIZE")
# Processes under `pid`, each with its state and wait channel, and every thread's stack (gdb).
dump_stall() {  # pid file
    {
        echo "== $(date -u +%H:%M:%S) output unchanged for ${STALL_S:-30} s"
        ps -eo pid,ppid,stat,wchan:32,etimes,args --forest | grep -E "gi-tool|gi-worker|nvcc|cicc|ptxas|sanitizer" | grep -v grep
        local p
        for p in $(pgrep -f "gi-tool|gi-worker"); do
            echo "-- $p: $(tr '\0' ' ' </proc/$p/cmdline | cut -c1-160)"
            for t in /proc/$p/task/*; do echo "   thread ${t##*/} $(cat $t/comm) $(cat $t/wchan 2>/dev/null)"; done
            command -v gdb >/dev/null && timeout 30 gdb -p "$p" -batch -ex "thread apply all bt 12" 2>/dev/null | grep -E "^#|^Thread"
        done
    } >>"$2" 2>&1
}
bench() {  # label gpu round
    local log="$OUT/bench-$1-r$3.txt"
    CUDA_VISIBLE_DEVICES=$2 timeout "${RUN_LIMIT:-80}" "${build_of[$1]}/gi-tool/gi-tool" cuda-bench "$file" "${options[@]}" \
        --arch "sm_${ARCH:-90}" --cases "${CASES:?}" --variants "${VARIANTS:-200}" --batch 100 --seed "${SEED:-7}" \
        "${sanitize[@]}" >"$log" 2>&1 &
    local pid=$! size=-1 still=0
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        local now; now=$(stat -c %s "$log")
        if [[ "$now" == "$size" ]]; then
            still=$((still + 1))
            ((still == ${STALL_S:-30})) && dump_stall "$pid" "$OUT/stall-$1-r$3.txt"
        else
            size=$now still=0
        fi
    done
    wait "$pid"
    echo "exit $?" >>"$log"
}
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
    bench "$label_a" $(((r + 1) % 2)) "$r" &
    bench "$label_b" $((r % 2)) "$r" &
    wait
done
for f in "$OUT"/bench-*.txt; do
    echo "== $(basename "$f")"
    grep -E "variants per minute|run stages|statuses|sanitizer gate:|still waiting|^exit" "$f" | cut -c1-240
done
for f in "$OUT"/stall-*.txt; do [[ -f "$f" ]] && { echo "== $(basename "$f")"; head -80 "$f"; }; done
