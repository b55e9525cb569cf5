#!/usr/bin/env bash
# What one launch of a kernel that writes out of bounds from many threads costs under
# compute-sanitizer memcheck, by the options the gate could pass (issue 19). Each configuration
# runs the program (bench/sanitizer_fault/oob_writer.cu) REPS times with every thread out of
# bounds, with one, and clean; the table gives the median wall time of the whole process.
#   bash bench/sanitizer-fault-cost.sh          # on the device machine; OUT=... for the table
# Env: FAULT_THREADS (default 1048576), FAULT_REPS (default 3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$root/bench/data/sanitizer-fault-cost}"
mkdir -p "$OUT"
threads="${FAULT_THREADS:-1048576}"
reps="${FAULT_REPS:-3}"
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
exe="$OUT/oob_writer"
/usr/local/cuda/bin/nvcc -O2 -lineinfo -o "$exe" "$root/bench/sanitizer_fault/oob_writer.cu"

median_s() {  # median wall seconds of REPS runs of "$@"
    local times=()
    for _ in $(seq "$reps"); do
        local t0 t1
        t0=$(date +%s%N)
        "$@" > "$OUT/last.log" 2>&1 || true
        t1=$(date +%s%N)
        times+=("$(( (t1 - t0) / 1000000 ))")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f\n", a[int((NR+1)/2)] / 1000}'
}

summary="$OUT/summary.txt"
{
    echo "memcheck on one launch of $threads threads (median of $reps process runs, s): every thread writing out of"
    echo "bounds, only the last one (one element past the buffer), none"
    echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
    printf '%-58s %10s %10s %10s\n' "options" "all" "one" "clean"
    while IFS= read -r opts; do
        # shellcheck disable=SC2086
        all=$(median_s "$sanitizer" --tool memcheck $opts "$exe" "$threads")
        errors=$(grep -cE "^========= Invalid" "$OUT/last.log" || true)
        cp "$OUT/last.log" "$OUT/all-$(echo "${opts:-defaults}" | tr -c 'a-z0-9\n' '_').log"
        # shellcheck disable=SC2086
        one=$(median_s "$sanitizer" --tool memcheck $opts "$exe" "$threads" 1)
        # shellcheck disable=SC2086
        clean=$(median_s "$sanitizer" --tool memcheck $opts "$exe" "$threads" 0)
        printf '%-58s %10s %10s %10s   (%s reports printed)\n' "${opts:-(defaults)}" "$all" "$one" "$clean" "$errors"
    done <<'OPTIONS'
--print-limit 20
--print-limit 1 --show-backtrace no --check-device-heap no
--print-limit 20 --destroy-on-device-error kernel
OPTIONS
    printf '%-58s %10s %10s %10s\n' "no sanitizer" "$(median_s "$exe" "$threads")" "$(median_s "$exe" "$threads" 1)" \
        "$(median_s "$exe" "$threads" 0)"
} | tee "$summary"
