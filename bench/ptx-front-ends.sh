#!/usr/bin/env bash
# Where NVRTC's front end and nvcc's (gcc's preprocessor, cudafe++, cicc) make different PTX of
# the same file (issue 46): PTX edits index NVRTC's PTX, and the build's PTX launcher refuses a
# kernel whose instructions in nvcc's PTX differ, shipping the original instead. For every kernel
# under kernels/: the lines that differ once virtual register numbers and labels are renumbered
# (so only real code differences count), its __shared__ uses, and each front end's wall time.
# CPU only: no GPU.
#
#   bash bench/ptx-front-ends.sh [ARCH]        # ARCH: compute_90 (default)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
arch="${1:-compute_90}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O2 "$root/bench/nvrtc_ptx.cpp" -I "$cuda/include" -L "$cuda/lib64" -lnvrtc -o "$work/nvrtc_ptx"
export LD_LIBRARY_PATH="$cuda/lib64:${LD_LIBRARY_PATH:-}"
# Register numbers and branch labels renumbered, declarations of register counts dropped.
normal() { grep -v '^//' "$1" | grep -v '^\s*\.reg ' | sed -E 's/%(r|rd|f|fd|p|rs|h|hh)[0-9]+/%\1N/g; s/\$L__BB[0-9]+_[0-9]+/L/g'; }
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 || return 1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
echo "PTX of NVRTC and of nvcc's front end, $arch ($("$cuda/bin/nvcc" --version | tail -1); $(date -u +%Y-%m-%dT%H:%MZ);" \
     "commit $(git -C "$root" rev-parse --short HEAD))"
echo
echo "| kernel | entries (NVRTC / nvcc) | lines that differ | __shared__ lines in NVRTC's PTX | NVRTC ms | nvcc -ptx ms |"
echo "|---|---|---|---|---|---|"
for registration in "$root"/kernels/*/registration.txt; do
    dir="$(dirname "$registration")"
    file="$dir/$(awk '$1 == "kernel" { print $2 }' "$registration")"
    name="$(basename "$file")"
    if ! "$work/nvrtc_ptx" "$file" -arch="$arch" -I"$dir" -I"$root/kernels" -std=c++17 >"$work/a.ptx" 2>"$work/a.log"; then
        echo "| $name | NVRTC cannot compile the file alone | | | | |"; continue
    fi
    "$cuda/bin/nvcc" -ptx -arch="$arch" -I"$dir" -I"$root/kernels" -std=c++17 "$file" -o "$work/b.ptx" 2>/dev/null
    nvrtc_ms=$(ms "$work/nvrtc_ptx" "$file" -arch="$arch" -I"$dir" -I"$root/kernels" -std=c++17)
    nvcc_ms=$(ms "$cuda/bin/nvcc" -ptx -arch="$arch" -I"$dir" -I"$root/kernels" -std=c++17 "$file" -o "$work/c.ptx")
    differ=$(diff <(normal "$work/a.ptx") <(normal "$work/b.ptx") | grep -c '^[<>]' || true)
    echo "| $name | $(grep -c '\.entry' "$work/a.ptx") / $(grep -c '\.entry' "$work/b.ptx") | $differ |" \
         "$(grep -c '\.shared' "$work/a.ptx" || true) | $nvrtc_ms | $nvcc_ms |"
done
