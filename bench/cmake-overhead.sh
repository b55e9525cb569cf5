#!/usr/bin/env bash
# Build-time overhead of GI_OPTIMIZE=ON with a warm cache, on the consumer example: configure and
# build from scratch N times each with GI_OPTIMIZE=OFF and with ON (an sm_90 entry present, so no
# evolution), and a no-op rebuild with ON. gi-tool is built once beforehand and passed with
# GI_OPTIMIZE_TOOL: like the compiler, it is a tool the build uses, not part of what is measured.
# The entry is hand-picked (BENCH_GENOME) in a scratch cache folder: what is measured is the
# mechanism (key check, variant generation, compiling a generated file), not the genome.
# Then the no-GPU ON build as CI and a newcomer run it (issue 17): from a clean build folder, no
# GI_OPTIMIZE_TOOL, the shipped gi-cache, so the consumer's build compiles gi-optimize's part itself
# (gi-apply and the recorder library), timed on its own and against OFF.
# Usage: [GI_TOOL=path/to/gi-tool] bench/cmake-overhead.sh [RUNS]   (default 3). Prints two tables;
# needs nvcc, no GPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/env.sh"
runs="${1:-3}"
work="${GI_BENCH_DIR:-$root/build/bench-cmake-overhead}"
genome="${BENCH_GENOME:-BLOCK_W=32 ROWS_PER_THREAD=8}"
mkdir -p "$work"

tool="${GI_TOOL:-}"   # a built gi-tool; otherwise one is built here first
if [[ -z "$tool" ]]; then
    tool_build="$work/gi-optimize"
    cmake -S "$root" -B "$tool_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=OFF >/dev/null
    cmake --build "$tool_build" -j "$GI_JOBS" --target gi-tool >/dev/null
    tool="$tool_build/gi-tool/gi-tool"
fi

# The entry, written for the consumer's registration exactly as its build computes it.
probe="$work/probe"
rm -rf "$probe" "$work/cache"
cmake -S "$root/consumer-example" -B "$probe" -G Ninja -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=none \
      -DGI_OPTIMIZE_TOOL="$tool" -DSTEREO_CACHE_DIR="$work/cache" >/dev/null 2>&1
