#!/usr/bin/env bash
# Re-judging (issue 19: "no variant judged differently than today"): the same random variants of
# each kernel, evaluated on the same cases by an older build and by this one on one GPU, and every
# verdict compared: status and error (the mean penalty, every digit). `gi-tool cuda-bench` with one
# seed draws the same variants and cases in both (bench/throughput.sh, THROUGHPUT_CUDA_BENCH).
# Statuses that depend on time (a variant near its timeout allowance) may differ between any two
# runs; the table says which statuses changed, so such changes can be told from real ones.
#
#   git archive OLD | gzip >.carry/rejudge-old.tgz     # the older tree (here, before a device call)
#   REJUDGE_OLD=.carry/rejudge-old.tgz OUT=$OUT bash bench/rejudge-ab.sh
#   REJUDGE_KERNELS="row_filter stereo" REJUDGE_VARIANTS=200 (the defaults)
#   REJUDGE_OLD_OPTIONS="--guard-fast-compile 0": instead of an older tree, this build with these
#       evolve/cuda-bench options is "old" (a change behind an option, judged against its off switch)
#   REJUDGE_SANITIZE=N: also the sanitizer gate's verdicts (cuda-bench --sanitize N: the first N correct
#       variants through the gate as one wave; the refused ones compared by genome)
#   REJUDGE_RUNS="old new": without the second run of this build ("again"), where time is short
#   REJUDGE_SANITIZE_OPTIONS: more cuda-bench options for that wave (--sanitize-every-gate-case: once on
#       each launch the hand-made gate case recorded, with THROUGHPUT_SANITIZE_CASES=1)
#   REJUDGE_BUILD_ONLY=1: build the older tree and stop (a job that builds it beside other work, then
#       runs this script again: the second build finds everything up to date)
#   REJUDGE_GENOMES_DIR=DIR: a recorded search's individuals instead of random variants, from
#       DIR/KERNEL.genomes (python3 bench/run-xml-genomes.py run.xml > DIR/stereo.genomes); the older
#       tree's cuda-bench must take --genomes too (the commit that added it, or later)
#
# The cases are recorded once, by this tree's build, and all three runs read them (the gate corpus's
# programs exist only in trees after 269c876).
# Errors are compared to six decimals: workers before 06b47be sent numbers with six (std::to_string),
# so an older build's errors carry no more.
# REJUDGE_OLD: a tarball of the older source tree, or its folder. Results: $OUT/rejudge.md and the
# two builds' per-variant verdicts ($OUT/old, $OUT/new: KERNEL-variants.tsv).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/rejudge}"
mkdir -p "$OUT"
old_options="${REJUDGE_OLD_OPTIONS:-}"
old="${REJUDGE_OLD:-}"
[[ -n "$old" || -n "$old_options" ]] || { echo "set REJUDGE_OLD to the older tree (tarball or folder), or REJUDGE_OLD_OPTIONS"; exit 2; }
kernels="${REJUDGE_KERNELS:-row_filter stereo}"
variants="${REJUDGE_VARIANTS:-200}"
jobs="${GI_JOBS:-$(nproc)}"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu

old_build=/tmp/gi-rejudge-old-build
if [[ -n "$old" ]]; then
old_tree="$old"
if [[ -f "$old" ]]; then
    old_tree=/tmp/gi-rejudge-old-tree
    rm -rf "$old_tree" && mkdir -p "$old_tree" && tar -xzf "$old" -C "$old_tree" || { echo "cannot unpack $old"; exit 2; }
fi
[[ -f "$old_tree/bench/throughput.sh" ]] || { echo "$old_tree: not a gi-optimize tree with bench/throughput.sh"; exit 2; }
# The older tree's benchmark script may predate the verdict log: this tree's runs both builds.
if ! { cmake -S "$old_tree" -B "$old_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON \
           -DCMAKE_CUDA_ARCHITECTURES="$arch" "${prefix_args[@]}" >"$OUT/old-build.log" 2>&1 &&
       cmake --build "$old_build" -j "$jobs" --target gi-tool gi-worker stereo_driver corpus_row_filter \
           corpus_struct_pointers >>"$OUT/old-build.log" 2>&1; }; then
    tail -30 "$OUT/old-build.log"; exit 1
