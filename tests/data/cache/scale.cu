// Test kernel of the cache tests: two parameters and a flag gene.
#define SCALE 2
#define BLOCK 128

__global__ void scaleKernel(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        v = v * SCALE;
        out[i] = v + 1.0f;
    }
}
