// A small kernel for the apply / mutants command tests.
#define BLOCK 128
#define UNROLLED 1

__global__ void scale(float* out, const float* in, int n, float factor)
{
    __shared__ float tile[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float acc = 0.0f;
    if (i < n) tile[threadIdx.x] = in[i];
    __syncthreads();
    for (int k = 0; k < 4; k++) {
        acc += tile[threadIdx.x] * factor;
        if (acc > 1000.0f) break;
    }
#if UNROLLED
    acc *= 2.0f;
#endif
    if (i < n) out[i] = acc;
}
