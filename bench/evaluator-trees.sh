#!/usr/bin/env bash
# The cuda evaluator alone, A/B of two builds: `gi-tool cuda-bench` on the same recorded cases with
# the same seed (so the same variants), build A on GPU 0 and build B on GPU 1 at once, then swapped
# (ROUNDS=2), printing each run's variants per minute and per-stage times. Unlike an evolve A/B,
# the searches cannot diverge: every run judges the same variants.
#
#   A_BUILD=/tmp/gi-tt-build-531049e B_BUILD=/tmp/gi-tt-build-after LABELS="531049e after" \
#       CASES=/tmp/gi-tt-work-after/stereo/cases KERNEL=stereo OUT=out/evaluator-trees bash bench/evaluator-trees.sh
# (builds as bench/throughput-trees.sh leaves them; KERNEL names kernels/<KERNEL>/registration.txt;
# VARIANTS, default 200; SEED, default 7; each run at most RUN_LIMIT s, default 80).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/out/evaluator-trees}"
mkdir -p "$OUT"
source "$root/bench/common.sh"
unpack_carried_packages >/dev/null
kernel="${KERNEL:-stereo}"
registration_options "$kernel"
read -r label_a label_b <<<"${LABELS:-A B}"
declare -A build_of=([$label_a]="${A_BUILD:?}" [$label_b]="${B_BUILD:?}")
file="$root/kernels/$kernel/$(awk '$1 == "kernel" { print $2 }' "$root/kernels/$kernel/registration.txt")"
bench() {  # label gpu round
    CUDA_VISIBLE_DEVICES=$2 timeout "${RUN_LIMIT:-80}" "${build_of[$1]}/gi-tool/gi-tool" cuda-bench "$file" "${options[@]}" \
        --arch "sm_${ARCH:-90}" --cases "${CASES:?}" --variants "${VARIANTS:-200}" --batch 100 --seed "${SEED:-7}" \
        >"$OUT/bench-$1-r$3.txt" 2>&1
    echo "exit $?" >>"$OUT/bench-$1-r$3.txt"
}
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
    bench "$label_a" $(((r + 1) % 2)) "$r" &
    bench "$label_b" $((r % 2)) "$r" &
    wait
done
for f in "$OUT"/bench-*.txt; do
    echo "== $(basename "$f")"
    grep -E "variants per minute|run stages|statuses|^exit" "$f" | cut -c1-240
done
