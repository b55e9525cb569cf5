#!/usr/bin/env bash
# Do the gate's guard pages pay? (The default since session 20; --no-gate-guard-pages turns them
# off.) The gate corpus's wavefront with its hand-made 40 x 37 gate case, where memcheck refused 8-10 variants a run for reading past a buffer's end and took 41% of the
# search doing it (bench/results/2026-11-29-h200-s19-rejudge-gate-made-check.md). Runs evolve
# through bench/throughput.sh without and with the switch, alternating, AB_RUNS pairs (default 2),
# same seed and cases, and prints each run's rate, gate share, memcheck seconds and the verdicts
# the guard pages gave. The gate's refusals must not fall: a variant the guard pages pass still
# goes on to memcheck.
#   OUT=/tmp/gp bash bench/guard-pages-ab.sh          # on the device machine
# Env: AB_KERNEL (default wavefront; any gate-corpus kernel), AB_RUNS, THROUGHPUT_SECONDS (default
# 110, as the table), GI_BUILD (a build to reuse).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/guard-pages-ab}"
mkdir -p "$OUT"
kernel="${AB_KERNEL:-wavefront}"
runs="${AB_RUNS:-2}"
seconds="${THROUGHPUT_SECONDS:-110}"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
build_tools_unless_built "${kernel}_driver"
{
    echo "guard pages A/B: $kernel, hand-made gate case, $seconds s searches, seed 1; GPU: ${gpu:-none};" \
         "$(date -u +%Y-%m-%dT%H:%MZ); commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}"
    echo
    echo "| run | guard pages | evaluations a minute | gate share | memcheck s (variant runs) | judged by guard pages | refused in all | final genome |"
    echo "|---|---|---|---|---|---|---|---|"
} >"$OUT/summary.md"
for ((r = 1; r <= runs; ++r)); do
    for arm in off on; do
        # On by default since session 20; off is the hidden --no-gate-guard-pages.
        option=""
        [[ "$arm" == off ]] && option="--no-gate-guard-pages"
        dir="$OUT/run$r-$arm"
        env GI_BUILD="$build" THROUGHPUT_KERNELS="$kernel" THROUGHPUT_SECONDS="$seconds" THROUGHPUT_SANITIZE_CASES=1 \
            THROUGHPUT_REUSE_CASES=1 THROUGHPUT_WORK=/tmp/gi-guard-pages-ab THROUGHPUT_OPTIONS="$option" \
            THROUGHPUT_LABEL="guard pages $arm, run $r" OUT="$dir" bash "$root/bench/throughput.sh" >"$dir.log" 2>&1
        log="$dir/evolve.log"
        row=$(sed -n 4p "$dir/summary.txt" 2>/dev/null)
        rate=$(awk '{ print $4 }' <<<"$row")
        share=$(awk '{ print $8 }' <<<"$row")
        memcheck=$(grep -o 'memcheck [0-9.]* s for [0-9]* variant runs' "$log" | head -1 | sed 's/memcheck \([0-9.]*\) s for \([0-9]*\).*/\1 (\2)/')
        pages=$(grep -c "guard pages found it" "$dir"/*-run.xml 2>/dev/null)
        refused=$(grep -c 'status="sanitizer-error"' "$dir"/*-run.xml 2>/dev/null)
        final=$(grep -m1 '^final genome:' "$log" | sed 's/^final genome: *//' | cut -c1-80)
        echo "| $r | $arm | ${rate:-?} | ${share:-?} | ${memcheck:-?} | ${pages:-0} | ${refused:-0} | ${final:-?} |" >>"$OUT/summary.md"
    done
done
cat "$OUT/summary.md"
