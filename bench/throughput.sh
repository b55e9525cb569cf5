#!/usr/bin/env bash
# Search throughput inside `gi-tool evolve` with every gate on (issue 19): stereo as the CMake build
# records it, and third-party-style corpus programs (tests/corpus) recorded at sizes whose cases are
# 100 MB or more, each evolved with the same seed for the same search time. Prints one table:
# evaluations per minute (search, tuning and minimisation together, as evolve's summary counts them),
# the search's split between evaluating and the sanitizer gate, the generations the time bought,
# and the case size. Run it before and after a throughput change on the same machine.
#
#   OUT=out/throughput bash bench/throughput.sh          # on the device: needs a GPU, nvcc, GTest
#   THROUGHPUT_KERNELS="stereo row_filter" THROUGHPUT_SECONDS=45 bash bench/throughput.sh
#   (kernels: stereo, row_filter, struct_pointers, matrix_mul; the first three by default; and the
#   gate corpus of issue 44, kernels/<name> registered as a new user would, their cases recorded as
#   bench/common.sh record_args says: aniso_diffusion, dp_sweep, wavefront, thermal, lu_update,
#   elimination, matmul, all seven as THROUGHPUT_KERNELS=corpus; bench/gate-corpus.sh runs them
#   three times each for the median)
#   THROUGHPUT_OPTIONS="--sanitize-batch 1" THROUGHPUT_LABEL="one per process" bash bench/throughput.sh
#                                           # extra evolve options, e.g. a change's off switch, for A/B
#   THROUGHPUT_SANITIZE_CASES=1 records a small case per kernel and passes it as --sanitize-cases
#   (THROUGHPUT_GATE_ARGS="..." records it with these program arguments instead of the kernel's own)
#                                           (the search's sanitizer gate runs on it)
#   THROUGHPUT_SANITIZE_CASES=both evolves each kernel twice, without and then with that hand-made
#                                           gate case: two rows a kernel, told apart by the gatecase
#                                           column (none, made)
#   THROUGHPUT_REUSE_CASES=1 keeps the work folder's recorded cases from an earlier run with the same
#                                           recording arguments (runs for a median record once)
#   THROUGHPUT_CUDA_BENCH=N also runs `gi-tool cuda-bench` with N random variants on each kernel's
#                                           cases (and the gate's, with THROUGHPUT_SANITIZE_CASES=1)
#                                           and prints where a variant's run time goes, by stage
#                                           ($OUT/KERNEL-variants.tsv: each variant's verdict, for
#                                           bench/rejudge-ab.sh)
#   THROUGHPUT_GENOMES_DIR=DIR: with THROUGHPUT_CUDA_BENCH, the genomes of DIR/KERNEL.genomes (a recorded
#                                           search's, bench/run-xml-genomes.py) instead of random variants
#   THROUGHPUT_SECONDS=0 skips evolve (with THROUGHPUT_CUDA_BENCH: the stage figures alone)
#   GI_BUILD=/path/to/build (with GI_BUILD_TESTS=ON) reuses a build.
#   THROUGHPUT_WORK, THROUGHPUT_BUILD_DIR: the work and build folders (default /tmp/gi-throughput and
#   /tmp/gi-throughput-build), so two trees can run side by side, each on its own GPU
#   (bench/throughput-trees.sh).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/throughput}"
mkdir -p "$OUT"
jobs="${GI_JOBS:-$(nproc)}"
seconds="${THROUGHPUT_SECONDS:-60}"
kernels="${THROUGHPUT_KERNELS:-stereo row_filter struct_pointers}"
# The gate corpus (issue 44): kernels/<name>, in the issue's order.
corpus_kernels=(aniso_diffusion dp_sweep wavefront thermal lu_update elimination matmul)
kernels="${kernels/corpus/${corpus_kernels[*]}}"
work="${THROUGHPUT_WORK:-/tmp/gi-throughput}"
reuse_cases="${THROUGHPUT_REUSE_CASES:-0}"
[[ "$reuse_cases" == 1 ]] || rm -rf "$work"
mkdir -p "$work"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu

extra_options=(${THROUGHPUT_OPTIONS:-})
label="${THROUGHPUT_LABEL:-${THROUGHPUT_OPTIONS:-defaults}}"
# Which gate cases each kernel is evolved with: none (the training cases), made (the hand-made
# small case), or both in turn.
case "${THROUGHPUT_SANITIZE_CASES:-0}" in
    0) gate_modes=(none) ;;
    1) gate_modes=(made) label="$label, small cases for the gate" ;;
    both) gate_modes=(none made) label="$label; each kernel without, then with, a hand-made gate case" ;;
    *) echo "THROUGHPUT_SANITIZE_CASES is '$THROUGHPUT_SANITIZE_CASES': 0, 1 or both"; exit 2 ;;
