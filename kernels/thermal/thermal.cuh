#pragma once
// Host-side view of thermal.cu: the time step kernel, its launch geometry and the model's
// coefficients (constant memory, set once before the first step).
#include <cuda_runtime.h>

__global__ void thermal_step(const float* power, const float* temp_in, float* temp_out, int rows, int cols);

dim3 thermal_block();
dim3 thermal_grid(int rows, int cols);
cudaError_t thermal_set_coefficients(float step_over_cap, float rx_inv, float ry_inv, float rz_inv, float ambient);
