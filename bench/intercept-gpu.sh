#!/usr/bin/env bash
# Issue 42's GPU tests alone, on the device machine: builds gi-optimize's tests and what they run,
# then runs the launch intercept's tests (GpuIntercept.*: every way of launching, static and shared
# runtime, per-thread default streams, the corpus recorded both ways; InterceptFakeDriver.*) and
# the gi::launch recorder's (GpuRecorder.*), which shares the recording core. Logs go to $OUT.
#   OUT=dir bash bench/intercept-gpu.sh
#   GI_INTERCEPT_FILTER='GpuIntercept.*' bash bench/intercept-gpu.sh
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/out/intercept-gpu}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1 | tee "$OUT/gpu.txt"
build="${GI_INTERCEPT_BUILD:-/tmp/gi-intercept-build}"
start=$(date +%s)
if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON \
          -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" &&
       cmake --build "$build" -j "$(nproc)" --target gi_tests gi-worker gi_record_demo; } >"$OUT/build.log" 2>&1; then
    echo "build FAILED after $(( $(date +%s) - start )) s"; tail -40 "$OUT/build.log"; exit 1
fi
echo "build: $(( $(date +%s) - start )) s"
filter="${GI_INTERCEPT_FILTER:-GpuIntercept.*:InterceptFakeDriver.*:GpuRecorder.*}"
(cd "$build/tests" && timeout 500 ./gi_tests --gtest_color=no --gtest_filter="$filter") >"$OUT/tests.log" 2>&1
status=$?
grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|^\[  PASSED|tests? ran' "$OUT/tests.log"
echo "gi_tests exit $status"
grep -B2 -A12 'Failure$' "$OUT/tests.log" | head -150
exit $status
