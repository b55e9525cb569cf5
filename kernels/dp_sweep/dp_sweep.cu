// Cheapest path down a grid of costs (the dynamic programming of seam carving and of path finding
// benchmarks): a path starts anywhere in the top row and moves one row down at a time, straight,
// one column left or one column right; its cost is the sum of the cells it crosses. Row by row,
//     best[row][col] = cost[row][col] + min(best[row-1][col-1], best[row-1][col], best[row-1][col+1])
// with the columns beyond the edges left out. One launch computes one row from the previous one;
// the host keeps the last two rows in two buffers and swaps them.
//
// A block of BLOCK_SIZE threads stages its columns of the previous row, with one column of halo on
// each side, in shared memory.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__global__ void dp_row(const int* costs, const int* previous, int* current, int cols, int row)
{
    __shared__ int prev[BLOCK_SIZE + 2];

    int tx = threadIdx.x;
    int col0 = blockIdx.x * BLOCK_SIZE;
    int col = col0 + tx;

    // Past the last column, and for the halo beyond either edge, the edge column itself: it is
    // already a candidate, so the minimum does not change.
    prev[tx + 1] = previous[min(col, cols - 1)];
    if (tx == 0)
        prev[0] = previous[max(col0 - 1, 0)];
    if (tx == BLOCK_SIZE - 1)
        prev[BLOCK_SIZE + 1] = previous[min(col0 + BLOCK_SIZE, cols - 1)];
    __syncthreads();

    if (col >= cols)
        return;

    int best = prev[tx + 1];
    best = min(best, prev[tx]);
    best = min(best, prev[tx + 2]);
    current[col] = costs[row * cols + col] + best;
}

#ifndef __CUDACC_RTC__
dim3 dp_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 dp_grid(int cols)
{
    return dim3((cols + BLOCK_SIZE - 1) / BLOCK_SIZE);
}
#endif
