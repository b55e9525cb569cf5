// Kernels exported with C linkage, as code loaded by name through the driver API (or from other
// languages) writes them.
extern "C" __global__ void vector_add(float* c, const float* a, const float* b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i];
        float y = b[i];
        c[i] = x + y;
    }
}

extern "C" {
__global__ void vector_scale(float* c, float s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] *= s;
}
}
