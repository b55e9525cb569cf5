#!/usr/bin/env bash
# Session 17's fourth device call (run tool, carry [".carry"]: the debs, libssl included, and
# a.tar.gz = `git archive efcfebd` (the oracle's line split, nothing else), b.tar.gz = `git archive`
# of the commit under test): both trees built at once; the oracle's cold start on aniso_diffusion
# (`gi-tool cuda-bench`, 20 random variants, which replays the original on all 18 cases first) in
# turn A B A B on the same recorded cases; then tree B's evolve throughput on aniso_diffusion and
# wavefront, 90 s searches as in the table. Everything under $OUT comes back as one tar.
set -u
here="$PWD"; root="$PWD"
source bench/common.sh; unpack_carried_packages >/dev/null 2>&1; detect_gpu
echo "openssl headers on the machine: $(ls /usr/include/openssl/evp.h 2>/dev/null || echo none); CPATH=${CPATH:-}"
for t in a b; do
  rm -rf /tmp/tree-$t && mkdir -p /tmp/tree-$t && tar -xzf .carry/$t.tar.gz -C /tmp/tree-$t && ln -sfn "$here/.carry" /tmp/tree-$t/.carry
done
conf() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}"; }
s=$(date +%s)
( conf /tmp/tree-b /tmp/b-b && cmake --build /tmp/b-b -j 10 --target gi-tool gi-worker aniso_diffusion_driver wavefront_driver ) >"$OUT/build-b.log" 2>&1 &
( conf /tmp/tree-a /tmp/b-a && cmake --build /tmp/b-a -j 6 --target gi-tool gi-worker aniso_diffusion_driver ) >"$OUT/build-a.log" 2>&1 &
wait
echo "builds: $(( $(date +%s) - s )) s; a: $(tail -1 $OUT/build-a.log | cut -c1-60); b: $(tail -1 $OUT/build-b.log | cut -c1-60)"
grep -h "SHA-256" $OUT/build-*.log | sort | uniq -c
/tmp/b-b/gi-tool/gi-tool version | tail -1
n=0
for t in a b a b; do
  n=$((n+1)); s=$(date +%s)
  ( cd /tmp/tree-$t && GI_BUILD=/tmp/b-$t THROUGHPUT_KERNELS=aniso_diffusion THROUGHPUT_SECONDS=0 THROUGHPUT_CUDA_BENCH=20 \
      THROUGHPUT_WORK=/tmp/w THROUGHPUT_REUSE_CASES=1 OUT="$OUT/cb$n-$t" timeout 150 bash bench/throughput.sh >"$OUT/cb$n-$t.log" 2>&1 )
  echo "== cuda-bench $n tree $t ($(( $(date +%s) - s )) s)"
  grep -h "original kernel reproduces" "$OUT/cb$n-$t/cuda-bench.log" | sed 's/.*cases (/(/' | cut -c1-520
done
s=$(date +%s)
( cd /tmp/tree-b && GI_BUILD=/tmp/b-b THROUGHPUT_KERNELS="${KERNELS:-aniso_diffusion wavefront}" THROUGHPUT_SECONDS=${SECS:-90} \
    THROUGHPUT_SANITIZE_CASES=0 THROUGHPUT_WORK=/tmp/w THROUGHPUT_REUSE_CASES=1 OUT="$OUT/tp" timeout 330 bash bench/throughput.sh \
    >"$OUT/tp.log" 2>&1 )
echo "throughput: exit $? in $(( $(date +%s) - s )) s"; grep -A3 "^kernel" "$OUT/tp.log" | cut -c1-250
grep -h "original kernel reproduces" "$OUT"/tp/evolve.log 2>/dev/null | cut -c1-700
cd "$OUT" && tar -czf all.tar.gz *.log cb* tp 2>/dev/null; ls | head
