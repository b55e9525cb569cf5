#pragma once
// Host-side view of bspline.cu: the kernel and its launch geometry (defined in bspline.cu so that a
// variant compiled with another BLOCK_SIZE launches with the matching grid).
#include <cuda_runtime.h>

__global__ void bspline_kernel(const float4* control_points, const int* active_blocks, float4* deformation,
                               int active_count, int image_x, int image_y, int grid_x, int grid_y,
                               int use_bspline);

dim3 bspline_block();
dim3 bspline_grid(int active_count);