mapfile -t registration <"$probe/gi-optimize/stereo/stereo_kernel.registration"
"$tool" cache write "${registration[@]}" --arch 90 --cache-dir "$work/cache" --genome "$genome" --allow-unvalidated \
        --note "bench/cmake-overhead.sh: hand-picked, not evolved" >/dev/null

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.3f\", $* }"; }
measure() {  # measure MODE -> prints "configure_s build_s"
    local mode="$1" dir="$work/build-$1"
    rm -rf "$dir"
    local t0 t1 t2
    t0=$(now)
    cmake -S "$root/consumer-example" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_OPTIMIZE="$mode" \
          -DGI_GPU_ARCHITECTURE=none -DGI_REQUIRE_CACHE="$mode" -DGI_OPTIMIZE_TOOL="$tool" \
          -DSTEREO_CACHE_DIR="$work/cache" >"$dir.log" 2>&1
    t1=$(now)
    cmake --build "$dir" -j "$GI_JOBS" --target stereo >>"$dir.log" 2>&1
    t2=$(now)
    if grep -q " evolve " "$dir.log"; then echo "evolution ran in the $mode build" >&2; exit 1; fi
    echo "$(calc "$t1 - $t0") $(calc "$t2 - $t1")"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

declare -A configure build
for mode in OFF ON; do configure[$mode]=""; build[$mode]=""; done
for ((i = 1; i <= runs; i++)); do
    for mode in OFF ON; do   # interleaved, so machine load drifts hit both alike
        read -r c b < <(measure "$mode")
        configure[$mode]+="$c"$'\n'
        build[$mode]+="$b"$'\n'
    done
done
noop_start=$(now)
cmake --build "$work/build-ON" -j "$GI_JOBS" --target stereo >"$work/noop.log"
noop=$(calc "$(now) - $noop_start")

c_off=$(printf '%s' "${configure[OFF]}" | median); c_on=$(printf '%s' "${configure[ON]}" | median)
b_off=$(printf '%s' "${build[OFF]}" | median); b_on=$(printf '%s' "${build[ON]}" | median)
t_off=$(calc "$c_off + $b_off"); t_on=$(calc "$c_on + $b_on")
overhead=$(awk "BEGIN { printf \"%.1f\", 100 * ($t_on - $t_off) / $t_off }")
echo "consumer-example build time, median of $runs clean configure+build runs each ($(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ))"
echo "genome of the sm_90 entry: $genome (hand-picked)"
printf '%-28s %10s %10s %10s\n' "" configure build total
printf '%-28s %9.2fs %9.2fs %9.2fs\n' "GI_OPTIMIZE=OFF" "$c_off" "$b_off" "$t_off"
printf '%-28s %9.2fs %9.2fs %9.2fs\n' "GI_OPTIMIZE=ON, warm cache" "$c_on" "$b_on" "$t_on"
echo "overhead of ON: ${overhead}% (target: within 5%); evolution runs: 0"
echo "no-op rebuild with ON: ${noop}s ($(tail -1 "$work/noop.log"))"
echo "per-run seconds (configure build): OFF [$(paste -d' ' <(printf '%s' "${configure[OFF]}") <(printf '%s' "${build[OFF]}") | tr '\n' ',')]" \
     "ON [$(paste -d' ' <(printf '%s' "${configure[ON]}") <(printf '%s' "${build[ON]}") | tr '\n' ',')]"

# ---- the no-GPU ON build from a clean folder, gi-optimize's part built by the consumer's build ----
measure_clean() {  # measure_clean MODE -> prints "configure_s part_s program_s"
    local mode="$1" dir="$work/clean-$1"
    rm -rf "$dir"
    local t0 t1 t2 t3
    t0=$(now)
    cmake -S "$root/consumer-example" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_OPTIMIZE="$mode" \
          -DGI_GPU_ARCHITECTURE=none -DGI_REQUIRE_CACHE="$mode" >"$dir.log" 2>&1
    t1=$(now)
    if [[ "$mode" == ON ]]; then   # what the program's build needs of gi-optimize, on its own
        cmake --build "$dir" -j "$GI_JOBS" --target gi-apply gi_recorder >>"$dir.log" 2>&1
    fi
    t2=$(now)
    cmake --build "$dir" -j "$GI_JOBS" >>"$dir.log" 2>&1   # `all`, as a user types it
    t3=$(now)
    if [[ -e "$dir/_deps/gi_optimize-build/gi-tool/gi-tool" ]]; then echo "gi-tool was built in the $mode build" >&2; exit 1; fi
    echo "$(calc "$t1 - $t0") $(calc "$t2 - $t1") $(calc "$t3 - $t2")"
}
declare -A clean_configure clean_part clean_program
for mode in OFF ON; do clean_configure[$mode]=""; clean_part[$mode]=""; clean_program[$mode]=""; done
for ((i = 1; i <= runs; i++)); do
    for mode in OFF ON; do
        read -r c p b < <(measure_clean "$mode")
        clean_configure[$mode]+="$c"$'\n'; clean_part[$mode]+="$p"$'\n'; clean_program[$mode]+="$b"$'\n'
    done
done
echo
echo "consumer-example from a clean build folder, no GPU, shipped gi-cache, no GI_OPTIMIZE_TOOL: gi-optimize's"
echo "part is built by the consumer's build (median of $runs runs each; $(nproc) cores)"
printf '%-28s %10s %16s %10s %10s\n' "" configure "gi-optimize part" program total
for mode in OFF ON; do
    c=$(printf '%s' "${clean_configure[$mode]}" | median); p=$(printf '%s' "${clean_part[$mode]}" | median)
    b=$(printf '%s' "${clean_program[$mode]}" | median)
    printf '%-28s %9.2fs %15.2fs %9.2fs %9.2fs\n' "GI_OPTIMIZE=$mode" "$c" "$p" "$b" "$(calc "$c + $p + $b")"
done
p_on=$(printf '%s' "${clean_part[ON]}" | median)
echo "gi-optimize's part (gi-apply and the recorder library): ${p_on}s (target: 60 s or less on 2 cores)"
echo "what the ON build compiled of gi-optimize's: $(grep -c 'Building CXX object _deps/gi_optimize-build' "$work/clean-ON.log") C++ files;" \
     "gi-tool built: no"
echo "per-run seconds (configure part program): OFF [$(paste -d' ' <(printf '%s' "${clean_configure[OFF]}") <(printf '%s' "${clean_part[OFF]}") <(printf '%s' "${clean_program[OFF]}") | tr '\n' ',')]" \
     "ON [$(paste -d' ' <(printf '%s' "${clean_configure[ON]}") <(printf '%s' "${clean_part[ON]}") <(printf '%s' "${clean_program[ON]}") | tr '\n' ',')]"
