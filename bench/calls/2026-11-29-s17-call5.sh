#!/usr/bin/env bash
# Session 17's last device call (run tool, carry [".carry"]: the debs, b.tar.gz = `git archive` of
# the commit under test, rownorms/ = `KERNEL=row_norms PREPARE=.carry/rownorms bash
# bench/transform-pays.sh build/tests`): the tree built; every GPU test (Gpu*), with the first runs
# made ahead and the newline-ended protocol frames under them; then whether the shfl (and unroll)
# transformation pays on row_norms. Everything under $OUT comes back as one tar.
set -u
here="$PWD"; root="$PWD"
source bench/common.sh; unpack_carried_packages >/dev/null 2>&1; detect_gpu
b=/tmp/b-b
s=$(date +%s)
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" \
    >"$OUT/build.log" 2>&1 && cmake --build $b -j 16 --target gi-tool gi-worker gi_tests gi_record_demo >>"$OUT/build.log" 2>&1
echo "build: $? in $(( $(date +%s) - s )) s"; tail -1 "$OUT/build.log" | cut -c1-100
s=$(date +%s)
( cd $b/tests && timeout "${GPU_TEST_S:-270}" ./gi_tests --gtest_filter='Gpu*' >"$OUT/gpu-tests.log" 2>&1; echo "exit $?" >>"$OUT/gpu-tests.log" )
echo "gpu tests: $(( $(date +%s) - s )) s"
grep -E "^\[  FAILED|tests ran|^\[  PASSED|^exit " "$OUT/gpu-tests.log" | head -20
grep -c "^\[       OK" "$OUT/gpu-tests.log"
s=$(date +%s)
FROM="$root/.carry/rownorms" timeout 90 bash bench/transform-pays.sh >"$OUT/transform-pays-row_norms.log" 2>&1
echo "transform-pays row_norms: exit $? in $(( $(date +%s) - s )) s"; tail -12 "$OUT/transform-pays-row_norms.log"
cd "$OUT" && tar -czf all.tar.gz *.log 2>/dev/null; ls
