#!/usr/bin/env bash
# A/B of one throughput change (issue 19): pairs of bench/throughput.sh runs back to back on one
# machine, A with the defaults and B with AB_OPTIONS (the change's off switch), the order alternating
# from pair to pair so that drift favours neither. Prints each run's row and the medians of each side.
#
#   AB_OPTIONS=--no-gate-overlap AB_PAIRS=3 THROUGHPUT_KERNELS=stereo THROUGHPUT_SECONDS=45 \
#       THROUGHPUT_SANITIZE_CASES=1 bash bench/throughput-ab.sh
#   AB_FIRST_PAIR=2 numbers the pairs from 2 (a second call on the same change); AB_STOP_AFTER=S starts
#   no new run after S seconds (the device's 10-minute calls). GI_COMMIT names the commit in the table
#   where the machine's git metadata is not the change's.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/throughput-ab}"
mkdir -p "$OUT"
: "${AB_OPTIONS:?AB_OPTIONS must name the B side's evolve options (the change's off switch)}"
pairs="${AB_PAIRS:-3}"
first="${AB_FIRST_PAIR:-0}"
stop_after="${AB_STOP_AFTER:-100000}"
start=$(date +%s)
build=/tmp/gi-throughput-build

run_side() {  # $1: pair, $2: A or B
    local options="" label="A: defaults"
    [[ "$2" == B ]] && options="$AB_OPTIONS" label="B: $AB_OPTIONS"
    local reuse=()
    [[ -x "$build/gi-tool/gi-tool" ]] && reuse=(GI_BUILD="$build")
    env "${reuse[@]}" OUT="$OUT/pair$1-$2" THROUGHPUT_OPTIONS="$options" THROUGHPUT_LABEL="$label" \
        bash "$root/bench/throughput.sh" >"$OUT/pair$1-$2.log" 2>&1
    # Each kernel's evolve log (throughput.sh's work folder is reused by the next run): the
    # per-generation lines say where each generation's time went.
    for log in /tmp/gi-throughput/*/evolve.log; do
        [[ -f "$log" ]] && cp "$log" "$OUT/pair$1-$2/$(basename "$(dirname "$log")")-evolve.log"
    done
    # Rows of the summary table: kernel MB cases eval/min evaluations eval-s gate-s gate% gens ...
    awk -v side="$2" -v pair="$1" 'NR > 3 && NF >= 9 && $4 ~ /^[0-9.]+$/ && $8 ~ /%$/ {
        printf "%-6s %-5s %-16s %9s %8s %8s %6s %5s\n", pair, side, $1, $4, $6, $7, $8, $9 }' \
        "$OUT/pair$1-$2/summary.txt" >>"$OUT/rows.txt"
    grep -h '^    note: sanitizer gate' "$OUT/pair$1-$2/summary.txt" | sed "s/^    /pair $1 $2: /" >>"$OUT/notes.txt"
}

: >"$OUT/rows.txt"
: >"$OUT/notes.txt"
for ((p = first; p < first + pairs; ++p)); do
    order=(A B)
    (( p % 2 == 1 )) && order=(B A)
    for side in "${order[@]}"; do
        if (( $(date +%s) - start > stop_after )); then
            echo "stopped before pair $p $side: ${stop_after} s passed"
            break 2
        fi
        run_side "$p" "$side"
    done
done

{
    echo "throughput A/B, $(date -u +%Y-%m-%dT%H:%MZ), commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}"
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "A: defaults; B: $AB_OPTIONS; kernels: ${THROUGHPUT_KERNELS:-default set}, ${THROUGHPUT_SECONDS:-60} s of search"
    printf '%-6s %-5s %-16s %9s %8s %8s %6s %5s\n' pair side kernel eval/min "eval s" "gate s" gate% gens
    cat "$OUT/rows.txt"
    # Medians per kernel and side, of eval/min and the gate's share.
    awk '{ key = $3 " " $2; rate[key] = rate[key] " " $4; share[key] = share[key] " " $7 + 0 }
         function median(list,   n, v, i, j, t) {
             n = split(list, v, " ")
             for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
             return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
         END { for (key in rate) printf "median %-24s eval/min %8.1f  gate%% %5.1f  (%d runs)\n", key, median(rate[key]),
               median(share[key]), split(rate[key], unused, " ") }' "$OUT/rows.txt" | sort
    cat "$OUT/notes.txt"
} | tee "$OUT/ab.txt"
