#define BLOCK 64
#define ROWS 4

__global__ void scale(float* out, const float* in, int n, float a)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float acc = 0.0f;
    if (i < n) {
        for (int r = 0; r < ROWS; r++) {
            acc += in[i] * a;
            acc = acc * 0.5f;
        }
        out[i] = acc;
    }
}
