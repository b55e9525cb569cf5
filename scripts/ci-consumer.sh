#!/usr/bin/env bash
# CI check of the shipped cache: builds the consumer example with GI_OPTIMIZE=ON and
# GI_REQUIRE_CACHE=ON (so a missing, stale, corrupt or hand-edited entry fails the build), verifies
# the cache with `gi-tool cache verify --compile`, builds the example again with GI_OPTIMIZE=OFF and
# checks that the device code built from the cache differs from the original kernel's.
# Needs nvcc, no GPU. Environment: GI_CI_BUILD_DIR (default build/ci-consumer), GI_TOOL (a built
# gi-tool to use instead of building one inside the consumer build), GI_CI_CACHE_DIR (the cache to
# check, default consumer-example/gi-cache).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/env.sh"
bash "$root/scripts/install-deps.sh"

base="${GI_CI_BUILD_DIR:-$root/build/ci-consumer}"
cache="${GI_CI_CACHE_DIR:-$root/consumer-example/gi-cache}"
tool_option=()
if [[ -n "${GI_TOOL:-}" ]]; then tool_option=("-DGI_OPTIMIZE_TOOL=$GI_TOOL"); fi

configure() {  # configure BUILD_DIR GI_OPTIMIZE [more -D options]
    local dir="$1" optimize="$2"
    shift 2
    cmake -S "$root/consumer-example" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_OPTIMIZE="$optimize" \
          -DGI_GPU_ARCHITECTURE=none -DSTEREO_CACHE_DIR="$cache" "${tool_option[@]}" "$@" >"$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; echo "ci-consumer: configuring with GI_OPTIMIZE=$optimize failed"; exit 1; }
    grep "gi-optimize:" "$dir.configure.log" || true
}

mkdir -p "$base"
echo "== consumer with GI_OPTIMIZE=ON GI_REQUIRE_CACHE=ON"
configure "$base/on" ON -DGI_REQUIRE_CACHE=ON
cmake --build "$base/on" -j "$GI_JOBS" --target stereo

echo "== gi-tool cache verify --compile"
tool="${GI_TOOL:-}"
if [[ -z "$tool" ]]; then   # the consumer's build made gi-apply only; gi-tool is one target away
    cmake --build "$base/on" -j "$GI_JOBS" --target gi-tool
    tool="$(find "$base/on" -type f -name gi-tool -perm -u+x | head -1)"
fi
[[ -x "$tool" ]] || { echo "ci-consumer: no gi-tool found in $base/on"; exit 1; }
registration="$(find "$base/on" -name 'stereo_kernel.registration' | head -1)"
mapfile -t args <"$registration"
"$tool" cache verify "$cache" "${args[@]}" --compile

echo "== consumer with GI_OPTIMIZE=OFF, for comparison"
configure "$base/off" OFF
cmake --build "$base/off" -j "$GI_JOBS" --target stereo

# The device code (the .nv_fatbin section: every architecture's cubin and PTX) must differ.
objcopy -O binary --only-section=.nv_fatbin "$base/on/stereo" "$base/on.fatbin"
objcopy -O binary --only-section=.nv_fatbin "$base/off/stereo" "$base/off.fatbin"
if cmp -s "$base/on.fatbin" "$base/off.fatbin"; then
    echo "ci-consumer: FAIL: the binary built from the cache has the same device code as the original-kernel build"
    exit 1
fi
echo "ci-consumer: OK: built from the cache ($("$base/on/stereo" --variants | tail -n +2 | head -2 | tr -s ' ' | tr '\n' ' '))"
echo "ci-consumer: device code differs from the original-kernel build ($(stat -c %s "$base/on.fatbin") vs $(stat -c %s "$base/off.fatbin") bytes of fatbinary)"
