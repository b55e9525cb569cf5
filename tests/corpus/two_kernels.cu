// Two kernels of one file, as a reduction written in two passes: each can be registered alone, or
// both together.
#define BLOCK 256

__global__ void partial_sums(float* partial, const float* in, int n)
{
    __shared__ float cache[BLOCK];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    cache[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) cache[threadIdx.x] += cache[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

__global__ void final_sum(float* total, const float* partial, int blocks)
{
    float sum = 0.0f;
    for (int b = threadIdx.x; b < blocks; b += blockDim.x) sum += partial[b];
    atomicAdd(total, sum);
}
