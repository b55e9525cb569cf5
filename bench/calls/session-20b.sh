#!/usr/bin/env bash
# Session 20's second device job: are the guard pages' refusals real? The guard-pages A/B
# (session-20.sh) refused 31 wavefront variants with --gate-guard-pages against 11 without, and 4
# variants the run without them let through the gate. Here the same 48 genomes (refused in either run,
# and 7 let through by both) go through the gate as one wave on the hand-made gate case, once with
# the switch ("old") and once without ("new"): bench/rejudge-ab.sh, REJUDGE_OLD_OPTIONS.
# The wave runs on each of the gate case's launches (--sanitize-every-gate-case): its first launch
# alone (the first try, 48ed6b1) reaches no partial tile, and refused nothing in either arm.
# Carry .carry with b.tar.gz and gp-genomes/wavefront.genomes (from the A/B's run records).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export PATH="/usr/local/cuda/bin:$PATH"
s=$(date +%s)
THROUGHPUT_SANITIZE_CASES=1 REJUDGE_OLD_OPTIONS="--gate-guard-pages" REJUDGE_RUNS="old new" REJUDGE_KERNELS=wavefront \
    REJUDGE_GENOMES_DIR="$root/.carry/gp-genomes" REJUDGE_VARIANTS=48 REJUDGE_SANITIZE=48 REJUDGE_SANITIZE_OPTIONS=--sanitize-every-gate-case OUT="$OUT/rejudge" \
    bash bench/rejudge-ab.sh >"$OUT/rejudge.log" 2>&1
echo "rejudge: exit $? in $(( $(date +%s) - s )) s"
tail -30 "$OUT/rejudge.log"