esac
[[ -n "${THROUGHPUT_GATE_ARGS:-}" ]] && label="$label (recorded with: $THROUGHPUT_GATE_ARGS)"
build="${GI_BUILD:-${THROUGHPUT_BUILD_DIR:-/tmp/gi-throughput-build}}"
if [[ -z "${GI_BUILD:-}" ]]; then
    start=$(date +%s)
    if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON \
               -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
           cmake --build "$build" -j "$jobs" --target gi-tool gi-worker stereo_driver corpus_row_filter \
               corpus_struct_pointers corpus_matrix_mul "${corpus_kernels[@]/%/_driver}" >>"$OUT/build.log" 2>&1; }; then
        tail -30 "$OUT/build.log"; exit 1
    fi
    echo "built in $(( $(date +%s) - start )) s"
fi
tool="$build/gi-tool/gi-tool"
recorder_include="$root/gi-tool/recorder/include"

# kernel -> the file, the function, -I, the program and its training and held-out runs.
setup() {
    case "$1" in
        stereo)
            file="$root/kernels/stereo/stereo.cu" program="$build/kernels/stereo_driver" includes=()
            registration_options stereo
            record_args stereo
            gate=("--pairs 1 --width 64 --height 48 --seed 2000") ;;   # as the consumer example's SANITIZE_ARGS
        row_filter)   # 4096 x 4096 floats: 64 MB in, 64 MB out, per launch
            file="$root/tests/corpus/row_filter.cu" program="$build/tests/corpus/corpus_row_filter"
            includes=(-I "$recorder_include")
            options=(--function rowFilter)   # ROW_TILE_W also sizes the grid in host code: not tuned here
            train=("--width 4096 --height 4096 --frames 2") held=("--width 3000 --height 2000 --frames 1 --seed 9")
            gate=("--width 509 --height 250 --frames 1 --seed 11") ;;  # odd sizes: the edges
        struct_pointers)   # 10M elements: three 40 MB arrays per launch
            file="$root/tests/corpus/struct_pointers.cu" program="$build/tests/corpus/corpus_struct_pointers"
            includes=(-I "$recorder_include")
            options=(--function axpyStruct)
            train=("--n 10000000 --launches 2") held=("--n 3000000 --launches 1 --seed 5")
            gate=("--n 100000 --launches 1 --seed 6") ;;
        matrix_mul)   # the CUDA samples' tiled template kernel, two barriers: racecheck's third-party case
            file="$root/tests/corpus/matrix_mul.cu" program="$build/tests/corpus/corpus_matrix_mul"
            includes=(-I "$recorder_include")
            options=(--function "MatrixMulCUDA<32>")   # the program launches <16> and <32>: both are recorded
            train=("--n 1024") held=("--n 512 --seed 3")
            gate=("--n 64 --seed 4") ;;   # 2 x 2 blocks of 32 x 32
        aniso_diffusion|dp_sweep|wavefront|thermal|lu_update|elimination|matmul)
            # Registered as a new user would (function and tolerance); record_args gives the runs
            # that record the large cases, the held-out runs and the hand-made gate case.
            file="$root/kernels/$1/$1.cu" program="$build/kernels/$1_driver" includes=()
            registration_options "$1"
            record_args "$1" ;;
        *) echo "unknown kernel $1 (stereo, row_filter, struct_pointers, matrix_mul, ${corpus_kernels[*]}, corpus)"; exit 2 ;;
    esac
}

# The original kernel's run time: the median over generations of its median on the generation's case.
original_ms() {  # run.xml
    python3 - "$1" 2>/dev/null <<'PY' || echo -
import math, statistics, sys, xml.etree.ElementTree as ET
times = []
for generation in ET.parse(sys.argv[1]).getroot().iter("generation"):
    for original in generation.findall("original"):
        try:
            t = float(original.get("median-ms", "nan"))
        except ValueError:
            continue
        if math.isfinite(t):
            times.append(t)
print(f"{statistics.median(times):.3f}" if times else "-")
PY
}

rows=() notes=()
printf 'kernel\tgate_case\tmb\tcases\teval_per_min\tevaluations\teval_s\tgate_s\tgate_share\tgenerations\ts_per_gen\tbest\toriginal_ms\texit\twall_s\n' \
    >"$OUT/throughput.tsv"
