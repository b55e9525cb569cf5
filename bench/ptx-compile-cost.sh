#!/usr/bin/env bash
# What a PTX-edited variant costs to compile against a full NVRTC compile, and the share of random
# PTX edits that assemble (issue 46), for every kernel under kernels/ that NVRTC compiles alone
# (bench/ptx_compile_cost.cpp). CPU only: no GPU. Each kernel at its registered defaults.
#
#   GI_BUILD=build/ptx bash bench/ptx-compile-cost.sh [COUNT]   # a build of this tree (its libraries)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GI_BUILD:?set GI_BUILD to a build of this tree}"
count="${1:-60}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
lib="$build/gi-tool"
g++ -std=c++20 -O2 "$root/bench/ptx_compile_cost.cpp" -I "$root/gi-tool/src" -I "$cuda/include" -o "$work/ptx_compile_cost" \
    "$lib/libgi_ptx.a" "$lib/libgi_genome.a" "$lib/libgi_grammar.a" "$lib/libgi_source.a" "$lib/libgi_util.a" \
    -L "$cuda/lib64" -lnvrtc -pthread
echo "PTX edits: compile cost and assembly rate (CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
     "$("$cuda/bin/ptxas" --version | tail -1); $(date -u +%Y-%m-%dT%H:%MZ); commit $(git -C "$root" rev-parse --short HEAD))"
for registration in "$root"/kernels/*/registration.txt; do
    dir="$(dirname "$registration")"
    kernel="$dir/$(awk '$1 == "kernel" { print $2 }' "$registration")"
    function="$(awk '$1 == "function" { print $2 }' "$registration")"
    for edits in 1 3; do
        "$work/ptx_compile_cost" "$kernel" "$function" "$count" "$edits" 46 "$cuda/bin/ptxas" -I "$dir" -I "$root/kernels" \
            2>&1 | sed "s|$root/||" || true
    done
done
