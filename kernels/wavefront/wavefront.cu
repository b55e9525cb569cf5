// Global alignment of two protein sequences (Needleman-Wunsch with a linear gap penalty) on the GPU
// by wavefronts. The score matrix has (n + 1) x (m + 1) cells; row 0 and column 0 hold the scores of
// aligning against nothing (-gap per residue) and are filled by the host. Cell (i, j) is
//     max(score[i-1][j-1] + substitution(a[i-1], b[j-1]), score[i-1][j] - gap, score[i][j-1] - gap).
//
// The interior is cut into TILE x TILE tiles. Tiles on one anti-diagonal of tiles depend only on
// earlier anti-diagonals, so one launch computes one anti-diagonal of tiles, a block per tile; the
// host launches the anti-diagonals in order. Inside a tile the block copies the tile's top row and
// left column (and the corner) into shared memory and sweeps the tile's own anti-diagonals, a thread
// per tile row, before writing the tile back.
//
// The substitution scores of the 24-letter amino-acid alphabet live in constant memory.

#ifndef TILE
#define TILE 16
#endif
#define ALPHABET 24

__constant__ int c_substitution[ALPHABET * ALPHABET];

__global__ void align_diagonal(int* score, const int* seq_a, const int* seq_b, int n, int m, int diagonal, int gap)
{
    __shared__ int cells[TILE + 1][TILE + 1];
    __shared__ int res_a[TILE];
    __shared__ int res_b[TILE];

    int tx = threadIdx.x;
    int tiles_b = (m + TILE - 1) / TILE;
    // The launch's tiles are those (ti, tj) with ti + tj == diagonal, ti increasing with the block.
    int first = diagonal - (tiles_b - 1);
    if (first < 0)
        first = 0;
    int ti = first + blockIdx.x;
    int tj = diagonal - ti;
    int i0 = ti * TILE;  // the tile covers rows i0+1 .. i0+TILE and columns j0+1 .. j0+TILE
    int j0 = tj * TILE;
    int pitch = m + 1;

    if (tx == 0)
        cells[0][0] = score[i0 * pitch + j0];
    if (j0 + tx + 1 <= m)
        cells[0][tx + 1] = score[i0 * pitch + j0 + tx + 1];
    if (i0 + tx + 1 <= n)
        cells[tx + 1][0] = score[(i0 + tx + 1) * pitch + j0];
    if (i0 + tx < n)
        res_a[tx] = seq_a[i0 + tx];
    if (j0 + tx < m)
        res_b[tx] = seq_b[j0 + tx];
    __syncthreads();

    // Step k fills the tile's cells (x, y) with x + y == k; thread tx owns tile row x = tx.
    for (int k = 0; k < 2 * TILE - 1; ++k) {
        int y = k - tx;
        if (y >= 0 && y < TILE && i0 + tx + 1 <= n && j0 + y + 1 <= m) {
            int match = cells[tx][y] + c_substitution[res_a[tx] * ALPHABET + res_b[y]];
            int del = cells[tx][y + 1] - gap;
            int ins = cells[tx + 1][y] - gap;
            cells[tx + 1][y + 1] = max(match, max(del, ins));
        }
        __syncthreads();
    }

    // Written back a row at a time, a thread per column.
    for (int x = 0; x < TILE; ++x) {
        if (i0 + x + 1 <= n && j0 + tx + 1 <= m)
            score[(i0 + x + 1) * pitch + j0 + tx + 1] = cells[x + 1][tx + 1];
    }
}

#ifndef __CUDACC_RTC__
int align_tile()
{
    return TILE;
}

dim3 align_block()
{
    return dim3(TILE);
}

// The tiles on anti-diagonal `diagonal` of an n x m interior.
dim3 align_grid(int n, int m, int diagonal)
{
    int tiles_a = (n + TILE - 1) / TILE;
    int tiles_b = (m + TILE - 1) / TILE;
    int first = diagonal - (tiles_b - 1) > 0 ? diagonal - (tiles_b - 1) : 0;
    int last = diagonal < tiles_a - 1 ? diagonal : tiles_a - 1;
    return dim3(last >= first ? last - first + 1 : 0);
}

// The anti-diagonals of tiles of an n x m interior: one launch each.
int align_diagonals(int n, int m)
{
    return (n + TILE - 1) / TILE + (m + TILE - 1) / TILE - 1;
}

cudaError_t align_set_substitution(const int* table)
{
    return cudaMemcpyToSymbol(c_substitution, table, sizeof(int) * ALPHABET * ALPHABET);
}
#endif
