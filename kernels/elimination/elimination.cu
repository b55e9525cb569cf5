// Gaussian elimination of a dense system A x = b (no pivoting: the systems this program solves are
// diagonally dominant), two launches per column t:
//   eliminate_multipliers: m[i][t] = a[i][t] / a[t][t] for every row i below t;
//   eliminate_rows:        row i -= m[i][t] x row t, over columns t..n-1 of A and in b, for every
//                          row i below t: a thread per entry.
// After the n - 1 steps A is upper triangular (up to rounding below the diagonal) and the host
// solves by back substitution. A and the multipliers are n x n row-major arrays.

#ifndef BLOCK_X
#define BLOCK_X 16
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 16
#endif
#ifndef MULTIPLIER_THREADS
#define MULTIPLIER_THREADS 256
#endif

__global__ void eliminate_multipliers(const float* a, float* m, int n, int t)
{
    int row = t + 1 + blockIdx.x * MULTIPLIER_THREADS + threadIdx.x;
    if (row >= n)
        return;
    m[row * n + t] = a[row * n + t] / a[t * n + t];
}

__global__ void eliminate_rows(float* a, float* b, const float* m, int n, int t)
{
    int col = t + blockIdx.x * BLOCK_X + threadIdx.x;
    int row = t + 1 + blockIdx.y * BLOCK_Y + threadIdx.y;
    if (row >= n || col >= n)
        return;
    float factor = m[row * n + t];
    a[row * n + col] -= factor * a[t * n + col];
    if (col == t)
        b[row] -= factor * b[t];
}

#ifndef __CUDACC_RTC__
dim3 multipliers_block()
{
    return dim3(MULTIPLIER_THREADS);
}

dim3 multipliers_grid(int n, int t)
{
    return dim3((n - t - 1 + MULTIPLIER_THREADS - 1) / MULTIPLIER_THREADS);
}

dim3 rows_block()
{
    return dim3(BLOCK_X, BLOCK_Y);
}

// Columns t..n-1 across, rows t+1..n-1 down.
dim3 rows_grid(int n, int t)
{
    return dim3((n - t + BLOCK_X - 1) / BLOCK_X, (n - t - 1 + BLOCK_Y - 1) / BLOCK_Y);
}
#endif
