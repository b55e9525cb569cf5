#!/usr/bin/env bash
# The sample programs of tests/programs (issue 40, item 8) built as their users would build them on a
# GPU machine: for each sample, tests/programs is configured with GI_OPTIMIZE=ON, a fresh empty cache
# folder, this GPU's architecture and BUDGET minutes, and built; the build records the sample's
# launches, evolves its kernel, runs the sample with the candidate (the acceptance) and caches it, or
# keeps the original kernel and says why in one line. Then the built sample runs as a user runs it
# (its own PASS/FAIL self-check), and its benchmark loop's "time per iteration" is compared with a
# GI_OPTIMIZE=OFF build of the same sample. One sample's failure (configure, build, run) is reported
# in its row and does not stop the others.
#
# Usage (on the device): GI_COMMIT=<commit> OUT=out/sample-programs bash bench/sample-programs-gpu.sh
# (carry .carry/debs). On an H200 with BUDGET 1 the whole run took 134 s (gi-tool's build 37 s; each
# sample's OFF build under 10 s, ON build 31-35 s); a budget of 2 adds about a minute a sample that evolves.
# Environment:
#   GI_BUDGET      minutes per evolution (SAMPLES_GI_BUDGET; default 2)
#   SAMPLES        the samples to run (default: convolutionSeparable reduction matrixMul BlackScholes). A device
#                  command may run 10 minutes: with larger budgets, run some samples in a call and the
#                  others in the next (the ON build folder, with gi-tool built, is kept in GI_WORK
#                  between calls while the machine stays warm)
#   GI_COMMIT      the commit the tree is (the device's copy may carry stale git metadata)
#   GI_GPU_ARCHITECTURE  the architecture to evolve for (default: this GPU's; `none` builds without
#                  evolving, a dry run on a machine without a GPU: every row then says "original kernel")
#   GI_ARCHITECTURES     CMAKE_CUDA_ARCHITECTURES (default "80;<arch>": a second architecture, as the
#                  project lists, so the build also holds an architecture that is not evolved)
#   GI_WORK        work folder (default /tmp/gi-sample-programs); GI_JOBS build parallelism; GI_RUNS
#                  timed runs of each build (default 3, alternating OFF and ON; the median is reported)
# Output in $OUT: summary.txt (the rows), table.md (one row per sample), and per sample
# <sample>.{configure-off,build-off,configure-on,build-on,steps,evolve,accept,run-off-N,run-on-N,show}.log,
# <sample>.report.html (gi-tool report of the evolution) and the cache entries written.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/sample-programs-gpu}"
mkdir -p "$OUT"
budget="${GI_BUDGET:-2}"
jobs="${GI_JOBS:-$(nproc)}"
timed_runs="${GI_RUNS:-3}"
work="${GI_WORK:-/tmp/gi-sample-programs}"
read -r -a samples <<<"${SAMPLES:-convolutionSeparable reduction matrixMul BlackScholes}"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
# shellcheck source=bench/summary.sh
source "$root/bench/summary.sh"

# The kernel each sample registers (its cache entry is <kernel>.sm_<n>.xml).
declare -A kernel_of=([convolutionSeparable]=convolutionRowsKernel [reduction]=reduce6 [matrixMul]=MatrixMulCUDA [BlackScholes]=BlackScholesGPU)

unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
gpu_arch="${GI_GPU_ARCHITECTURE:-$arch}"
archs="${GI_ARCHITECTURES:-80;$arch}"
[[ "$archs" == "80;80" ]] && archs=80
row "GPU" "${gpu:-none}"
row "date (UTC)" "$(date -u +%Y-%m-%dT%H:%MZ)"
# The device's copy of the tree may carry stale git metadata: GI_COMMIT names the tree that ran.
row "commit" "${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
row "cmake" "$(cmake --version | head -1)"
row "budget" "$budget min per kernel (SAMPLES_GI_BUDGET)"
row "architectures" "$archs (evolving for: $gpu_arch)"

mkdir -p "$work"
on="$work/on"
common_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DGI_OPTIMIZE_SOURCE_DIR=$root" "-DCMAKE_CUDA_ARCHITECTURES=$archs"
             "${prefix_args[@]}")
# A sample's own settings (passed only with that sample: CMake warns about a variable nothing reads).
reduction_archs="86;$arch"
[[ "$arch" == 86 ]] && reduction_archs=86
declare -A sample_args=([reduction]="-DREDUCTION_CUDA_ARCHITECTURES=$reduction_archs")

# first_error <log>: the line that says why a configure or build failed.
first_error() {
    grep -m1 -A3 -E "CMake Error|error:|FAILED:" "$1" | tr '\n' ' ' | sed 's/  */ /g; s/ Call Stack .*//' | cut -c1-240
}

# time_per_iteration <log>: the ms the sample printed for one iteration of its benchmark loop.
time_per_iteration() { grep -o 'time per iteration: [0-9.]* ms' "$1" | head -1 | awk '{print $4}'; }
median() { printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }

