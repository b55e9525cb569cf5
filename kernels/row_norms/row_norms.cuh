#pragma once
// Host-side view of row_norms.cu: the kernel and its launch geometry (one block a row).
#include <cuda_runtime.h>

__global__ void row_norms(const float* matrix, float* norms, int rows, int cols);

dim3 row_norms_block();
dim3 row_norms_grid(int rows);
