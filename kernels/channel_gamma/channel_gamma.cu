// A camera or line-scan sensor frame (rows x cols) corrected channel by channel: each column is a
// sensor channel with its own calibration gain, applied gamma-corrected (gain^gamma), one thread a
// column walking down the rows, as a naive author writes it.
//
// Written as such code is, and written so that it needs a transformation a compiler does not make
// (issue 46): the gain's powf reads nothing the loop writes, but `out` is not __restrict__, so nvcc
// must assume the store may change channel_gain and recomputes the powf every row. Hoisting the
// declaration before the loop (the hoist gene, hoist_channel_gamma.cu_<line>) computes it once a
// column.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__global__ void channel_gamma(const float* frame, float* out, const float* channel_gain, float gamma, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols)
        return;
    for (int r = 0; r < rows; ++r) {
        float g = powf(channel_gain[col], gamma);
        out[r * cols + col] = frame[r * cols + col] * g;
    }
}

#ifndef __CUDACC_RTC__
dim3 gamma_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 gamma_grid(int cols)
{
    return dim3((cols + BLOCK_SIZE - 1) / BLOCK_SIZE);
}
#endif
