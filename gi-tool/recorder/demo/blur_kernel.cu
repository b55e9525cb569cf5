// A small kernel of gi-optimize's own for the recorder's and the evaluator's tests on a GPU: a 3x3
// weighted blur with a threshold, with tunable block width and rows per thread.
#ifndef BLOCK_W
#define BLOCK_W 32
#endif
#ifndef ROWS
#define ROWS 4
#endif

__global__ void blurKernel(const float* in, float* out, int* count, int width, int height, float threshold) {
    int x = blockIdx.x * BLOCK_W + threadIdx.x;
    int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
    if (x >= width) return;
    int above = 0;
    for (int r = 0; r < ROWS; r++) {
        int y = y0 + r;
        if (y >= height) break;
        float sum = 0.0f;
        for (int dy = -1; dy <= 1; dy++) {
            int yy = min(max(y + dy, 0), height - 1);
            for (int dx = -1; dx <= 1; dx++) {
                int xx = min(max(x + dx, 0), width - 1);
                float w = (dx == 0 && dy == 0) ? 4.0f : ((dx == 0 || dy == 0) ? 2.0f : 1.0f);
                sum += w * in[yy * width + xx];
            }
        }
        float value = sum / 16.0f;
        out[y * width + x] = value;
        if (value > threshold) above++;
    }
    if (above > 0) atomicAdd(count, above);
}