fi
fi
if [[ "${REJUDGE_BUILD_ONLY:-0}" == 1 ]]; then echo "built the older tree in $old_build"; exit 0; fi
# "again": this build a second time, so variants whose verdict changes between two runs of one build
# (racy ones: their outputs differ from run to run) can be told from what the change did.
# With REJUDGE_OLD_OPTIONS the first run ("old": these options) builds this tree, the others reuse it.
this_build="${GI_BUILD:-/tmp/gi-throughput-build}"
# The cases are recorded once, by this tree's build and programs (the gate corpus's programs may not
# exist in the older tree), and all three runs read the same recorded cases.
work=/tmp/gi-rejudge-work
rm -rf "$work"
env OUT="$OUT/record" THROUGHPUT_SECONDS=0 THROUGHPUT_REUSE_CASES=1 THROUGHPUT_WORK="$work" \
    THROUGHPUT_KERNELS="$kernels" bash "$root/bench/throughput.sh" >"$OUT/record.log" 2>&1
sanitize_option="${REJUDGE_SANITIZE:+--sanitize $REJUDGE_SANITIZE ${REJUDGE_SANITIZE_OPTIONS:-}}"
read -r -a which_runs <<<"${REJUDGE_RUNS:-old new again}"
pairs=("old new")
[[ " ${which_runs[*]} " == *" again "* ]] && pairs+=("new again")
for which in "${which_runs[@]}"; do
    build_option=() options=(THROUGHPUT_OPTIONS="$sanitize_option")
    if [[ "$which" == old ]]; then
        if [[ -n "$old" ]]; then build_option=(GI_BUILD="$old_build"); else options=(THROUGHPUT_OPTIONS="$old_options $sanitize_option"); fi
    elif [[ "$which" == again || -z "$old" ]]; then
        build_option=(GI_BUILD="$this_build")
    fi
    env "${build_option[@]}" "${options[@]}" OUT="$OUT/$which" THROUGHPUT_SECONDS=0 THROUGHPUT_CUDA_BENCH="$variants" \
        THROUGHPUT_GENOMES_DIR="${REJUDGE_GENOMES_DIR:-}" THROUGHPUT_REUSE_CASES=1 THROUGHPUT_WORK="$work" \
        THROUGHPUT_KERNELS="$kernels" bash "$root/bench/throughput.sh" >"$OUT/$which.log" 2>&1
    grep -E '^====|per minute|run stages|^comparison:' "$OUT/$which.log"
done

