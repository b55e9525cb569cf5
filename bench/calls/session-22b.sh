#!/usr/bin/env bash
# Session 22's second device job (the one-GPU kind; about 4 minutes, the session's last): wavefront
# with its hand-made gate case, one run at 023d92a (a check waits for a ready session coming back
# rather than a replacement's start-up; the guard zones get as many sessions as memcheck), against
# runs 5-7 at 9c34698 in bench/results/2026-11-29-h200-s22-gate-faults-and-genes.md. Only what the
# run needs is built: gi-tool, gi-worker and wavefront's driver. Writes straight under $OUT, so a
# cut call still brings back what there is.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 1
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source bench/common.sh
build=/tmp/gi-throughput-build
t0=$(date +%s)
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target gi-tool gi-worker wavefront_driver >>"$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
echo "GPU: ${gpu:-none}; built in $(( $(date +%s) - t0 )) s"
GI_BUILD="$build" CORPUS_KERNELS=wavefront CORPUS_RUNS=8 CORPUS_MODES=1 THROUGHPUT_SECONDS=110 \
    OUT="$OUT/gate-made" bash bench/gate-corpus.sh >"$OUT/gate-made.log" 2>&1
echo "gate corpus: exit $?"
grep '^| ' "$OUT/gate-made.log" | tail -3
grep -h '^wavefront' "$OUT"/gate-made/run*/wavefront.log | cut -c1-120
grep -ho 'started in place of one a report ended[^)]*)' "$OUT"/gate-made/run*/wavefront.log
grep -ho 'guard-zones: start-up waited [0-9.]*' "$OUT"/gate-made/run*/wavefront.log
