// gi-optimize variant: shfl_row_norms.cu_30=1
// Euclidean norm of every row of a row-major matrix, one block a row: the first step of row
// normalisation (embeddings, a layer norm's scale, a solver's row scaling). Each thread sums the
// squares of a strided part of the row, and the block adds the partial sums in shared memory with
// the textbook tree reduction.
//
// Written as such code is, and written so that it needs a transformation a compiler does not make
// (issue 46): for short rows the tree dominates. Its last five steps keep one warp busy between
// block-wide barriers, each step a shared-memory round trip; warp shuffles (the shfl gene) do
// those steps in registers with no barrier.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__global__ void row_norms(const float* matrix, float* norms, int rows, int cols)
{
    __shared__ float partial[BLOCK_SIZE];
    unsigned int tid = threadIdx.x;
    int row = blockIdx.x;
    if (row >= rows)
        return;
    const float* x = matrix + (long long)row * cols;

    float sum = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x)
        sum += x[j] * x[j];
    partial[tid] = sum;
    __syncthreads();

    if ((blockDim.x / 2) >= 32 && ((blockDim.x / 2) & ((blockDim.x / 2) - 1)) == 0 && blockDim.x % 32 == 0) {
for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
if (tid < 32) {
auto gi_shfl30 = partial[tid];
gi_shfl30 += partial[tid + 32];
gi_shfl30 += __shfl_down_sync(0xffffffffu, gi_shfl30, 16);
gi_shfl30 += __shfl_down_sync(0xffffffffu, gi_shfl30, 8);
gi_shfl30 += __shfl_down_sync(0xffffffffu, gi_shfl30, 4);
gi_shfl30 += __shfl_down_sync(0xffffffffu, gi_shfl30, 2);
gi_shfl30 += __shfl_down_sync(0xffffffffu, gi_shfl30, 1);
if (tid == 0) partial[0] = gi_shfl30;
}
__syncthreads();
} else {
for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
}

    if (tid == 0)
        norms[row] = sqrtf(partial[0]);
}

#ifndef __CUDACC_RTC__
dim3 row_norms_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 row_norms_grid(int rows)
{
    return dim3(rows);
}
#endif
