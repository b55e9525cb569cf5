// gi-optimize variant: stage_conv1d.cu_20=1
// A 1-D convolution of a sampled signal with a short symmetric filter (a smoothing or band-pass
// stage of a sensor or audio pipeline): one thread an output sample, the filter's 2 * RADIUS + 1
// taps read from global memory, zero outside the signal.
//
// Written as such code is, and written so that it needs a transformation a compiler does not make
// (issue 46): each input sample is read by the 17 threads whose window covers it, so the loop
// loads every sample 17 times through the cache. A block loading its window into shared memory
// once (the stage gene) reads each sample once a block.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

#define RADIUS 8

__global__ void conv1d(const float* signal, const float* taps, float* out, int n)
{
    __shared__ float gi_stage20[(BLOCK_SIZE) + (RADIUS) - (-RADIUS)];
    const bool gi_stage20_on = blockDim.x <= (BLOCK_SIZE) && blockDim.y == 1 && blockDim.z == 1;
    const long long gi_stage20_base = (long long)blockIdx.x * blockDim.x + (-RADIUS) + 0;
    if (gi_stage20_on) {
        for (int gi_stage20_t = threadIdx.x; gi_stage20_t < (int)blockDim.x + (RADIUS) - (-RADIUS); gi_stage20_t += blockDim.x) {
            const long long gi_stage20_g = gi_stage20_base + gi_stage20_t;
            if (gi_stage20_g >= 0 && gi_stage20_g < (n)) gi_stage20[gi_stage20_t] = signal[gi_stage20_g];
        }
        __syncthreads();
    }

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (gi_stage20_on) {
for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = i + k;
        if (j >= 0 && j < n)
            acc += taps[k + RADIUS] * gi_stage20[(j) - gi_stage20_base];
    }
} else {
for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = i + k;
        if (j >= 0 && j < n)
            acc += taps[k + RADIUS] * signal[j];
    }
}
    if (i < n)
        out[i] = acc;
}

#ifndef __CUDACC_RTC__
dim3 conv1d_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 conv1d_grid(int n)
{
    return dim3((n + BLOCK_SIZE - 1) / BLOCK_SIZE);
}
#endif
