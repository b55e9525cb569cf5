// 16-bit PCM samples to float with a gain and the recording's DC offset removed, the first step of
// an audio or SDR pipeline that takes its input from a sound card or an ADC: one thread a sample.
//
// Written as such code is, and written so that it needs a transformation a compiler does not make
// (issue 46): each thread moves 2 bytes in and 4 out, so a launch is millions of tiny blocks whose
// start-up (the index, the bounds check, the parameters) costs about as much as their work. Each
// thread doing several blocks' samples (the coarsen gene, which also divides pcm_grid) spreads it.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__global__ void pcm_to_float(const short* samples, float* out, int count, float gain, float dc_offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = (samples[i] - dc_offset) * gain;
}

#ifndef __CUDACC_RTC__
dim3 pcm_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 pcm_grid(int count)
{
    return dim3((count + BLOCK_SIZE - 1) / BLOCK_SIZE);
}
#endif
