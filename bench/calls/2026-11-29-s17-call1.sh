#!/usr/bin/env bash
# Session 17's first device call (run tool, carry [".carry"]: the debs and fir/ = the variants
# `PREPARE=.carry/fir bash bench/transform-pays.sh build/tests` wrote): the working tree built once;
# the GPU tests not yet run on a GPU (launched worker, PTX edits, float2/float4 loads);
# bench/transform-pays.sh on fir_decimate; then bench/throughput.sh on dp_sweep and
# aniso_diffusion without a hand-made gate case, whose gate notes now count the sessions' case
# opens (ahead, at a check). Everything under $OUT comes back as one tar.
# The second call ran the other five corpus kernels the same way, without the tests:
#   GPU_TESTS=none FIR=0 KERNELS="wavefront thermal lu_update elimination matmul" SECS=40 bash <this>
set -u
root="$PWD"
source bench/common.sh; unpack_carried_packages >/dev/null 2>&1; detect_gpu
b=/tmp/b-head
s=$(date +%s)
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" \
    >"$OUT/build.log" 2>&1 &&
  cmake --build $b -j 16 --target gi-tool gi-worker gi_tests $(for k in ${KERNELS:-dp_sweep aniso_diffusion}; do echo ${k}_driver; done) \
    >>"$OUT/build.log" 2>&1
echo "build: $? in $(( $(date +%s) - s )) s"; tail -2 "$OUT/build.log" | cut -c1-200
s=$(date +%s)
[[ "${GPU_TESTS:-}" != none ]] && ( cd $b/tests && timeout 150 ./gi_tests --gtest_filter="${GPU_TESTS:-GpuLaunchedWorker*:GpuPtxEdits*:GpuVectorLoad*}" >"$OUT/gpu-tests.log" 2>&1; echo "exit $?" >>"$OUT/gpu-tests.log" )
echo "gpu tests: $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|tests ran|exit " "$OUT/gpu-tests.log" | head -30
s=$(date +%s)
[[ "${FIR:-1}" == 1 ]] && FROM="$root/.carry/fir" timeout 90 bash bench/transform-pays.sh >"$OUT/transform-pays.log" 2>&1
echo "transform-pays: exit $? in $(( $(date +%s) - s )) s"; tail -12 "$OUT/transform-pays.log"
s=$(date +%s)
GI_BUILD=$b THROUGHPUT_CUDA_BENCH=${CUDA_BENCH:-} THROUGHPUT_KERNELS="${KERNELS:-dp_sweep aniso_diffusion}" THROUGHPUT_SECONDS=${SECS:-45} THROUGHPUT_SANITIZE_CASES=0 \
  THROUGHPUT_WORK=/tmp/w THROUGHPUT_REUSE_CASES=1 OUT="$OUT/tp" timeout 420 bash bench/throughput.sh >"$OUT/tp.log" 2>&1
echo "throughput: exit $? in $(( $(date +%s) - s )) s"; grep -A4 "^kernel" "$OUT/tp.log" | cut -c1-250
grep -ho "sanitizer gate:.*" "$OUT"/tp/evolve.log 2>/dev/null | grep -o "long-lived.*open ahead\|in sessions, seconds.*" | cut -c1-700
grep -h "original kernel reproduces" "$OUT"/tp/evolve.log "$OUT"/tp/cuda-bench.log 2>/dev/null | cut -c1-600
cd "$OUT" && tar -czf all.tar.gz *.log tp 2>/dev/null; ls
