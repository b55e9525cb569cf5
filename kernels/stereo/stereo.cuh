#pragma once
// Host-side view of stereo.cu: the kernel and its launch geometry. The geometry functions live in
// stereo.cu itself so that a gi-optimize variant compiled with other macro values (BLOCK_W,
// ROWS_PER_THREAD, XHALO, DPER) also launches with the matching block and grid.
#include <cuda_runtime.h>

// left, right: width*height grey pixels, row after row. disparity: -1 or 0..50 per left pixel.
// min_ssd: the best pixel's SSD, capped at the "no match" threshold.
__global__ void stereo_kernel(const unsigned char* left, const unsigned char* right, float* disparity,
                              int* min_ssd, int width, int height);

dim3 stereo_block();
dim3 stereo_grid(int width, int height);
