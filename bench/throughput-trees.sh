#!/usr/bin/env bash
# A/B of two trees on bench/throughput.sh, side by side on a machine with two GPUs: tree A on GPU 0
# and tree B on GPU 1 at the same time (same seed, same search time), then, with ROUNDS=2, again
# with the GPUs swapped, so a difference between the two GPUs favours neither side. Both runs share
# the host's cores, alike. With one GPU the trees run in turn, A first in odd rounds and B first in
# even ones. Prints each run's table and writes them to $OUT/summary.md. A build already in
# /tmp/gi-tt-build-LABEL is reused (bench/gate-case-ab.sh builds both trees there at once).
#
#   A=/tmp/old-tree B=. LABELS="531049e after" ROUNDS=1 THROUGHPUT_KERNELS="stereo row_filter" \
#       THROUGHPUT_SECONDS=45 OUT=out/throughput-trees bash bench/throughput-trees.sh   (carry .carry)
# A tree whose throughput.sh predates THROUGHPUT_WORK is given it on the fly (its copy is edited).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/throughput-trees}"
mkdir -p "$OUT"
a="$(cd "${A:?A names tree A}" && pwd)" b="$(cd "${B:?B names tree B}" && pwd)"
read -r label_a label_b <<<"${LABELS:-A B}"
rounds="${ROUNDS:-1}"
for tree in "$a" "$b"; do
    grep -q THROUGHPUT_WORK "$tree/bench/throughput.sh" ||
        sed -i 's#^work=/tmp/gi-throughput$#work="${THROUGHPUT_WORK:-/tmp/gi-throughput}"#; s#build="${GI_BUILD:-/tmp/gi-throughput-build}"#build="${GI_BUILD:-${THROUGHPUT_BUILD_DIR:-/tmp/gi-throughput-build}}"#' \
            "$tree/bench/throughput.sh"
done
gpus="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)"
((gpus >= 1)) || { echo "needs a GPU (found none)"; exit 1; }

run() {  # tree label gpu round
    local out="$OUT/round$4-$2"
    local reuse=()
    [[ -x "/tmp/gi-tt-build-$2/gi-tool/gi-tool" ]] && reuse=(GI_BUILD="/tmp/gi-tt-build-$2")
    env "${reuse[@]}" CUDA_VISIBLE_DEVICES="$3" THROUGHPUT_WORK="/tmp/gi-tt-work-$2" THROUGHPUT_BUILD_DIR="/tmp/gi-tt-build-$2" \
        THROUGHPUT_LABEL="$2 on GPU $3" OUT="$out" bash "$1/bench/throughput.sh" >"$out.log" 2>&1
}
{
    echo "GPUs: $(nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tr '\n' ';'); date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "kernels: ${THROUGHPUT_KERNELS:-default}; search seconds: ${THROUGHPUT_SECONDS:-60}"
} >"$OUT/summary.md"
for ((r = 1; r <= rounds; r++)); do
    if ((gpus >= 2)); then
        ga=$(( (r + 1) % 2 )) gb=$(( r % 2 ))
        run "$a" "$label_a" "$ga" "$r" &
        run "$b" "$label_b" "$gb" "$r" &
        wait
    elif ((r % 2)); then  # one GPU: the trees in turn, A first in odd rounds, B first in even ones
        run "$a" "$label_a" 0 "$r"; run "$b" "$label_b" 0 "$r"
    else
        run "$b" "$label_b" 0 "$r"; run "$a" "$label_a" 0 "$r"
    fi
    for label in "$label_a" "$label_b"; do
        { echo; echo "## round $r: $label"; echo '```'; cat "$OUT/round$r-$label/summary.txt" 2>/dev/null || tail -20 "$OUT/round$r-$label.log"; echo '```'; } >>"$OUT/summary.md"
    done
done
cat "$OUT/summary.md"
