#!/usr/bin/env bash
# Issue 41's evidence: the matrixMul sample of tests/programs (a warm-up launch, then a 300-launch
# timing loop on the same inputs), integrated through gi_optimize_cuda_kernel() and built ON from an
# empty cache by bench/sample-programs-gpu.sh, once per tree given; for each, what the recorder kept
# and what the search saw: every generation's best, the candidates refused at the end (and why), the
# run's count of variants refused for unwritten outputs, and the build's outcome. Run it on the tree
# before a change and after it, on one machine.
#
# Usage (on the device; carry .carry):
#   TREES="before:/tmp/old-tree after:." GI_COMMITS="before:531049e after:abc1234" \
#       OUT=out/oracle-repeats bash bench/oracle-repeats-gpu.sh
# Environment: GI_BUDGET (default 2 minutes), GI_ARCHITECTURES (default: this GPU's alone, so no
# host-macro rule interferes), SAMPLE (default matrixMul; kernel MatrixMulCUDA).
# Output in $OUT: summary.md (one section per tree) and <label>/ (sample-programs-gpu.sh's output).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/oracle-repeats}"
mkdir -p "$OUT"
sample="${SAMPLE:-matrixMul}"
read -r -a trees <<<"${TREES:-after:$root}"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
detect_gpu

commit_of() {  # label
    local pair
    for pair in ${GI_COMMITS:-}; do
        [[ "${pair%%:*}" == "$1" ]] && { echo "${pair#*:}"; return; }
    done
    echo unknown
}

{
    echo "GPU: ${gpu:-none}; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); sample: $sample; budget ${GI_BUDGET:-2} min"
    echo
} >"$OUT/summary.md"

for pair in "${trees[@]}"; do
    label="${pair%%:*}" tree="$(cd "${pair#*:}" && pwd)"
    out="$OUT/$label"
    rm -rf "$out" && mkdir -p "$out"
    start=$(date +%s)
    GI_COMMIT="$(commit_of "$label")" GI_BUDGET="${GI_BUDGET:-2}" GI_ARCHITECTURES="${GI_ARCHITECTURES:-$arch}" \
        GI_RUNS=1 SAMPLES="$sample" GI_WORK="/tmp/gi-oracle-repeats-$label" OUT="$out" \
        bash "$tree/bench/sample-programs-gpu.sh" >"$out/run.log" 2>&1
    status=$?
    evolve="$out/$sample.evolve.log"
    build="$out/$sample.build-on.log"
    {
        echo "## $label: tree $(commit_of "$label") ($(( $(date +%s) - start )) s, exit $status)"
        echo
        echo "What the recorder said:"
        echo '```'
        grep -h -E "gi::launch recording|gi-tool record" "$build" 2>/dev/null | sed 's/^.*\(gi::launch\|gi-tool record\)/\1/' | sort | uniq -c | head -8
        echo '```'
        echo "The oracle gate's notes and every generation (the search's evaluations):"
        echo '```'
        grep -h -E "changed nothing|poison|write set|^gi-tool: generation [0-9]+|^generation [0-9]+" "$evolve" 2>/dev/null |
            sed -E 's/; evaluated in .*//' | head -60
        echo '```'
        echo "The run's summary:"
        echo '```'
        grep -h -E "^(generations|variants evaluated|refused as best|refused for|unwritten|best speedup|best genome|final genome|final check)" "$evolve" 2>/dev/null |
            cut -c1-400
        grep -h -i -E "left unwritten|unwritten output" "$evolve" 2>/dev/null | cut -c1-300 | sort | uniq -c | sort -rn | head -5
        echo '```'
        echo "The build's outcome:"
        echo
        tail -n +3 "$out/table.md" 2>/dev/null
        echo
    } >>"$OUT/summary.md"
done
cat "$OUT/summary.md"
