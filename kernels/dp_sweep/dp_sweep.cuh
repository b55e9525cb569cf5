#pragma once
// Host-side view of dp_sweep.cu: one row of the cheapest-path recurrence and its launch geometry.
#include <cuda_runtime.h>

__global__ void dp_row(const int* costs, const int* previous, int* current, int cols, int row);

dim3 dp_block();
dim3 dp_grid(int cols);
