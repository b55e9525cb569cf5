// Blocked LU factorisation without pivoting (A = L U, L unit lower triangular), in place, of an
// n x n row-major matrix whose side is a multiple of BLOCK_SIZE. For each block step at `offset`:
//   lu_diagonal         factors the diagonal block (one block of threads);
//   lu_perimeter        solves the block row to its right for U and the block column below it for
//                       L against that factor (a block of threads per pair of panel blocks);
//   lu_trailing_update  subtracts L_panel x U_panel from the trailing submatrix (a block of
//                       threads per trailing block): most of the factorisation's work.
// The host launches the three in turn for each step, then factors the last diagonal block.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

__global__ void lu_diagonal(float* a, int n, int offset)
{
    __shared__ float d[BLOCK_SIZE][BLOCK_SIZE];
    int tx = threadIdx.x;

    for (int i = 0; i < BLOCK_SIZE; ++i)
        d[i][tx] = a[(offset + i) * n + offset + tx];
    __syncthreads();

    // Row tx eliminates its entries below the diagonal, one column per step.
    for (int k = 0; k < BLOCK_SIZE - 1; ++k) {
        if (tx > k) {
            float l = d[tx][k] / d[k][k];
            d[tx][k] = l;
            for (int j = k + 1; j < BLOCK_SIZE; ++j)
                d[tx][j] -= l * d[k][j];
        }
        __syncthreads();
    }

    for (int i = 0; i < BLOCK_SIZE; ++i)
        a[(offset + i) * n + offset + tx] = d[i][tx];
}

__global__ void lu_perimeter(float* a, int n, int offset)
{
    __shared__ float dia[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float row_blk[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float col_blk[BLOCK_SIZE][BLOCK_SIZE];
    int tx = threadIdx.x;
    int blk = offset + (blockIdx.x + 1) * BLOCK_SIZE;

    for (int i = 0; i < BLOCK_SIZE; ++i) {
        dia[i][tx] = a[(offset + i) * n + offset + tx];
        row_blk[i][tx] = a[(offset + i) * n + blk + tx];
        col_blk[i][tx] = a[(blk + i) * n + offset + tx];
    }
    __syncthreads();

    // Block row: column tx of L_diag^-1 A, by forward substitution (L has a unit diagonal).
    for (int i = 1; i < BLOCK_SIZE; ++i) {
        float sum = 0.0f;
        for (int t = 0; t < i; ++t)
            sum += dia[i][t] * row_blk[t][tx];
        row_blk[i][tx] -= sum;
    }
    // Block column: row tx of A U_diag^-1.
    for (int j = 0; j < BLOCK_SIZE; ++j) {
        float sum = 0.0f;
        for (int t = 0; t < j; ++t)
            sum += col_blk[tx][t] * dia[t][j];
        col_blk[tx][j] = (col_blk[tx][j] - sum) / dia[j][j];
    }
    __syncthreads();

    for (int i = 0; i < BLOCK_SIZE; ++i) {
        a[(offset + i) * n + blk + tx] = row_blk[i][tx];
        a[(blk + i) * n + offset + tx] = col_blk[i][tx];
    }
}

__global__ void lu_trailing_update(float* a, int n, int offset)
{
    __shared__ float left[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float top[BLOCK_SIZE][BLOCK_SIZE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = offset + (blockIdx.y + 1) * BLOCK_SIZE + ty;
    int col = offset + (blockIdx.x + 1) * BLOCK_SIZE + tx;

    left[ty][tx] = a[row * n + offset + tx];
    top[ty][tx] = a[(offset + ty) * n + col];
    __syncthreads();

    float sum = 0.0f;
    for (int t = 0; t < BLOCK_SIZE; ++t)
        sum += left[ty][t] * top[t][tx];
    a[row * n + col] -= sum;
}

#ifndef __CUDACC_RTC__
int lu_block_size()
{
    return BLOCK_SIZE;
}

dim3 lu_diagonal_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 lu_perimeter_grid(int n, int offset)
{
    return dim3((n - offset) / BLOCK_SIZE - 1);
}

dim3 lu_trailing_block()
{
    return dim3(BLOCK_SIZE, BLOCK_SIZE);
}

dim3 lu_trailing_grid(int n, int offset)
{
    int blocks = (n - offset) / BLOCK_SIZE - 1;
    return dim3(blocks, blocks);
}
#endif