# outcome <sample> <kernel> <build-log> <cache>: the one-line evolve/accept outcome for the GPU's
# architecture: the cached variant (genome and speedup, from `gi-tool cache show`) or the line the
# build printed to say why it kept the original kernel.
outcome() {
    local sample="$1" kernel="$2" log="$3" cache="$4" entry="$4/$2.sm_$gpu_arch.xml" kept tool
    # (The log the line names is copied into $OUT as <sample>.evolve.log.)
    kept="$(grep -m1 -o ": $kernel sm_$gpu_arch: keeping the original kernel: .*" "$log" | sed "s/^: $kernel sm_$gpu_arch: //; s/; log: .*//")"
    if [[ -n "$kept" ]]; then echo "$kept" | cut -c1-400; return; fi
    if [[ -f "$entry" ]]; then
        tool="$(find "$on" -type f -name gi-tool -perm -u+x 2>/dev/null | head -1)"
        if [[ -x "$tool" ]] && "$tool" cache show "$entry" >"$OUT/$sample.show.log" 2>&1; then
            local genome time
            genome="$(awk '$1 == "genome" { $1 = ""; sub(/^ +/, ""); print }' "$OUT/$sample.show.log")"
            time="$(awk '$1 == "time" { $1 = ""; sub(/^ +/, ""); print }' "$OUT/$sample.show.log")"
            echo "cached variant '${genome:-(empty: the original kernel won)}'; $time"
        else
            echo "cached $(basename "$entry") (cache show failed: $(tail -1 "$OUT/$sample.show.log"))"
        fi
        return
    fi
    # No evolution (GI_GPU_ARCHITECTURE=none, or the architecture is not the target's): the build's line.
    kept="$(grep -m1 -o ": $kernel sm_[0-9, sm_]*: original kernel.*" "$log" | sed 's/^: //' | cut -c1-300)"
    echo "${kept:-no outcome line in $(basename "$log")}"
}

# One markdown row per sample, written as the sample finishes.
printf '| sample | configure + build ON (s) | evolve/accept outcome (sm_%s) | self-check ON | ms/iteration OFF | ms/iteration ON | OFF/ON | build OFF (s) |\n|---|---|---|---|---|---|---|---|\n' \
    "$gpu_arch" >"$OUT/table.md"

# gi-tool and gi-worker, built once in the ON folder (kept between calls): their build time is not
# an evolution's.
if [[ "$gpu_arch" != none && ! -x "$on/gi-optimize/gi-tool/gi-tool" ]]; then
    t0=$(now)
    if cmake -S "$root/tests/programs" -B "$on" "${common_args[@]}" -DGI_OPTIMIZE=ON "-DGI_GPU_ARCHITECTURE=$gpu_arch" \
           "-DSAMPLES=${samples[0]}" "-DSAMPLES_GI_CACHE_DIR=$work/cache-tools" >"$OUT/tools.log" 2>&1 &&
       cmake --build "$on" -j "$jobs" --target gi-tool gi-worker >>"$OUT/tools.log" 2>&1; then
        row "gi-tool and gi-worker built" "ok ($(since "$t0") s)"
    else
        fail "gi-tool and gi-worker built" "$(first_error "$OUT/tools.log") (tools.log; each sample's build tries again)"
    fi
fi

