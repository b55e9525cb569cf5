#!/usr/bin/env bash
# One device call for an A/B of two trees on bench/throughput.sh, the trees given as tar.gz files
# (`git archive --format=tar.gz`, carried in .carry): both are built at once, then
# bench/throughput-trees.sh runs them (side by side on two GPUs, in turn on one), and the rows of
# every run's throughput.tsv are printed as one table.
#
#   A_TAR=.carry/old.tar.gz B_TAR=.carry/new.tar.gz LABELS="ed4b60c 85f7d5c" ROUNDS=1 \
#       THROUGHPUT_KERNELS="aniso_diffusion dp_sweep" THROUGHPUT_SECONDS=60 THROUGHPUT_SANITIZE_CASES=0 \
#       OUT=$OUT bash bench/tree-tars-ab.sh                          (run: carry [".carry"])
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/tree-tars-ab}"
mkdir -p "$OUT"
source "$root/bench/common.sh"
unpack_carried_packages >/dev/null
detect_gpu
read -r label_a label_b <<<"${LABELS:-A B}"
corpus=(aniso_diffusion dp_sweep wavefront thermal lu_update elimination matmul)
build_tar() {  # tar label
    local tree="/tmp/gi-tt-tree-$2"
    rm -rf "$tree" && mkdir -p "$tree" && tar -xzf "$1" -C "$tree" || return 1
    # The tree's own common.sh would unpack the packages again under running programs.
    rm -rf "$tree/.carry"
    build_tree "$tree" "/tmp/gi-tt-build-$2" "$OUT/build-$2.log" gi-tool gi-worker stereo_driver corpus_row_filter \
        corpus_struct_pointers corpus_matrix_mul "${corpus[@]/%/_driver}"
}
start=$(date +%s)
build_tar "${A_TAR:?A_TAR: tree A as a tar.gz}" "$label_a" & pa=$!
build_tar "${B_TAR:?B_TAR: tree B as a tar.gz}" "$label_b" & pb=$!
wait $pa || { echo "tree A ($label_a) did not build:"; tail -20 "$OUT/build-$label_a.log"; exit 1; }
wait $pb || { echo "tree B ($label_b) did not build:"; tail -20 "$OUT/build-$label_b.log"; exit 1; }
echo "both trees built in $(( $(date +%s) - start )) s"
A="/tmp/gi-tt-tree-$label_a" B="/tmp/gi-tt-tree-$label_b" LABELS="$label_a $label_b" OUT="$OUT" \
    THROUGHPUT_REUSE_CASES="${THROUGHPUT_REUSE_CASES:-1}" bash "$root/bench/throughput-trees.sh" >"$OUT/trees.log" 2>&1
echo "tree  round  $(head -1 "$(ls "$OUT"/round*/throughput.tsv | head -1)" 2>/dev/null)"
for tsv in "$OUT"/round*/throughput.tsv; do
    run="$(basename "$(dirname "$tsv")")"  # roundR-LABEL
    tail -n +2 "$tsv" | sed "s/^/${run#*-}\t${run%%-*}\t/"
done
