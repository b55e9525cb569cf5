#pragma once
// Host-side view of hydro.cu: one stage of the 2D Euler solver and its launch geometry (defined in
// hydro.cu so that a variant with another tile size launches with the matching grid).
#include <cuda_runtime.h>

__global__ void hydro_stage(const float* u_in, const float* u_base, float* u_out, int nx, int ny, float dt_dx,
                            float dt_dy, float gamma, int periodic_x, int periodic_y);

dim3 hydro_block();
dim3 hydro_grid(int nx, int ny);
