#!/usr/bin/env bash
# Session 20's third device job: wavefront's rows with the hand-made gate case and
# --gate-guard-pages, runs 2 and 3 (run 1 is the "on" run of session-20.sh's guard-pages A/B, the
# same settings), so issue 44's wavefront row has three runs should the switch become the default.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export PATH="/usr/local/cuda/bin:$PATH"
s=$(date +%s)
THROUGHPUT_OPTIONS="--gate-guard-pages" CORPUS_KERNELS=wavefront CORPUS_RUNS="2 3" CORPUS_MODES=1 THROUGHPUT_SECONDS=110 \
    CORPUS_DEADLINE_S=100000 OUT="$OUT/gate-made-gp" bash bench/gate-corpus.sh >"$OUT/gate-made-gp.log" 2>&1
echo "wavefront with guard pages, runs 2 and 3: exit $? in $(( $(date +%s) - s )) s"
tail -8 "$OUT/gate-made-gp.log"
