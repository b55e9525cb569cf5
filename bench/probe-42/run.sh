#!/usr/bin/env bash
# Issue 42 feasibility probe, on the device: can an LD_PRELOAD library see a program's kernel
# launches with a static and with a shared CUDA runtime, and is CUPTI there for an injection-based
# recorder? Usage: OUT=dir bash bench/probe-42/run.sh
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-/tmp/probe-42}"
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
{
    echo "== CUPTI"; ls /usr/local/cuda/extras/CUPTI/lib64 2>&1 | head; ls /usr/local/cuda/extras/CUPTI/include 2>&1 | head -3
    echo "== driver"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    gcc -shared -fPIC -O2 -I/usr/local/cuda/include "$here/launch_hook.c" -o "$OUT/launch_hook.so" -ldl 2>&1
    nvcc -arch=native -cudart=static "$here/app.cu" -o "$OUT/app_static" 2>&1
    nvcc -arch=native -cudart=shared "$here/app.cu" -o "$OUT/app_shared" 2>&1
    for app in app_static app_shared; do
        echo "== $app"
        rm -f "$OUT/$app.log"
        PROBE_LOG="$OUT/$app.log" LD_PRELOAD="$OUT/launch_hook.so" "$OUT/$app"
        echo "exit $?"
        sort "$OUT/$app.log" | uniq -c
    done
} 2>&1 | tee "$OUT/probe.txt"