for kernel in $kernels; do
    setup "$kernel"
    dir="$work/$kernel"
    function_name="$(printf '%s\n' "${options[@]}" | awk 'prev == "--function" { print; exit } { prev = $0 }')"
    function_name="${function_name%%<*}"   # a template's instantiation: the recorder takes the function's name
    # With THROUGHPUT_REUSE_CASES=1, cases recorded by an earlier run with the same arguments stay.
    recorded="$(printf '%s\n' "$file" "${train[@]}" -- "${held[@]}")"
    if [[ "$reuse_cases" != 1 || "$(cat "$dir/recorded" 2>/dev/null)" != "$recorded" ]]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        for args in "${train[@]}"; do
            # shellcheck disable=SC2086
            "$tool" record "$file" --function "$function_name" "${includes[@]}" --out "$dir/cases" -- "$program" $args \
                >>"$dir/record.log" 2>&1
        done
        for args in "${held[@]}"; do
            # shellcheck disable=SC2086
            "$tool" record "$file" --function "$function_name" "${includes[@]}" --out "$dir/held-out" -- "$program" $args \
                >>"$dir/record.log" 2>&1
        done
        # Kept for reuse only when both folders hold cases (a failed recording is tried again).
        [[ -n "$(ls -A "$dir/cases" 2>/dev/null)" && -n "$(ls -A "$dir/held-out" 2>/dev/null)" ]] &&
            printf '%s' "$recorded" >"$dir/recorded"
    fi
    rm -rf "$dir"/run "$dir"/run-gatecase "$dir"/evolve*.log "$dir"/cuda-bench.log
    gate_option=()
    [[ -n "${THROUGHPUT_GATE_ARGS:-}" ]] && gate=("$THROUGHPUT_GATE_ARGS")
    if [[ " ${gate_modes[*]} " == *" made "* ]]; then
        gate_recorded="$(printf '%s\n' "${gate[@]}")"
        if [[ "$(cat "$dir/sanitize-cases.args" 2>/dev/null)" != "$gate_recorded" ]]; then
            rm -rf "$dir/sanitize-cases"
            for args in "${gate[@]}"; do
                # shellcheck disable=SC2086
                "$tool" record "$file" --function "$function_name" "${includes[@]}" --out "$dir/sanitize-cases" -- "$program" $args \
                    >>"$dir/record.log" 2>&1
            done
            [[ -n "$(ls -A "$dir/sanitize-cases" 2>/dev/null)" ]] && printf '%s' "$gate_recorded" >"$dir/sanitize-cases.args"
        fi
        gate_option=(--sanitize-cases "$dir/sanitize-cases")
    fi
    case_mb=$(du -sm "$dir/cases" 2>/dev/null | cut -f1)
    ncases=$(ls -d "$dir/cases"/*/ 2>/dev/null | wc -l)
    if [[ -n "${THROUGHPUT_CUDA_BENCH:-}" ]]; then
        # A recorded search's individuals (bench/run-xml-genomes.py) in place of random variants.
        which_variants=(--variants "$THROUGHPUT_CUDA_BENCH")
        genomes="${THROUGHPUT_GENOMES_DIR:-}/$kernel.genomes"
        [[ -n "${THROUGHPUT_GENOMES_DIR:-}" && -f "$genomes" ]] && which_variants=(--genomes "$genomes")
        # --held-out as evolve gets it: all the training cases are searched on, so a recorded
        # search's genomes (which name their case) find theirs.
        timeout 600 "$tool" cuda-bench "$file" "${options[@]}" "${includes[@]}" --cases "$dir/cases" --held-out "$dir/held-out" \
            "${which_variants[@]}" --seed 1 --log "$OUT/$kernel-variants.tsv" "${gate_option[@]}" "${extra_options[@]}" \
            >"$dir/cuda-bench.log" 2>&1
        { echo "==== $kernel: cuda-bench exit $? ($THROUGHPUT_CUDA_BENCH variants, $case_mb MB of cases)"
          cat "$dir/cuda-bench.log"; } | tee -a "$OUT/cuda-bench.log" |
            grep -E '^====|per minute|run stages|module load|^comparison:|^sanitizer gate:'
    fi
    [[ "$seconds" == 0 ]] && continue
    for mode in "${gate_modes[@]}"; do
        # With both modes, the run with the hand-made gate case keeps its files apart.
        suffix=""
        [[ "$mode" == made && ${#gate_modes[@]} -gt 1 ]] && suffix="-gatecase"
        mode_option=()
        [[ "$mode" == made ]] && mode_option=("${gate_option[@]}")
        log="$dir/evolve$suffix.log"
        start=$(date +%s)
        timeout $((seconds * 4 + 240)) "$tool" evolve "$file" "${options[@]}" "${includes[@]}" --evaluator cuda \
            --cases "$dir/cases" --held-out "$dir/held-out" --time-limit "$seconds" --seed 1 "${mode_option[@]}" "${extra_options[@]}" \
            --out "$dir/run$suffix" >"$log" 2>&1
        status=$?
        wall=$(( $(date +%s) - start ))
        { echo "==== $kernel (gate case: $mode): evolve exit $status in $wall s"; cat "$dir/record.log" "$log"; } >>"$OUT/evolve.log"
        # The run's record and its HTML report (gi-tool report), to look at what the search did.
        cp "$dir/run$suffix/run.xml" "$OUT/$kernel$suffix-run.xml" 2>/dev/null
        "$tool" report --out "$dir/run$suffix" -o "$OUT/$kernel$suffix-report.html" >/dev/null 2>&1
        rate="$(grep -m1 '^evaluated per minute:' "$log" | awk '{ print $4 }')"
        evaluations="$(grep -m1 '^evaluated per minute:' "$log" | sed 's/.*(\([0-9]*\) evaluations.*/\1/')"
        evaluate="" gate_s=""
        read -r evaluate gate_s <<<"$(grep -m1 '^search time:' "$log" | sed 's/.*evaluating \([0-9.]*\) s, sanitizer gate \([0-9.]*\) s.*/\1 \2/')"
        share="$(awk -v e="${evaluate:-0}" -v g="${gate_s:-0}" 'BEGIN { if (e + g > 0) printf "%.0f%%", 100 * g / (e + g); else print "-" }')"
        generations="$(grep -m1 '^generations:' "$log" | awk '{ print $2 }')"
        searched="$(grep -c '^generation [0-9]*/' "$log")"
        per_generation="$(awk -v n="$searched" -v t="$(awk -v e="${evaluate:-0}" -v g="${gate_s:-0}" 'BEGIN { print e + g }')" \
            'BEGIN { if (n > 0) printf "%.1f", t / n; else print "-" }')"
        best="$(grep -m1 '^best speedup:' "$log" | awk '{ print $3 }')"
        validation="$(grep -m1 '^validation:' "$log" | cut -c22-60)"
        [[ "$ncases" == 0 ]] && validation="no cases recorded (record.log: $(grep -m1 'error' "$dir/record.log" | cut -c1-80))"
        original="$(original_ms "$dir/run$suffix/run.xml")"
        rows+=("$(printf '%-16s %6s %5s %7s %9s %8s %8s %6s %7s %8s %9s %8s %7s  %s' "$kernel" "$case_mb" "$ncases" "${rate:--}" \
            "${evaluations:--}" "${evaluate:--}" "${gate_s:--}" "$share" "${generations:--}" "$per_generation" "${best:--}" \
            "$mode" "$original" "exit $status, $wall s; ${validation:-no validation line}")")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kernel" "$mode" "${case_mb:--}" "$ncases" \
            "${rate:--}" "${evaluations:--}" "${evaluate:--}" "${gate_s:--}" "${share%\%}" "${generations:--}" "$per_generation" \
            "${best:--}" "$original" "$status" "$wall" >>"$OUT/throughput.tsv"
        while IFS= read -r line; do notes+=("    $line [$kernel, gate case $mode]"); done \
            < <(grep -h '^note: sanitizer gate' "$log")
    done
done

{
    echo "gi-tool evolve throughput, all gates on ($seconds s of search each, seed 1): $label"
    echo "GPU: ${gpu:-none}; $(date -u +%Y-%m-%dT%H:%MZ); commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}; $jobs cores"
    printf '%-16s %6s %5s %7s %9s %8s %8s %6s %7s %8s %9s %8s %7s  %s\n' kernel "MB" cases "eval/min" evaluations \
        "eval s" "gate s" "gate%" "gens" "s/gen" best gatecase "orig ms" "outcome"
    printf '%s\n' "${rows[@]}"
    [[ ${#notes[@]} -gt 0 ]] && printf '%s\n' "${notes[@]}"
    echo "MB: the training cases on disk; eval/min and evaluations: evolve's own count (search, tuning and"
    echo "minimisation, checks included, over the whole wall time); eval s / gate s: the search's time evaluating"
    echo "and in the sanitizer gate; gate%: the gate's share of search time; gatecase: the gate ran on the"
    echo "training cases (none) or on a hand-made small case (made, --sanitize-cases); orig ms: the original"
    echo "kernel's run time, the median over generations. The same rows, tab-separated: throughput.tsv."
} | tee "$OUT/summary.txt"
