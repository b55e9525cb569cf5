// A 1-D stencil whose sizes and weight type come from the project's include folder: it compiles
// only with -I <project>/include, as the program's build gives it.
#include <project/stencil_config.cuh>

__global__ void stencil1d(float* out, const float* in, StencilWeights w, int n) {
    __shared__ float tile[TILE_X + 2 * STENCIL_RADIUS];
    const int i = blockIdx.x * TILE_X + threadIdx.x;
    const int local = threadIdx.x + STENCIL_RADIUS;
    tile[local] = i < n ? in[i] : 0.0f;
    if (threadIdx.x < STENCIL_RADIUS) {
        tile[local - STENCIL_RADIUS] = i >= STENCIL_RADIUS ? in[i - STENCIL_RADIUS] : 0.0f;
        tile[local + TILE_X] = i + TILE_X < n ? in[i + TILE_X] : 0.0f;
    }
    __syncthreads();
    if (i >= n) return;
    float sum = w.centre * tile[local];
    for (int k = 1; k <= STENCIL_RADIUS; k++) sum += w.side * (tile[local - k] + tile[local + k]);
    out[i] = sum;
}
