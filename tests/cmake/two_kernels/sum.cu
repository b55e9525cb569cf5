// Two kernels of one file, each registered by its own gi_optimize_cuda_kernel() call (CMakeLists.txt):
// a sum in two passes, with the host code that runs them in the same file, as programs are written.
// BLOCK belongs to partial_sums alone, FINAL_THREADS to final_sum alone, so each can be tuned (both
// start small, as a first version often does). PARTIALS stays fixed: how the input is cut into
// slices decides what `partial` holds.
#include <gi/launch.hpp>

#include "sum.hpp"

#define BLOCK 64
#define FINAL_THREADS 32
#define PARTIALS 1024

// Block b sums its own slice of `in`; the slices do not depend on BLOCK, so neither does `partial`
// beyond the order of the additions.
__global__ void partial_sums(float* partial, const float* in, int n)
{
    __shared__ float cache[BLOCK];
    const int chunk = (n + gridDim.x - 1) / gridDim.x;
    const int begin = blockIdx.x * chunk;
    const int end = min(begin + chunk, n);
    float sum = 0.0f;
    for (int i = begin + threadIdx.x; i < end; i += BLOCK) sum += in[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) cache[threadIdx.x] += cache[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

// One block; the same order of additions on every run, so its output is exact to compare.
__global__ void final_sum(float* total, const float* partial, int blocks)
{
    __shared__ float cache[FINAL_THREADS];
    float sum = 0.0f;
    for (int b = threadIdx.x; b < blocks; b += FINAL_THREADS) sum += partial[b];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = FINAL_THREADS / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) cache[threadIdx.x] += cache[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) *total = cache[0];
}

cudaError_t gpu_sum(float* total, float* partial, const float* in, int n)
{
    cudaError_t status = gi::launch(partial_sums, "partial_sums", dim3(PARTIALS), dim3(BLOCK), 0, nullptr, partial, in, n);
    if (status != cudaSuccess) return status;
    return gi::launch(final_sum, "final_sum", dim3(1), dim3(FINAL_THREADS), 0, nullptr, total, partial, PARTIALS);
}

int gpu_sum_partials() { return PARTIALS; }
