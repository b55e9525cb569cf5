// Two signals correlated frame by frame (an echo canceller's or a pitch tracker's per-frame match,
// taken over from its CPU loop): one thread a frame, summing the products of its samples.
//
// Written as such code is, and written so that it needs a transformation a compiler does not make
// (issue 46): each thread walks its own frame, so the threads of a warp read 32 addresses a frame
// apart, one float each, and every load instruction touches 32 sectors. nvcc cannot load four
// floats at once, not knowing that a frame starts 16-byte aligned; the vec gene does where the
// address turns out aligned at run time (frames of a multiple of 4 samples), and keeps the single
// loads elsewhere.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 128
#endif

__global__ void frame_corr(const float* a, const float* b, float* out, int frames, int frame)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= frames)
        return;
    float sum = 0.0f;
    for (int k = f * frame; k < (f + 1) * frame; ++k)
        sum += a[k] * b[k];
    out[f] = sum;
}

#ifndef __CUDACC_RTC__
dim3 corr_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 corr_grid(int frames)
{
    return dim3((frames + BLOCK_SIZE - 1) / BLOCK_SIZE);
}
#endif
