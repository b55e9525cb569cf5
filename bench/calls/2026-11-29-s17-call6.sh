#!/usr/bin/env bash
# Session 17's sixth device call (run tool, carry [".carry"]: the debs and b.tar.gz = `git archive
# 5bcf8ae`): dp_sweep evolved with the guard-zone prescreen before each guess (on) and without it
# (`--no-gate-prescreen`), the same seed and cases, 35 s searches, on then off.
set -u
root="$PWD"
source bench/common.sh; unpack_carried_packages >/dev/null 2>&1; detect_gpu
b=/tmp/b-b
s=$(date +%s)
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
  cmake --build $b -j 16 --target gi-tool gi-worker dp_sweep_driver >>"$OUT/build.log" 2>&1
echo "build: $? in $(( $(date +%s) - s )) s"
for mode in on off; do
  opts=""; [[ $mode == off ]] && opts="--no-gate-prescreen"
  s=$(date +%s)
  GI_BUILD=$b THROUGHPUT_KERNELS=dp_sweep THROUGHPUT_SECONDS=${SECS:-35} THROUGHPUT_SANITIZE_CASES=0 THROUGHPUT_OPTIONS="$opts" \
    THROUGHPUT_LABEL="prescreen $mode" THROUGHPUT_WORK=/tmp/w THROUGHPUT_REUSE_CASES=1 OUT="$OUT/tp-$mode" timeout 100 \
    bash bench/throughput.sh >"$OUT/tp-$mode.log" 2>&1
  echo "== prescreen $mode: exit $? in $(( $(date +%s) - s )) s"
  grep -A1 "^kernel" "$OUT/tp-$mode.log" | tail -1 | cut -c1-200
  grep -h "^search time:" "$OUT/tp-$mode/evolve.log" | cut -c1-420
done
cd "$OUT" && tar -czf all.tar.gz *.log tp-* 2>/dev/null; ls
