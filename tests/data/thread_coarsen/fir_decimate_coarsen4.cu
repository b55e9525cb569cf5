// gi-optimize variant: coarsen_fir_decimate.cu_19=4
// One phase of a polyphase decimating FIR filter, the inner loop of a software radio's resampler:
// output sample i of phase p is the dot product of that phase's taps (p, p + phases, p + 2 phases,
// ... below tap_count) with the input starting at i * decimation. The host launches once a phase
// and each launch writes its phase's outputs.
//
// Written as such code is, and written so that it needs a transformation a compiler does not
// make (issue 46): the taps loop steps by `phases`, a value known only at run time, so the
// compiler cannot count its trips and leaves it rolled. Each trip then waits for its two loads
// before its multiply-add; a hand-unrolled body (the unroll gene) issues several trips' loads
// together.

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

__global__ void fir_decimate(const float* signal, const float* taps, float* out, int outputs, int decimation,
                             int tap_count, int phase, int phases)
{
for (int gi_coarsen19 = 0; gi_coarsen19 < 4; ++gi_coarsen19) {
int i = (blockIdx.x * 4 + gi_coarsen19) * blockDim.x + threadIdx.x;
    if (i < outputs) {
        const float* x = signal + (long long)i * decimation;
        float acc = 0.0f;
        for (int t = phase; t < tap_count; t += phases)
            acc += taps[t] * x[t];
        out[i] = acc;
    }
}
}

#ifndef __CUDACC_RTC__
dim3 fir_block()
{
    return dim3(BLOCK_SIZE);
}

dim3 fir_grid(int outputs)
{
    return dim3((((outputs + BLOCK_SIZE - 1) / BLOCK_SIZE) + 4 - 1) / 4);
}
#endif
