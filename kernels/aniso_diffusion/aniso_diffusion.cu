// Speckle-reducing anisotropic diffusion of an ultrasound image (Yu and Acton's SRAD). Each
// iteration takes two launches:
//   diffusion_coefficients: the four one-sided differences of every pixel, the instantaneous
//     coefficient of variation q^2 (the edge detector) and from it the diffusion coefficient c,
//     which is near 1 in homogeneous speckle and near 0 at edges; six output images;
//   diffusion_update: the image moves by lambda/4 times the divergence of c times the gradient.
// q0^2, the speckle scale, comes from a homogeneous region of the image and is computed by the
// host between iterations.
//
// The image edges are reflecting: a pixel beyond an edge has the edge pixel's value. The first
// kernel stages a tile of the image with a one-pixel halo in shared memory.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

__global__ void diffusion_coefficients(const float* image, float* d_north, float* d_south, float* d_west,
                                       float* d_east, float* coefficient, float* q_squared, int rows, int cols,
                                       float q0_squared)
{
    __shared__ float tile[BLOCK_SIZE + 2][BLOCK_SIZE + 2];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row0 = blockIdx.y * BLOCK_SIZE;
    int col0 = blockIdx.x * BLOCK_SIZE;
    int row = row0 + ty;
    int col = col0 + tx;
    int r = min(row, rows - 1);
    int c = min(col, cols - 1);

    tile[ty + 1][tx + 1] = image[r * cols + c];
    if (ty == 0)
        tile[0][tx + 1] = image[max(row0 - 1, 0) * cols + c];
    if (ty == BLOCK_SIZE - 1)
        tile[BLOCK_SIZE + 1][tx + 1] = image[min(row0 + BLOCK_SIZE, rows - 1) * cols + c];
    if (tx == 0)
        tile[ty + 1][0] = image[r * cols + max(col0 - 1, 0)];
    if (tx == BLOCK_SIZE - 1)
        tile[ty + 1][BLOCK_SIZE + 1] = image[r * cols + min(col0 + BLOCK_SIZE, cols - 1)];
    __syncthreads();

    if (row >= rows || col >= cols)
        return;

    float centre = tile[ty + 1][tx + 1];
    float dn = tile[ty][tx + 1] - centre;
    float ds = tile[ty + 2][tx + 1] - centre;
    float dw = tile[ty + 1][tx] - centre;
    float de = tile[ty + 1][tx + 2] - centre;

    // Normalised gradient magnitude and Laplacian, and the ICOV that combines them.
    float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (centre * centre);
    float l = (dn + ds + dw + de) / centre;
    float num = 0.5f * g2 - 0.0625f * (l * l);
    float den = 1.0f + 0.25f * l;
    float q2 = num / (den * den);

    den = (q2 - q0_squared) / (q0_squared * (1.0f + q0_squared));
    float cval = 1.0f / (1.0f + den);
    if (cval < 0.0f)
        cval = 0.0f;
    else if (cval > 1.0f)
        cval = 1.0f;

    int idx = row * cols + col;
    d_north[idx] = dn;
    d_south[idx] = ds;
    d_west[idx] = dw;
    d_east[idx] = de;
    coefficient[idx] = cval;
    q_squared[idx] = q2;
}

__global__ void diffusion_update(float* image, const float* d_north, const float* d_south, const float* d_west,
                                 const float* d_east, const float* coefficient, int rows, int cols, float lambda)
{
    int row = blockIdx.y * BLOCK_SIZE + threadIdx.y;
    int col = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (row >= rows || col >= cols)
        return;
    int idx = row * cols + col;
    // The flux through the north and west faces uses this pixel's coefficient, through the south
    // and east faces the neighbour's.
    float c_here = coefficient[idx];
    float c_south = coefficient[min(row + 1, rows - 1) * cols + col];
    float c_east = coefficient[row * cols + min(col + 1, cols - 1)];
    float divergence = c_here * d_north[idx] + c_south * d_south[idx] + c_here * d_west[idx] + c_east * d_east[idx];
    image[idx] = image[idx] + 0.25f * lambda * divergence;
}

#ifndef __CUDACC_RTC__
dim3 diffusion_block()
{
    return dim3(BLOCK_SIZE, BLOCK_SIZE);
}

dim3 diffusion_grid(int rows, int cols)
{
    return dim3((cols + BLOCK_SIZE - 1) / BLOCK_SIZE, (rows + BLOCK_SIZE - 1) / BLOCK_SIZE);
}
#endif
