#!/bin/bash
# Builds the three example drivers (standalone kernels/ build, no gi-tool dependencies) and runs
# them against their CPU references on the GPU; a few gene variants are compiled with nvcc -D.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"  # the checkout holding kernels/ and gi-tool/src/
out="${OUT:-/tmp/out}"; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvcc --version | tail -1
b=/tmp/kb
cmake -S "$root/kernels" -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/configure.log 2>&1 || { tail -20 $out/configure.log; exit 1; }
cmake --build $b -j16 > $out/build.log 2>&1 || { tail -40 $out/build.log; exit 1; }
inc="-I$root/kernels -I$root/gi-tool/src"
variant() {  # name kernel flags...
    local name=$1 k=$2; shift 2
    nvcc -std=c++17 -O3 -arch=sm_90 -diag-suppress=177 $inc "$@" "$root/kernels/$k/${k}_driver.cu" \
        "$root/kernels/$k/$k.cu" "$root/kernels/$k/reference.cpp" -o $b/$name > $out/$name.build.log 2>&1 || echo "BUILD FAILED: $name"
}
variant stereo_tuned stereo -DROWS_PER_THREAD=5 &
variant stereo_k20c stereo -DROWS_PER_THREAD=5 -DDPER=2 -DXHALO=1 -DSTORE_DISPARITY_PIXEL=1 -DSTORE_MIN_SSD=1 -DUSE_MUL24=0 &
variant stereo_local stereo -DBLOCK_W=32 -DROWS_PER_THREAD=2 -DDPER=4 -DSTORE_DISPARITY_PIXEL=2 -DSTORE_MIN_SSD=2 -DOUT_TYPE=short &
variant bspline_b128c bspline -DBLOCK_SIZE=128 -DconstantBasis=1 &
variant bspline_all bspline -DBLOCK_SIZE=256 -DdirectxBasis=1 -DBasisA=1 -DRemX=1 -Dc_UseBSpline=1 &
variant hydro_mm hydro -DBLOCK_X=32 -DBLOCK_Y=8 -DMANIFEST_INTERP=1 -DMANIFEST_FLUX=1 &
variant hydro_mf hydro -DBLOCK_X=32 -DBLOCK_Y=4 -DMANIFEST_FLUX=1 -DSYNC_STORE=1 &
variant hydro_mi hydro -DBLOCK_X=16 -DBLOCK_Y=16 -DMANIFEST_INTERP=1 -DSYNC_LOAD=1 &
wait
cd $b
run() { echo "\$ $*"; timeout 60 "$@" 2>&1 | tail -6; echo "rc=${PIPESTATUS[0]}"; }
{
run ./stereo_driver --pairs 3
run ./stereo_driver --width 640 --height 480 --seed 100 --reps 5
run ./stereo_tuned --pairs 2
run ./stereo_k20c --pairs 2
run ./stereo_local --width 333 --height 101 --pairs 2
run ./bspline_driver --cases 2
run ./bspline_driver --size 160 --seed 7 --use-bspline 0 --reps 5
run ./bspline_b128c
run ./bspline_all
run ./hydro_driver
run ./hydro_driver --problem 6 --seed 3 --nx 512 --ny 384 --steps 5
run ./hydro_driver --problem 3 --nx 256 --ny 64 --steps 20 --reps 5
run ./hydro_mm
run ./hydro_mf
run ./hydro_mi --problem 6 --nx 333 --ny 257 --steps 4
run compute-sanitizer --tool memcheck ./stereo_driver --width 100 --height 60 --reps 0
run compute-sanitizer --tool racecheck ./stereo_k20c --width 70 --height 30 --reps 0
run compute-sanitizer --tool memcheck ./bspline_driver --size 40 --reps 0
run compute-sanitizer --tool racecheck ./bspline_all --size 30 --reps 0
run compute-sanitizer --tool memcheck ./hydro_driver --nx 70 --ny 50 --steps 1 --reps 0
run compute-sanitizer --tool racecheck ./hydro_mm --nx 70 --ny 50 --steps 1 --reps 0
} 2>&1 | tee $out/runs.log
