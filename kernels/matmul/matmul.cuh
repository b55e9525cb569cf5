#pragma once
// Host-side view of matmul.cu: the instantiations of the tiled product (tile 16 or 32) and their
// launch geometry.
#include <cuda_runtime.h>

typedef void (*matmul_kernel_t)(const float*, const float*, float*, int, int, int);

matmul_kernel_t matmul_kernel_for(int tile);  // null unless tile is 16 or 32
dim3 matmul_block(int tile);
dim3 matmul_grid(int tile, int M, int N);
