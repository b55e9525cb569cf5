# The summary table of the CMake-path GPU checks (bench/cmake-gpu.sh, bench/cmake-two-kernels.sh):
# source it after setting OUT. `row NAME VALUE` prints a line and keeps it in $OUT/summary.txt,
# `fail NAME WHY` does so and counts it in `failures`; `since T0` is the seconds since `now` gave T0.
failures=0
: >"$OUT/summary.txt"
row() { printf '%-44s %s\n' "$1" "$2" | tee -a "$OUT/summary.txt"; }
fail() { row "$1" "FAILED: $2"; failures=$((failures + 1)); }
now() { date +%s.%N; }
since() { awk "BEGIN { printf \"%.1f\", $(now) - $1 }"; }