{
    what="$variants random variants per kernel"
    [[ -n "${REJUDGE_GENOMES_DIR:-}" ]] && what="the genomes of $REJUDGE_GENOMES_DIR/KERNEL.genomes"
    echo "# Re-judging: $what, ${old:+an older build}${old_options:+this build with $old_options} against this one"
    echo
    echo "GPU: ${gpu:-none}; $(date -u +%Y-%m-%dT%H:%MZ); this tree: commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)};" \
         "${old:+older tree: ${REJUDGE_OLD_COMMIT:-$old}}${old_options:+\"old\": this build with $old_options}"
    echo
    echo "| kernel | runs compared | variants in both | same status and error | status changed | error changed (same status) |"
    echo "|---|---|---|---|---|---|"
    for pair in "${pairs[@]}"; do
    for kernel in $kernels; do
        read -r first second <<<"$pair"
        a="$OUT/$first/$kernel-variants.tsv" b="$OUT/$second/$kernel-variants.tsv"
        if [[ ! -s "$a" || ! -s "$b" ]]; then echo "| $kernel | $first -> $second: no verdicts (see $first.log, $second.log) | | | |"; continue; fi
        # Columns: number, case, status, error, genome, detail. Joined on number; the genome must match.
        awk -F'\t' -v k="$kernel | $first -> $second" 'NR == FNR { s[$1] = $3; e[$1] = sprintf("%.6f", $4); g[$1] = $5; next }
            ($1 in s) && g[$1] == $5 { n++; if (s[$1] != $3) { sc++; c[s[$1] " -> " $3]++ } else if (e[$1] != sprintf("%.6f", $4)) ec++; else same++ }
            ($1 in s) && g[$1] != $5 { mismatched++ }
            END { changes = ""; for (x in c) changes = changes (changes == "" ? "" : ", ") x " " c[x];
                  printf "| %s | %d%s | %d | %d%s | %d |\n", k, n, mismatched ? " (" mismatched " other genomes: not the same draw)" : "",
                         same, sc, sc ? " (" changes ")" : "", ec }' "$a" "$b"
    done
    done
    echo
    echo "Each variant's line in old/KERNEL-variants.tsv and new/KERNEL-variants.tsv (number, case, status,"
    echo "error, genome, detail); command: REJUDGE_OLD=... bash bench/rejudge-ab.sh"
    for kernel in $kernels; do
        a="$OUT/old/$kernel-variants.tsv" b="$OUT/new/$kernel-variants.tsv"
        [[ -s "$a" && -s "$b" ]] || continue
        # Marked "racy" where either run saw the variant's timed build give other outputs than its
        # checked build (outputs that change from run to run); "again" where this build's two runs
        # disagree on it too.
        awk -F'\t' -v k="$kernel" -v again="$OUT/again/$kernel-variants.tsv" '
            BEGIN { while ((getline line < again) > 0) { split(line, f, "\t"); s2[f[1]] = f[3]; e2[f[1]] = sprintf("%.6f", f[4]); d2[f[1]] = f[6] } }
            NR == FNR { s[$1] = $3; e[$1] = sprintf("%.6f", $4); d[$1] = $6; next }
            ($1 in s) && (s[$1] != $3 || e[$1] != sprintf("%.6f", $4)) {
                racy = index(d[$1] $6 d2[$1], "gives other outputs than its loop-guarded build") > 0
                self = ($1 in s2) && (s2[$1] != $3 || e2[$1] != sprintf("%.6f", $4))
                if (++shown <= 25) printf "    %s variant %s (case %s): %s %s -> %s %s%s%s: %s\n", k, $1, $2, s[$1], e[$1], $3, $4,
                                          racy ? " [racy]" : "", self ? " [again: " s2[$1] " " e2[$1] "]" : "", substr($6, 1, 160) }' "$a" "$b"
    done
    if [[ -n "$sanitize_option" ]]; then
        # The gate's verdicts: cuda-bench --sanitize N puts the first N correct variants through the
        # search's sanitizer gate as one wave and prints a line for each it refuses.
        echo
        echo "The sanitizer gate (cuda-bench $sanitize_option: the first correct variants as one wave of would-be parents):"
        echo
        echo "| kernel | runs compared | checked | refused by both | refused only by the first | refused only by the second |"
        echo "|---|---|---|---|---|---|"
        for pair in "${pairs[@]}"; do
        for kernel in $kernels; do
            read -r first second <<<"$pair"
            refused() {  # which -> the refused genomes, sorted
                awk -v k="==== $kernel:" 'index($0, k) == 1 { on = 1; next } /^==== / { on = 0 }
                    on && /^sanitizer: / { sub(/^sanitizer: /, ""); n = index($0, ": "); print substr($0, 1, n - 1) }' \
                    "$OUT/$1/cuda-bench.log" 2>/dev/null | sort -u
            }
            checked() {  # which -> "N correct variants ... F failed" of this kernel's wave
                awk -v k="==== $kernel:" 'index($0, k) == 1 { on = 1; next } /^==== / { on = 0 }
                    on && /^sanitizer gate: / { print $3 }' "$OUT/$1/cuda-bench.log" 2>/dev/null | head -1
            }
            refused "$first" >"$OUT/refused-a" && refused "$second" >"$OUT/refused-b"
            both=$(comm -12 "$OUT/refused-a" "$OUT/refused-b" | grep -c .)
            only_a=$(comm -23 "$OUT/refused-a" "$OUT/refused-b" | grep -c .)
            only_b=$(comm -13 "$OUT/refused-a" "$OUT/refused-b" | grep -c .)
            echo "| $kernel | $first -> $second | $(checked "$first") / $(checked "$second") | $both | $only_a | $only_b |"
            comm -23 "$OUT/refused-a" "$OUT/refused-b" | head -10 | sed "s/^/    $kernel: refused by $first only: /"
            comm -13 "$OUT/refused-a" "$OUT/refused-b" | head -10 | sed "s/^/    $kernel: refused by $second only: /"
            rm -f "$OUT/refused-a" "$OUT/refused-b"
        done
        done
    fi
    echo
    echo "Variants whose worker was killed at the hard allowance (\"did not answer within\"), per build:"
    for kernel in $kernels; do
        for which in "${which_runs[@]}"; do
            echo "    $kernel $which: $(grep -c 'did not answer within' "$OUT/$which/$kernel-variants.tsv" 2>/dev/null || echo none)"
        done
    done
} | tee "$OUT/rejudge.md"
# The device tool returns a few files of $OUT: the three builds' verdicts go back as one tarball.
(cd "$OUT" && tar -czf verdicts.tgz "${which_runs[@]}" record && rm -rf "${which_runs[@]}" record)
