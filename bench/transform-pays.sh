#!/usr/bin/env bash
# Issue 46: does a transformation gene pay on the corpus kernel written to need it? Builds
# kernels/$KERNEL's driver (fir_decimate unless KERNEL says otherwise: row_norms, written for the
# shfl gene) once with the original kernel and once per genome with the variant `gi-tool apply`
# writes (each transformation gene of the kernel, each value alone, and the pairs below), runs each
# at the training size bench/common.sh records (the driver checks every output against its CPU
# reference: PASS or FAIL) and prints the median time of a pass and the speedup over the original.
# Needs a GPU, nvcc and a built gi-tool.
#
#   bash bench/transform-pays.sh [BUILD_DIR]        BUILD_DIR: where gi-tool was built (build/tests)
#   KERNEL=row_norms bash bench/transform-pays.sh   another corpus kernel (its function is its name)
#   KERNEL=conv1d bash bench/transform-pays.sh      the stage gene's kernel (a 17-tap convolution)
#   KERNEL=frame_corr bash bench/transform-pays.sh  the vec gene's (one thread a frame)
#   KERNEL=channel_gamma bash bench/transform-pays.sh  the hoist gene's, beside restrict=1 (with
#                                                   __restrict__ nvcc may hoist the gain itself)
#   GENOMES="unroll_fir_decimate.cu_23=4;..." bash bench/transform-pays.sh   other genomes
#   ARGS="--outputs 262144 --taps 1024" bash bench/transform-pays.sh          other sizes
#   ARCH=sm_90 (default native: the GPU of this machine)
# Where the GPU machine lacks gi-tool's libraries, write the variants here and run them there:
#   PREPARE=DIR bash bench/transform-pays.sh build/tests   (no GPU needed: DIR/genomes.txt, DIR/N.cu,
#                                                           DIR/kernel.txt)
#   FROM=DIR bash bench/transform-pays.sh                   (no gi-tool needed; the kernel DIR names)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${FROM:-}" ]; then
    build="$(cd "${1:-$root/build/tests}" && pwd)"
    gi_tool="$build/gi-tool/gi-tool"
    [ -x "$gi_tool" ] || { echo "no gi-tool at $gi_tool: build it first (cmake --build $build --target gi-tool)"; exit 2; }
fi
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
name="${KERNEL:-fir_decimate}"
[ -n "${FROM:-}" ] && [ -f "$FROM/kernel.txt" ] && name="$(cat "$FROM/kernel.txt")"
kernel="$root/kernels/$name/$name.cu"
[ -f "$kernel" ] || { echo "no corpus kernel $kernel (KERNEL=$name)"; exit 2; }
source "$root/bench/common.sh"
record_args "$name"
args="${ARGS:-${train[0]}} --reps 50"
work="$(mktemp -d "${TMPDIR:-/tmp}/gi-transform-pays.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if [ -n "${FROM:-}" ]; then
    GENOMES="$(paste -sd ';' "$FROM/genomes.txt")"
elif [ -z "${GENOMES:-}" ]; then
    # Every value of every transformation gene the grammar offers, then unroll with the check
    # dropped, and the warp's reduction with the loop before it unrolled.
    mapfile -t genes < <("$gi_tool" grammar "$kernel" --function "$name" |
        sed -n 's/^<\(\(unroll\|hoist\|unguard\|vec\|shfl\|coarsen\|stage\)_[^>]*\)> ::= \(.*\)#.*default "\([^"]*\)".*/\1 \3 \4/p')
    list=()
    unroll="" unguard="" shfl="" hoist=""
    for line in "${genes[@]}"; do
        gene="${line%% *}" default="${line##* }"
        for value in $(echo "$line" | grep -o '"[^"]*"' | tr -d '"'); do
            [ "$value" = "$default" ] || list+=("$gene=$value")
        done
        case "$gene" in unroll_*) unroll="$gene" ;; unguard_*) unguard="$gene" ;; shfl_*) shfl="$gene" ;; hoist_*) hoist="$gene" ;; esac
    done
    [ -n "$unroll" ] && [ -n "$unguard" ] && list+=("$unroll=4 $unguard=1" "$unroll=8 $unguard=1")
    [ -n "$unroll" ] && [ -n "$shfl" ] && list+=("$shfl=1 $unroll=4")
    [ -n "$hoist" ] && list+=("restrict=1" "restrict=1 $hoist=1")
    GENOMES="$(IFS=';'; echo "${list[*]}")"
fi

build_driver() {  # kernel_file out
    "$nvcc" -O3 -std=c++17 -arch="${ARCH:-native}" -diag-suppress=177 -I "$root/kernels" -I "$root/gi-tool/src" \
        "$root/kernels/$name/${name}_driver.cu" "$1" "$root/kernels/$name/reference.cpp" -o "$2"
}
run_driver() {  # binary -> "median PASS|FAIL"
    local out t
    out="$("$1" $args 2>&1)" || true
    t="$(echo "$out" | sed -n 's/.*pass median \([0-9.]*\) ms.*/\1/p')"
    echo "${t:--} $(echo "$out" | tail -1 | cut -c1-60)"
}

IFS=';' read -ra genomes <<<"$GENOMES"
variant_of() {  # index genome -> the variant's file
    if [ -n "${FROM:-}" ]; then
        echo "$FROM/$1.cu"
    else
        "$gi_tool" apply "$kernel" --function "$name" --genome "$2" -o "$work/$1.cu" >/dev/null
        echo "$work/$1.cu"
    fi
}
if [ -n "${PREPARE:-}" ]; then
    mkdir -p "$PREPARE"
    : >"$PREPARE/genomes.txt"
    echo "$name" >"$PREPARE/kernel.txt"
    for i in "${!genomes[@]}"; do
        cp "$(variant_of "$i" "${genomes[$i]}")" "$PREPARE/$i.cu"
        echo "${genomes[$i]}" >>"$PREPARE/genomes.txt"
    done
    echo "wrote ${#genomes[@]} variants to $PREPARE; on the GPU machine: FROM=$PREPARE bash bench/transform-pays.sh"
    exit 0
fi

build_driver "$kernel" "$work/original"
read -r base base_verdict < <(run_driver "$work/original")
printf '%-52s %10s %8s %s\n' genome "median ms" speedup check
printf '%-52s %10s %8s %s\n' "(original)" "$base" "1.000" "$base_verdict"
for i in "${!genomes[@]}"; do
    genome="${genomes[$i]}"
    build_driver "$(variant_of "$i" "$genome")" "$work/variant"
    read -r t verdict < <(run_driver "$work/variant")
    printf '%-52s %10s %8s %s\n' "$genome" "$t" "$(awk -v b="$base" -v t="$t" 'BEGIN { if (t + 0 > 0 && b + 0 > 0) printf "%.3f", b / t; else print "-" }')" "$verdict"
done
