// Transient temperature of a chip die on a 2-D grid of cells (the compact RC thermal model): each
// cell exchanges heat with its four neighbours through the lateral resistances Rx and Ry, with the
// heat sink through Rz, and gains the power dissipated in it. One explicit Euler step per launch;
// the host swaps the two temperature buffers between steps.
//
// A block computes a BLOCK_SIZE x BLOCK_SIZE tile of cells, staged with a one-cell halo in shared
// memory. At the die's edges no heat flows sideways: the cell beyond an edge has the edge cell's
// temperature. The model's coefficients, the same for every cell, live in constant memory.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

struct ThermalCoefficients {
    float step_over_cap;  // time step / cell heat capacity
    float rx_inv;         // 1 / Rx (east-west neighbours)
    float ry_inv;         // 1 / Ry (north-south neighbours)
    float rz_inv;         // 1 / Rz (to the heat sink)
    float ambient;        // heat sink temperature
};

__constant__ ThermalCoefficients c_thermal;

__global__ void thermal_step(const float* power, const float* temp_in, float* temp_out, int rows, int cols)
{
    __shared__ float tile[BLOCK_SIZE + 2][BLOCK_SIZE + 2];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row0 = blockIdx.y * BLOCK_SIZE;
    int col0 = blockIdx.x * BLOCK_SIZE;
    int row = row0 + ty;
    int col = col0 + tx;
    // Threads past the last row or column stage the edge cell: the tile then holds exactly what
    // the edge cells' stencils need, and every thread takes part in the loads.
    int r = min(row, rows - 1);
    int c = min(col, cols - 1);

    tile[ty + 1][tx + 1] = temp_in[r * cols + c];
    if (ty == 0)
        tile[0][tx + 1] = temp_in[max(row0 - 1, 0) * cols + c];
    if (ty == BLOCK_SIZE - 1)
        tile[BLOCK_SIZE + 1][tx + 1] = temp_in[min(row0 + BLOCK_SIZE, rows - 1) * cols + c];
    if (tx == 0)
        tile[ty + 1][0] = temp_in[r * cols + max(col0 - 1, 0)];
    if (tx == BLOCK_SIZE - 1)
        tile[ty + 1][BLOCK_SIZE + 1] = temp_in[r * cols + min(col0 + BLOCK_SIZE, cols - 1)];
    __syncthreads();

    if (row >= rows || col >= cols)
        return;

    float t = tile[ty + 1][tx + 1];
    float north_south = tile[ty][tx + 1] + tile[ty + 2][tx + 1] - 2.0f * t;
    float east_west = tile[ty + 1][tx] + tile[ty + 1][tx + 2] - 2.0f * t;
    float flow = power[row * cols + col] + north_south * c_thermal.ry_inv + east_west * c_thermal.rx_inv +
                 (c_thermal.ambient - t) * c_thermal.rz_inv;
    temp_out[row * cols + col] = t + c_thermal.step_over_cap * flow;
}

#ifndef __CUDACC_RTC__
dim3 thermal_block()
{
    return dim3(BLOCK_SIZE, BLOCK_SIZE);
}

dim3 thermal_grid(int rows, int cols)
{
    return dim3((cols + BLOCK_SIZE - 1) / BLOCK_SIZE, (rows + BLOCK_SIZE - 1) / BLOCK_SIZE);
}

cudaError_t thermal_set_coefficients(float step_over_cap, float rx_inv, float ry_inv, float rz_inv, float ambient)
{
    ThermalCoefficients k;
    k.step_over_cap = step_over_cap;
    k.rx_inv = rx_inv;
    k.ry_inv = ry_inv;
    k.rz_inv = rz_inv;
    k.ambient = ambient;
    return cudaMemcpyToSymbol(c_thermal, &k, sizeof k);
}
#endif
