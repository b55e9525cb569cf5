// C = A B for row-major A (M x K), B (K x N) and C (M x N) of any sizes, with square tiles of
// TILE x TILE threads, the tile size a template argument as in the CUDA samples: each block stages
// one tile of A and one of B in shared memory per step along K and accumulates its tile of C.
// Tiles reaching past an edge are padded with zeros.

template <int TILE>
__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}

#ifndef __CUDACC_RTC__
typedef void (*matmul_kernel_t)(const float*, const float*, float*, int, int, int);

// The instantiation for a tile size the program supports (16 or 32), null for others.
matmul_kernel_t matmul_kernel_for(int tile)
{
    if (tile == 16)
        return matmul_tiled<16>;
    if (tile == 32)
        return matmul_tiled<32>;
    return 0;
}

dim3 matmul_block(int tile)
{
    return dim3(tile, tile);
}

dim3 matmul_grid(int tile, int M, int N)
{
    return dim3((N + tile - 1) / tile, (M + tile - 1) / tile);
}
#endif
