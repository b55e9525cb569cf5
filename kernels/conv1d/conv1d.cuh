#pragma once
// Host-side view of conv1d.cu: the kernel and its launch geometry (one thread an output sample).
#include <cuda_runtime.h>

__global__ void conv1d(const float* signal, const float* taps, float* out, int n);

dim3 conv1d_block();
dim3 conv1d_grid(int n);
