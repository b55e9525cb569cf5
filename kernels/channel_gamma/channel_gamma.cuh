#pragma once
// Host-side view of channel_gamma.cu: the kernel and its launch geometry (one thread a column).
#include <cuda_runtime.h>

__global__ void channel_gamma(const float* frame, float* out, const float* channel_gain, float gamma, int rows, int cols);

dim3 gamma_block();
dim3 gamma_grid(int cols);
