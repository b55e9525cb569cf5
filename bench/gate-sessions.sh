#!/usr/bin/env bash
# The sanitizer gate on one fixed wave of would-be parents under several option sets (issue 19:
# racecheck, on variants that removed a barrier, is most of stereo's gate). On one machine:
#   1. `gi-tool cuda-bench` evaluates GATE_VARIANTS random variants (bench/throughput.sh with
#      THROUGHPUT_CUDA_BENCH; cases recorded as the search records them, a small one for the gate);
#      the correct ones (status ok, error 0) become a genome list;
#   2. for each option set, in GATE_ROUNDS interleaved rounds, cuda-bench evaluates that list again
#      (the gate's sessions start meanwhile, as in a search) and puts the first GATE_WAVE correct
#      variants that removed a barrier through the gate at once (`--sanitize N
#      --sanitize-removed-barriers`), printing its wall time and the time each checker took.
#
#   OUT=out/gate-sessions bash bench/gate-sessions.sh      # on the device: needs a GPU, nvcc, GTest
#   GATE_CONFIGS="defaults;--racecheck-sessions 4;--racecheck-sessions 8"  (';'-separated; "defaults": none)
#   GATE_KERNEL=stereo GATE_VARIANTS=1500 GATE_WAVE=16 GATE_ROUNDS=2; GI_BUILD reuses a build
#   GATE_REMOVED=0: the wave is the first GATE_WAVE correct variants, whether they removed a barrier or not
#   GATE_GENOMES=FILE: these genomes (bench/throughput.sh's --genomes format) instead of random variants
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/gate-sessions}"
mkdir -p "$OUT/genomes"
kernel="${GATE_KERNEL:-stereo}"
variants="${GATE_VARIANTS:-1500}"
wave="${GATE_WAVE:-16}"
rounds="${GATE_ROUNDS:-2}"
removed="${GATE_REMOVED:-1}"
IFS=';' read -r -a configs <<<"${GATE_CONFIGS:-defaults;--racecheck-sessions 4;--racecheck-sessions 8}"
build="${GI_BUILD:-/tmp/gi-throughput-build}"

throughput() {  # OUT-folder, then VAR=value settings for bench/throughput.sh
    local out="$1"; shift
    local reuse=()
    [[ -x "$build/gi-tool/gi-tool" ]] && reuse=(GI_BUILD="$build")
    env "${reuse[@]}" "$@" OUT="$out" THROUGHPUT_KERNELS="$kernel" THROUGHPUT_SECONDS=0 THROUGHPUT_SANITIZE_CASES=1 \
        bash "$root/bench/throughput.sh" >"$out.console" 2>&1
}

if [[ -n "${GATE_GENOMES:-}" ]]; then
    # A recorded search's individuals (the search's own would-be parents pass racecheck far more
    # often than random mutants that removed a barrier, which are mostly racy).
    mkdir -p "$OUT/given"
    cp "$GATE_GENOMES" "$OUT/given/$kernel.genomes"
    throughput "$OUT/find" THROUGHPUT_CUDA_BENCH=1 THROUGHPUT_GENOMES_DIR="$OUT/given"
    variants="$(grep -c . "$GATE_GENOMES") given"
else
    throughput "$OUT/find" THROUGHPUT_CUDA_BENCH="$variants"
    variants="$variants random"
fi
# --log columns: number, case, status, error, genome, detail.
awk -F'\t' '$3 == "ok" && $4 == "0" { print $2 "\t" $5 }' "$OUT/find/$kernel-variants.tsv" >"$OUT/genomes/$kernel.genomes"
correct=$(grep -c . "$OUT/genomes/$kernel.genomes")
[[ "$correct" -gt 0 ]] || { echo "no correct variant among the $variants (see $OUT/find.console)"; tail -20 "$OUT/find.console"; exit 1; }

rows=()
for ((round = 1; round <= rounds; ++round)); do
    for k in "${!configs[@]}"; do
        config="${configs[$k]}"
        options="--sanitize $wave"
        [[ "$removed" == 1 ]] && options="$options --sanitize-removed-barriers"
        [[ "$config" != defaults ]] && options="$options $config"
        out="$OUT/round$round-config$k"
        throughput "$out" THROUGHPUT_CUDA_BENCH=1 THROUGHPUT_GENOMES_DIR="$OUT/genomes" THROUGHPUT_OPTIONS="$options"
        line="$(grep -m1 '^sanitizer gate:' "$out/cuda-bench.log")"
        note="$(grep -m1 '^note: sanitizer gate:' "$out/cuda-bench.log")"
        checked="$(sed -n 's/^sanitizer gate: \([0-9]*\) correct variants (\([0-9]*\) of them.*/\1 \2/p' <<<"$line")"
        wall="$(sed -n 's/.* in \([0-9.]*\) s of wall time.*/\1/p' <<<"$line")"
        failed="$(sed -n 's/.*, \([0-9]*\) failed$/\1/p' <<<"$line")"
        race="$(sed -n 's/.*racecheck \([0-9.]*\) s for \([0-9]*\) variant runs.*/\1 s, \2 runs/p' <<<"$note")"
        started="$(sed -n 's/.*in \([0-9]*\) long-lived compute-sanitizer processes.*/\1/p' <<<"$note")"
        rows+=("$(printf '%-5s %-40s %8s %10s %7s %20s %9s' "$round" "$config" "${checked%% *} (${checked##* })" "${wall:--}" "${failed:--}" \
            "${race:--}" "${started:--}")")
    done
done

{
    if [[ "$removed" == 1 ]]; then
        echo "sanitizer gate on one wave of $kernel's correct variants that removed a barrier (cuda-bench --sanitize $wave"
        echo "--sanitize-removed-barriers), $correct correct variants of $variants evaluated first in each run"
    else
        echo "sanitizer gate on one wave of $kernel's first $wave correct variants (cuda-bench --sanitize $wave), $correct"
        echo "correct variants of $variants evaluated first in each run"
    fi
    grep -m1 '^GPU:' "$OUT/find/summary.txt" 2>/dev/null || echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
    echo "commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}; $(date -u +%Y-%m-%dT%H:%MZ)"
    printf '%-5s %-40s %8s %10s %7s %20s %9s\n' round options "variants (removers)" "gate s" failed "racecheck checks" sessions
    printf '%s\n' "${rows[@]}"
    echo "gate s: the wave's wall time; racecheck checks: their summed wall time (several run at once) and count;"
    echo "sessions: long-lived compute-sanitizer processes started in the run (all checkers)."
} | tee "$OUT/summary.txt"
