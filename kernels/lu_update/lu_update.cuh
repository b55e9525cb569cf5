#pragma once
// Host-side view of lu_update.cu: the three kernels of a blocked LU step and their launch geometry.
#include <cuda_runtime.h>

__global__ void lu_diagonal(float* a, int n, int offset);
__global__ void lu_perimeter(float* a, int n, int offset);
__global__ void lu_trailing_update(float* a, int n, int offset);

int lu_block_size();
dim3 lu_diagonal_block();  // grid: one block
dim3 lu_perimeter_grid(int n, int offset);  // block: lu_diagonal_block()
dim3 lu_trailing_block();
dim3 lu_trailing_grid(int n, int offset);
