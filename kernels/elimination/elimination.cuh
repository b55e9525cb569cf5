#pragma once
// Host-side view of elimination.cu: the two kernels of an elimination step and their launch
// geometry for column t of an n x n system.
#include <cuda_runtime.h>

__global__ void eliminate_multipliers(const float* a, float* m, int n, int t);
__global__ void eliminate_rows(float* a, float* b, const float* m, int n, int t);

dim3 multipliers_block();
dim3 multipliers_grid(int n, int t);
dim3 rows_block();
dim3 rows_grid(int n, int t);
