#!/usr/bin/env bash
# Peak memory of `gi-tool evolve` against kernel size (issue 18 row 15: it was quadratic, 3.1 GB at
# 20k lines). Generates kernels of 2.5k, 5k, 10k and 20k lines of statements that may all be copied
# over one another (the worst case for the edit space), runs evolve with the fake evaluator for
# GI_GENERATIONS generations (default 2) and prints the peak resident set of each run.
# CPU only. Usage: GI_TOOL=build/tests/gi-tool/gi-tool bash bench/evolve-memory.sh [OUT_FILE]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="${GI_TOOL:-$root/build/tests/gi-tool/gi-tool}"
[[ -x "$tool" ]] || { echo "evolve-memory.sh: no gi-tool at $tool (build it, or set GI_TOOL)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "evolve-memory.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
generations="${GI_GENERATIONS:-2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
report="${1:-/dev/stdout}"

# A kernel of `lines` lines: a loop body of simple statements over the same locals.
make_kernel() {
    local lines="$1" file="$2"
    {
        echo '#define BLOCK 64'
        echo '__global__ void big(float* out, const float* in, int n, float a)'
        echo '{'
        echo '    int i = blockIdx.x * BLOCK + threadIdx.x;'
        echo '    if (i >= n) return;'
        echo '    float acc = 0.0f;'
        echo '    float x = in[i];'
        for ((k = 0; k < lines - 9; ++k)); do
            echo "    acc += x * $((k % 97)).5f; x = x * a + acc;"
        done
        echo '    out[i] = acc;'
        echo '}'
    } > "$file"
}

{
    echo "# gi-tool evolve peak memory vs kernel size"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    echo "- gi-tool: $("$tool" version 2>/dev/null | head -1) at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "- command: \`GI_GENERATIONS=$generations bash bench/evolve-memory.sh\` (fake evaluator, population 20)"
    echo
    echo "| lines | statements | peak RSS (MB) | wall (s) |"
    echo "|---:|---:|---:|---:|"
} > "$report"

for lines in 2500 5000 10000 20000; do
    kernel="$work/big_$lines.cu"
    make_kernel "$lines" "$kernel"
    rules="$("$tool" grammar "$kernel" --summary | sed -nE '1s/.* ([0-9]+) statements.*/\1/p')"
    start=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$work/rss" "$tool" evolve "$kernel" --function big --evaluator fake \
        --generations "$generations" --population 20 --no-pre-tune --no-post-tune --no-minimise \
        --quiet --out "$work/run_$lines" > "$work/log_$lines" 2>&1 ||
        { echo "evolve failed at $lines lines:" >&2; tail -5 "$work/log_$lines" >&2; exit 1; }
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    rss_mb=$(( $(cat "$work/rss") / 1024 ))
    echo "| $lines | $rules | $rss_mb | $wall |" >> "$report"
done
