#!/usr/bin/env bash
# The CMake path on a machine with a GPU and no cache entry (issue 4, "GI_OPTIMIZE=ON, a GPU present
# and an entry missing"): configures consumer-example/ with GI_OPTIMIZE=ON and an empty cache
# folder, builds it (the build itself records test cases with the stereo program through gi-tool
# record, evolves the kernel for this GPU's architecture within STEREO_BUDGET minutes, builds the
# stereo program with the candidate compiled in and accepts it with gi-tool accept before writing
# the cache entry, and compiles the variant), then checks what a user would check:
#   1. the entry was written, and `gi-tool cache verify --compile` and `cache show` accept it;
#   2. the built program runs the evolved variant and every pixel matches the CPU reference
#      (`stereo --check`), on the training size and on a size it was never evolved on;
#   3. a second build with nothing changed does nothing (ninja: no work to do);
#   4. touching the cache entry recompiles the variant and does not evolve again;
#   5. a fresh configure of a second build folder finds the entry "cached" and evolves nothing.
# Usage (on the device): OUT=out/cmake-gpu bash bench/cmake-gpu.sh      Needs nvcc and a GPU.
# Environment: GI_BUDGET (minutes, 2), GI_JOBS (build parallelism), OUT (where the logs go).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/cmake-gpu}"
mkdir -p "$OUT"
budget="${GI_BUDGET:-2}"
jobs="${GI_JOBS:-$(nproc)}"
work=/tmp/gi-cmake-gpu
rm -rf "$work"
mkdir -p "$work/cache"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
# shellcheck source=bench/summary.sh
source "$root/bench/summary.sh"

unpack_carried_packages >"$OUT/deps.log" 2>&1
row "GPU" "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
row "date (UTC)" "$(date -u +%Y-%m-%dT%H:%MZ)"
# The device's copy of the tree may carry stale git metadata: GI_COMMIT names the tree that ran.
row "commit" "${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
row "budget" "$budget min (STEREO_BUDGET)"

configure() {  # build-dir log
    cmake -S "$root/consumer-example" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_OPTIMIZE=ON \
          -DSTEREO_CACHE_DIR="$work/cache" -DSTEREO_BUDGET="$budget" "${prefix_args[@]}" >"$2" 2>&1
}

build="$work/build"
t0=$(now)
if configure "$build" "$OUT/configure.log"; then
    row "configure" "ok ($(since "$t0") s)"
else
    fail "configure" "see configure.log"; tail -30 "$OUT/configure.log"; exit 1
fi
grep "gi-optimize:" "$OUT/configure.log" | sed 's/^-- //' | tee -a "$OUT/summary.txt"
# Issue 17: including gi-optimize adds no warnings to the project's configure (CMake 4 here).
warnings=$(grep -c "^CMake Warning\|^CMake Deprecation Warning" "$OUT/configure.log")
if [[ "$warnings" == 0 ]]; then
    row "warnings in the configure" "none ($(cmake --version | head -1))"
else
    fail "warnings in the configure" "$warnings ($(cmake --version | head -1)); see configure.log"
fi

t0=$(now)
if cmake --build "$build" -j "$jobs" --target stereo >"$OUT/build.log" 2>&1; then
    row "build (records, evolves, compiles)" "ok ($(since "$t0") s)"
else
    fail "build (records, evolves, compiles)" "see build.log ($(since "$t0") s)"; tail -40 "$OUT/build.log"
fi
grep -E "gi-optimize:|gi-tool (record|accept):|^gi-tool: (the original kernel|note: [0-9]+ of the)|^(generations|variants evaluated|evaluated per minute|parameter tuning alone|best speedup|final genome|validation|final check):" \
    "$OUT/build.log" | tee -a "$OUT/summary.txt"
if grep -q "gi-tool accept: accepted" "$OUT/build.log"; then
    row "acceptance (the program with the candidate)" "accepted"
else
    fail "acceptance (the program with the candidate)" "no 'gi-tool accept: accepted' in build.log"
fi

entry="$(ls "$work"/cache/*.xml 2>/dev/null | head -1)"
if [[ -n "$entry" ]]; then
    row "cache entry written" "$(basename "$entry")"
    cp "$entry" "$OUT/"
else
    fail "cache entry written" "no entry in $work/cache"
fi

tool="$(find "$build" -type f -name gi-tool -perm -u+x | head -1)"
registration="$(find "$build" -name 'stereo_kernel.registration' | head -1)"
if [[ -x "$tool" && -n "$registration" && -n "$entry" ]]; then
    mapfile -t args <"$registration"
    if "$tool" cache verify "$work/cache" "${args[@]}" --compile >"$OUT/verify.log" 2>&1; then
        row "gi-tool cache verify --compile" "ok: $(tail -1 "$OUT/verify.log")"
    else
        fail "gi-tool cache verify --compile" "$(tail -3 "$OUT/verify.log" | tr '\n' ' ')"
    fi
    "$tool" cache show "$work/cache" >"$OUT/show.log" 2>&1 || fail "gi-tool cache show" "$(tail -2 "$OUT/show.log")"
    cat "$OUT/show.log"
fi

if [[ -x "$build/stereo" ]]; then
    "$build/stereo" --variants >"$OUT/variants.log" 2>&1
    row "variants in the binary" "$(tr '\n' ' ' <"$OUT/variants.log" | cut -c1-160)"
    for size in "320 240" "640 480"; do
        read -r w h <<<"$size"
        if "$build/stereo" --width "$w" --height "$h" --seed 4242 --frames 50 --check --out "$work/map-$w.pgm" \
               >"$OUT/run-$w.log" 2>&1; then
            row "stereo --check ${w}x${h}" "ok: $(grep -iE "variant|ms|pixels" "$OUT/run-$w.log" | tr '\n' ' ' | cut -c1-200)"
        else
            fail "stereo --check ${w}x${h}" "$(tail -3 "$OUT/run-$w.log" | tr '\n' ' ')"
        fi
    done
fi

cmake --build "$build" -j "$jobs" --target stereo >"$OUT/rebuild.log" 2>&1
if grep -q "no work to do" "$OUT/rebuild.log"; then
    row "second build, nothing changed" "no work to do"
else
    fail "second build, nothing changed" "$(tail -3 "$OUT/rebuild.log" | tr '\n' ' ')"
fi

if [[ -n "$entry" ]]; then
    touch "$entry"
    t0=$(now)
    cmake --build "$build" -j "$jobs" --target stereo >"$OUT/touch.log" 2>&1
    if grep -q "evolving it" "$OUT/touch.log"; then
        fail "build after touching the entry" "evolved again"
    elif grep -q "gi-optimize: stereo_kernel for" "$OUT/touch.log"; then
        row "build after touching the entry" "variant regenerated and recompiled, no evolution ($(since "$t0") s)"
    else
        fail "build after touching the entry" "the variant was not regenerated: $(tail -3 "$OUT/touch.log" | tr '\n' ' ')"
    fi
    if configure "$work/build2" "$OUT/configure2.log" && grep -q "cached variant" "$OUT/configure2.log" &&
       ! grep -q "evolves it" "$OUT/configure2.log"; then
        row "fresh configure with the entry" "$(grep "cached variant" "$OUT/configure2.log" | sed 's/^-- //' | head -1)"
    else
        fail "fresh configure with the entry" "$(grep "gi-optimize:" "$OUT/configure2.log" | head -2 | tr '\n' ' ')"
    fi
fi

row "result" "$([[ $failures == 0 ]] && echo "all checks passed" || echo "$failures check(s) FAILED")"
exit $((failures > 0))
