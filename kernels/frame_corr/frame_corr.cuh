#pragma once
// Host-side view of frame_corr.cu: the kernel and its launch geometry (one thread a frame).
#include <cuda_runtime.h>

__global__ void frame_corr(const float* a, const float* b, float* out, int frames, int frame);

dim3 corr_block();
dim3 corr_grid(int frames);
