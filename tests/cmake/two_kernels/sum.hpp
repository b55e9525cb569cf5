#pragma once
#include <cuda_runtime.h>

// total[0] = the sum of in[0..n); partial holds gpu_sum_partials() floats.
cudaError_t gpu_sum(float* total, float* partial, const float* in, int n);
int gpu_sum_partials();
