#pragma once
// Host-side view of fir_decimate.cu: the kernel (one launch a phase) and its launch geometry.
#include <cuda_runtime.h>

__global__ void fir_decimate(const float* signal, const float* taps, float* out, int outputs, int decimation,
                             int tap_count, int phase, int phases);

dim3 fir_block();
dim3 fir_grid(int outputs);