for sample in "${samples[@]}"; do
    kernel="${kernel_of[$sample]:-}"
    if [[ -z "$kernel" ]]; then
        fail "$sample" "not a sample of tests/programs (known: ${!kernel_of[*]})"
        continue
    fi
    echo
    echo "== $sample ($kernel)"
    read -r -a own <<<"${sample_args[$sample]:-}"
    cache="$work/cache-$sample"
    rm -rf "${cache:?}" "${work:?}/off-$sample" "${on:?}/$sample"
    mkdir -p "$cache"

    # GI_OPTIMIZE=OFF: the sample as it is without gi-optimize (the baseline timing).
    off_ok=0 build_off_s=""
    t0=$(now)
    if ! cmake -S "$root/tests/programs" -B "$work/off-$sample" "${common_args[@]}" "${own[@]}" -DGI_OPTIMIZE=OFF "-DSAMPLES=$sample" \
             >"$OUT/$sample.configure-off.log" 2>&1; then
        fail "$sample: OFF configure" "$(first_error "$OUT/$sample.configure-off.log")"
    elif ! cmake --build "$work/off-$sample" -j "$jobs" >"$OUT/$sample.build-off.log" 2>&1; then
        fail "$sample: OFF build" "$(first_error "$OUT/$sample.build-off.log")"
    else
        off_ok=1 build_off_s="$(since "$t0")"
        row "$sample: OFF configure + build" "ok ($build_off_s s)"
    fi

    # GI_OPTIMIZE=ON with an empty cache: the build records, evolves and accepts (or keeps the original).
    on_ok=0 configured=0 build_on_s=""
    t0=$(now)
    if cmake -S "$root/tests/programs" -B "$on" "${common_args[@]}" "${own[@]}" -DGI_OPTIMIZE=ON \
           "-DGI_GPU_ARCHITECTURE=$gpu_arch" "-DSAMPLES=$sample" "-DSAMPLES_GI_CACHE_DIR=$cache" "-DSAMPLES_GI_BUDGET=$budget" \
           >"$OUT/$sample.configure-on.log" 2>&1; then
        configured=1
        grep "gi-optimize: $sample:" "$OUT/$sample.configure-on.log" | sed 's/^-- //' | tee -a "$OUT/summary.txt"
        warnings=$(grep -c "^CMake Warning\|^CMake Deprecation Warning" "$OUT/$sample.configure-on.log")
        [[ "$warnings" == 0 ]] || fail "$sample: warnings in the configure" "$warnings; see $sample.configure-on.log"
        # The evolution is bounded by BUDGET (plus a minute and the acceptance's floor); this bounds the rest.
        if timeout $(((budget + 8) * 60)) cmake --build "$on" -j "$jobs" --target "$sample" >"$OUT/$sample.build-on.log" 2>&1; then
            on_ok=1
        fi
    else
        : >"$OUT/$sample.build-on.log"
    fi
    build_on_s="$(since "$t0")"
    if ((on_ok)); then
        row "$sample: ON build (records, evolves, accepts)" "ok ($build_on_s s)"
    elif ((configured)); then
        fail "$sample: ON build (records, evolves, accepts)" "$(first_error "$OUT/$sample.build-on.log") ($build_on_s s)"
    else
        fail "$sample: ON configure" "$(first_error "$OUT/$sample.configure-on.log")"
    fi
    grep -E "gi-optimize:|gi-tool (record|accept):|^gi-tool: (the original kernel|note: [0-9]+ of the)|^(generations|variants evaluated|evaluated per minute|parameter tuning alone|best speedup|final genome|validation|final check):" \
        "$OUT/$sample.build-on.log" >"$OUT/$sample.steps.log"
    if ((configured)); then
        result="$(outcome "$sample" "$kernel" "$OUT/$sample.build-on.log" "$cache")"
    else
        result="configure failed: $(first_error "$OUT/$sample.configure-on.log")"
    fi
    row "$sample: outcome (sm_$gpu_arch)" "$result"
    if ls "$cache"/*.xml >/dev/null 2>&1; then cp "$cache"/*.xml "$OUT/"; fi
    for step in evolve accept; do
        log="$(find "$on/$sample" -name "$step.log" -path "*evolve*sm_$gpu_arch*" 2>/dev/null | head -1)"
        [[ -n "$log" ]] && cp "$log" "$OUT/$sample.$step.log"
    done
    report="$(find "$on/$sample" -name report.html 2>/dev/null | head -1)"
    [[ -n "$report" ]] && cp "$report" "$OUT/$sample.report.html"

    # The built programs, run as a user runs them, OFF and ON alternately; each prints its own
    # benchmark loop's time per iteration and PASS or FAIL.
    check_on="not run" off_times=() on_times=()
    for ((i = 1; i <= timed_runs; i++)); do
        if ((off_ok)); then
            timeout 300 "$work/off-$sample/$sample/$sample" >"$OUT/$sample.run-off-$i.log" 2>&1
            off_times+=("$(time_per_iteration "$OUT/$sample.run-off-$i.log")")
        fi
        if ((on_ok)); then
            timeout 300 "$on/$sample/$sample" >"$OUT/$sample.run-on-$i.log" 2>&1
            status=$?
            case "$status" in
                0) verdict=PASS ;;
                2) verdict="waived (no GPU)" ;;
                *) verdict="FAIL (exit $status: $(grep -m1 -E "FAIL|rror" "$OUT/$sample.run-on-$i.log" | cut -c1-120))" ;;
            esac
            # The worst verdict of the runs counts.
            [[ "$check_on" == "not run" || "$check_on" == PASS || "$verdict" == FAIL* ]] && check_on="$verdict"
            on_times+=("$(time_per_iteration "$OUT/$sample.run-on-$i.log")")
        fi
    done
    off_ms="$(median "${off_times[@]}")" on_ms="$(median "${on_times[@]}")"
    if [[ "$check_on" == FAIL* ]]; then fail "$sample: self-check (ON build)" "$check_on"; else row "$sample: self-check (ON build)" "$check_on"; fi
    row "$sample: time per iteration OFF / ON" "${off_ms:-n/a} / ${on_ms:-n/a} ms ($(speed "${off_ms:-0}" "${on_ms:-0}"), median of $timed_runs)"
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$sample" \
        "$([[ $on_ok == 1 ]] && echo "ok, $build_on_s" || echo "FAILED, $build_on_s")" "${result//|/\\|}" "$check_on" \
        "${off_ms:-n/a}" "${on_ms:-n/a}" "$(speed "${off_ms:-0}" "${on_ms:-0}")" "${build_off_s:-failed}" >>"$OUT/table.md"
done

echo
cat "$OUT/table.md"
row "result" "$([[ $failures == 0 ]] && echo "all checks passed" || echo "$failures check(s) FAILED")"
exit $((failures > 0))
