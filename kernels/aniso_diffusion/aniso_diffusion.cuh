#pragma once
// Host-side view of aniso_diffusion.cu: the two kernels of an SRAD iteration and their launch
// geometry (both launch the same grid).
#include <cuda_runtime.h>

__global__ void diffusion_coefficients(const float* image, float* d_north, float* d_south, float* d_west,
                                       float* d_east, float* coefficient, float* q_squared, int rows, int cols,
                                       float q0_squared);
__global__ void diffusion_update(float* image, const float* d_north, const float* d_south, const float* d_west,
                                 const float* d_east, const float* coefficient, int rows, int cols, float lambda);

dim3 diffusion_block();
dim3 diffusion_grid(int rows, int cols);
