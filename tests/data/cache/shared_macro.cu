// Two kernels that both read TILE: a registration of `scale` that tunes TILE would change `shift` too.
#define TILE 64
#define SHIFT 1

__global__ void scale(float* out, const float* in, int n)
{
    const int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.0f;
}

__global__ void shift(float* out, int n)
{
    const int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n) out[i] += SHIFT;
}
