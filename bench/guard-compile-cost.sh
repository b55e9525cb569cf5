#!/usr/bin/env bash
# What the guarded build costs NVRTC (issue 19): two stereo variants from a recorded 45 s search (an
# ordinary one, and one with `#pragma unroll 13` on the disparity loop, whose generations waited
# 6-9 s for compiles), compiled as the plain build, the guarded build at full optimisation and at
# -Ofc=mid, and the paired unit (both in one module, the default before -Ofc). CPU only: no GPU.
# Prints ms a compile (bench/nvrtc_scaling.cpp, one process, the second of two compiles).
#
#   GI_BUILD=build/tests bash bench/guard-compile-cost.sh     # a build of this tree (its libraries and gi-tool)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GI_BUILD:?set GI_BUILD to a build of this tree}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
lib="$build/gi-tool"
g++ -std=c++20 -O1 "$root/bench/guarded_source.cpp" -I "$root/gi-tool/src" -o "$work/guarded_source" \
    "$lib/libgi_variant.a" "$lib/libgi_grammar.a" "$lib/libgi_source.a" "$lib/libgi_util.a"
g++ -O2 -std=c++17 -pthread "$root/bench/nvrtc_scaling.cpp" -I "$cuda/include" -L "$cuda/lib64" -lnvrtc -o "$work/nvrtc_scaling"
stereo=(--function stereo_kernel --param BLOCK_W=16,32,64,128,256 --param ROWS_PER_THREAD=1..18,20,24,30,40,48,60
        --param XHALO=0,1 --param DPER=1..4 --param STORE_DISPARITY_PIXEL=0,1,2 --param STORE_MIN_SSD=0,1,2
        --param OUT_TYPE=float,int,short --param USE_MUL24=0,1 --flag "dlcm:-Xptxas -dlcm={ca|cg}" --block-size BLOCK_W,DPER)
declare -A genome=(
    [ordinary]="BLOCK_W=128 ROWS_PER_THREAD=2 XHALO=1 DPER=4 STORE_MIN_SSD=2 OUT_TYPE=short"
    [unroll13]="BLOCK_W=128 ROWS_PER_THREAD=3 XHALO=1 DPER=4 STORE_MIN_SSD=2 OUT_TYPE=short USE_MUL24=0 <pragma_stereo.cu_156><pragma_K13> <pragma_stereo.cu_199><pragma_K6>"
)
ms() {  # FILE [NVRTC options...]: ms a compile
    "$work/nvrtc_scaling" "$1" 2 1 -- -I "$root/kernels/stereo" --diag-error=940 "${@:2}" | awk '$2 == "processes" { print $5 }'
}
echo "NVRTC ms a compile, stereo variants (CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$root" rev-parse --short HEAD))"
printf '%-10s %8s %16s %18s %14s\n' variant plain "guarded (full)" "guarded (-Ofc=mid)" "paired (full)"
for name in ordinary unroll13; do
    "$build/gi-tool/gi-tool" apply "$root/kernels/stereo/stereo.cu" "${stereo[@]}" --genome "${genome[$name]}" -o "$work/$name.cu" >/dev/null
    "$work/guarded_source" "$work/$name.cu" >"$work/$name-guarded.cu"
    "$work/guarded_source" --paired "$work/$name.cu" >"$work/$name-paired.cu"
    printf '%-10s %8s %16s %18s %14s\n' "$name" "$(ms "$work/$name.cu")" "$(ms "$work/$name-guarded.cu")" \
        "$(ms "$work/$name-guarded.cu" --Ofast-compile=mid)" "$(ms "$work/$name-paired.cu")"
done
