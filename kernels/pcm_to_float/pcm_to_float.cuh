#pragma once
// Host-side view of pcm_to_float.cu: the kernel and its launch geometry (one thread a sample).
#include <cuda_runtime.h>

__global__ void pcm_to_float(const short* samples, float* out, int count, float gain, float dc_offset);

dim3 pcm_block();
dim3 pcm_grid(int count);
