#!/usr/bin/env bash
# The device call of bench/results/2026-11-29-h200-issue-43-ab-and-gpu-check.md, as run (run tool,
# carry [".carry"] holding a3d.tar.gz = `git archive a3d813f`, head.tar.gz = `git archive ed4b60c`
# and the debs): tree A (a3d813f, before issue 43) and tree B (HEAD) built from the tars; B's GPU
# tests; then bench/throughput.sh on stereo for each tree in turn (B A A B), same seed and search
# time. bench/tree-tars-ab.sh now does the A/B part for any kernels.
set -u
here="$PWD"; root="$PWD"
source bench/common.sh; unpack_carried_packages >/dev/null 2>&1; detect_gpu
for t in a3d head; do
  rm -rf /tmp/tree-$t && mkdir -p /tmp/tree-$t && tar -xzf .carry/$t.tar.gz -C /tmp/tree-$t
done
ln -s "$here/.carry" /tmp/tree-head/.carry
conf() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}"; }
s=$(date +%s)
( conf /tmp/tree-head /tmp/b-head && cmake --build /tmp/b-head -j 12 --target gi-tool gi-worker gi_tests stereo_driver ) >"$OUT/build-head.log" 2>&1 &
( conf /tmp/tree-a3d /tmp/b-a3d && cmake --build /tmp/b-a3d -j 4 --target gi-tool gi-worker stereo_driver ) >"$OUT/build-a3d.log" 2>&1 &
wait
echo "builds: $(( $(date +%s) - s )) s; head $(tail -1 $OUT/build-head.log | cut -c1-80); a3d $(tail -1 $OUT/build-a3d.log | cut -c1-80)"
s=$(date +%s)
( cd /tmp/b-head/tests && timeout 200 ./gi_tests --gtest_filter='Gpu*' >"$OUT/gpu-tests.log" 2>&1; echo "exit $?" >>"$OUT/gpu-tests.log" )
echo "gpu tests: $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|tests ran|exit " "$OUT/gpu-tests.log" | head -20
n=0
for t in head a3d a3d head; do
  n=$((n+1))
  s=$(date +%s)
  ( cd /tmp/tree-$t && GI_BUILD=/tmp/b-$t THROUGHPUT_KERNELS=stereo THROUGHPUT_SECONDS=${SECS:-30} THROUGHPUT_WORK=/tmp/w-$t \
      THROUGHPUT_REUSE_CASES=1 THROUGHPUT_LABEL="$t run $n" OUT="$OUT/tp$n-$t" timeout 150 bash bench/throughput.sh >"$OUT/tp$n-$t.log" 2>&1 )
  echo "== run $n $t ($(( $(date +%s) - s )) s)"; grep -A3 "^kernel" "$OUT/tp$n-$t.log" | cut -c1-220
done
cd "$OUT" && tar -czf all.tar.gz *.log tp* 2>/dev/null; ls
# The second call (the same machine, still warm: /tmp kept) ran the GPU tests the first did not
# reach, with gi_record_demo built:
#   cmake --build /tmp/b-head -j 16 --target gi-tool gi-worker gi_tests gi_record_demo
#   cd /tmp/b-head/tests && ./gi_tests --gtest_filter="Gpu*-<the tests the first call passed, ':'-separated>"
