// Written on Windows: every line ends in CR LF.
#define ITEMS 4

__global__ void saxpy_items(float* y, const float* x, float a, int n)
{
    const int first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
    for (int k = 0; k < ITEMS; k++) {
        const int i = first + k;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
}
