#!/usr/bin/env bash
# One device call for an evaluator and gate A/B of two trees on a two-GPU machine: builds both (the
# old one from a tar.gz of its tree, carried in .carry), records the stereo kernel's cases once with
# the new build, then bench/evaluator-trees.sh: `gi-tool cuda-bench` on the same 200 variants
# (ROUNDS rounds, GPUs swapped each round), and again with SANITIZE variants through the sanitizer
# gate (GATE_ROUNDS rounds). Every run is watched for stalls (evaluator-trees.sh).
#
#   OLD_TAR=.carry/old-531049e.tar.gz LABELS="531049e after" ROUNDS=4 GATE_ROUNDS=2 SANITIZE=40 \
#       OUT=$OUT bash bench/evaluator-ab-gpu.sh        (run: carry [".carry"], kind nvidia-h200-x2)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/evaluator-ab}"
mkdir -p "$OUT"
source "$root/bench/common.sh"
unpack_carried_packages >/dev/null
detect_gpu
read -r label_a label_b <<<"${LABELS:-old new}"
old_tree=/tmp/gi-ab-old-tree
rm -rf "$old_tree" && mkdir -p "$old_tree" && tar -xzf "${OLD_TAR:?OLD_TAR: the old tree as a tar.gz}" -C "$old_tree"
# The old tree's own common.sh would unpack the packages again under running programs.
rm -rf "$old_tree/.carry"
new_tree="$root"
if [[ -n "${NEW_TAR:-}" ]]; then
    new_tree=/tmp/gi-ab-new-tree
    rm -rf "$new_tree" && mkdir -p "$new_tree" && tar -xzf "$NEW_TAR" -C "$new_tree"
fi
start=$SECONDS
build_tree "$old_tree" "/tmp/gi-ab-build-$label_a" "$OUT/build-$label_a.log" gi-tool gi-worker stereo_driver & pa=$!
build_tree "$new_tree" "/tmp/gi-ab-build-$label_b" "$OUT/build-$label_b.log" gi-tool gi-worker stereo_driver & pb=$!
wait $pa || { tail -20 "$OUT/build-$label_a.log"; exit 1; }
wait $pb || { tail -20 "$OUT/build-$label_b.log"; exit 1; }
echo "built both in $((SECONDS - start)) s"
build="/tmp/gi-ab-build-$label_b" tool="/tmp/gi-ab-build-$label_b/gi-tool/gi-tool" work=/tmp/gi-ab-work
rm -rf "$work"
record_cases stereo "$OUT" || exit 1
common=(A_BUILD="/tmp/gi-ab-build-$label_a" B_BUILD="/tmp/gi-ab-build-$label_b" LABELS="$label_a $label_b" CASES="$cases" KERNEL=stereo)
echo "== GPUs: $gpu; $(nvidia-smi --query-gpu=index,name --format=csv,noheader | tr '\n' ';') $(date -u +%Y-%m-%dT%H:%MZ)"
echo "== evaluator: ${ROUNDS:-4} rounds"
env "${common[@]}" ROUNDS="${ROUNDS:-4}" SANITIZE= OUT="$OUT/evaluator" bash "$root/bench/evaluator-trees.sh"
echo "== gate: ${GATE_ROUNDS:-2} rounds, --sanitize ${SANITIZE:-40}"
env "${common[@]}" ROUNDS="${GATE_ROUNDS:-2}" SANITIZE="${SANITIZE:-40}" OUT="$OUT/gate" bash "$root/bench/evaluator-trees.sh"
