#!/usr/bin/env bash
# What issue 44 still needs on a GPU after session 18 (run through bench/calls/background.sh):
# 1. the rejudge A/B: the verdicts of 269c876 (the tree the issue measured) against this tree's, on
#    the three gate-corpus kernels the cold-start, held-out and prescreen changes touch most, random
#    variants and the sanitizer gate's wave (bench/rejudge-ab.sh, REJUDGE_SANITIZE);
# 2. the table's rows with the hand-made gate case (CORPUS_MODES=1), run after run over the seven
#    kernels, so each kernel has one run before any has three.
# Results under $OUT/rejudge and $OUT/gate-made; every step's log beside them.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
if [[ "${SKIP_REJUDGE:-0}" != 1 ]]; then
    [[ -f .carry/rejudge-old.tgz ]] || { echo "no .carry/rejudge-old.tgz (git archive 269c876 | gzip >.carry/rejudge-old.tgz here)"; exit 2; }
    s=$(date +%s)
    REJUDGE_OLD=.carry/rejudge-old.tgz REJUDGE_OLD_COMMIT=269c876 REJUDGE_KERNELS="${REJUDGE_KERNELS:-aniso_diffusion dp_sweep wavefront}" \
        REJUDGE_VARIANTS="${REJUDGE_VARIANTS:-100}" REJUDGE_SANITIZE="${REJUDGE_SANITIZE:-40}" OUT="$OUT/rejudge" \
        bash bench/rejudge-ab.sh >"$OUT/rejudge.log" 2>&1
    echo "rejudge: exit $? in $(( $(date +%s) - s )) s"
fi
CORPUS_RUNS="${CORPUS_RUNS:-1 2 3}" CORPUS_MODES=1 THROUGHPUT_SECONDS=110 CORPUS_DEADLINE_S=100000 \
    OUT="$OUT/gate-made" bash bench/gate-corpus.sh >"$OUT/gate-made.log" 2>&1
echo "gate corpus with the hand-made case: exit $?"
