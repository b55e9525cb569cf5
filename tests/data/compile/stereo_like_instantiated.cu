// tests/data/grammar/stereo_like.cu with an explicit instantiation of its template kernel, so that
// compiling it (gi-tool mutants) checks the kernel's body instead of skipping an unused template.
// A stereo-disparity kernel in the 2008 style, for grammar tests (not the project's real kernel).
#include <cstdio>
#include <vector>

#ifndef BLOCK_W
#define BLOCK_W 64
#endif
#define ROWS_PER_THREAD 40
#define RADIUS_H 5
#define RADIUS_V 5
#define MIN_SSD 500000
#define XHALO 1
#define SQ(x) ((x) * (x))

__device__ int counter;

// Squared difference of two packed pixels; "{" and ';' in comments must not confuse the parser.
__device__ inline int ssd_pixel(unsigned int a, unsigned int b) {
    int d = (int)(a & 0xff) - (int)(b & 0xff);  /* { not a brace; */
    return SQ(d);
}

__device__ int column_sum(const int* col, int i) {
    int sum = 0;
    for (int k = 0; k < 2 * RADIUS_V + 1; k++) sum += col[i + k];
    return sum;
}

template <int N>
__global__ void
stereoKernel(unsigned int* disparityPixel, const unsigned int* left, const unsigned int* right,
             int width, int height,
             size_t out_pitch)
{
    extern __shared__ int col_ssd[];
    __shared__ int min_ssd[BLOCK_W];
    const int tid = threadIdx.x;
    const int X = blockIdx.x * BLOCK_W + tid;
    int Y = blockIdx.y * ROWS_PER_THREAD;
    int best = MIN_SSD, bestd = -1;
    const char* label = "left {image}; not code";

#if XHALO
    if (tid < 2 * RADIUS_H) col_ssd[BLOCK_W + tid] = 0;
#else
    col_ssd[tid] = 0;
#endif
    for (int d = 0; d < N; d++) {
        col_ssd[tid] = 0;
#pragma unroll 4
        for (int i = -RADIUS_V; i <= RADIUS_V; i++) {
            col_ssd[tid] += ssd_pixel(left[(Y + i) * width + X],
                                      right[(Y + i) * width + X + d]);
        }
        __syncthreads();
        if (X < width && Y < height) {
            int ssd = column_sum(col_ssd, tid);
            if (ssd < best) { best = ssd; bestd = d; }
            else if (ssd == best)
                bestd = min(bestd, d);
            else
                continue;
        }
        __syncthreads();
    }
    for (int row = 1; row < ROWS_PER_THREAD && Y + row < height; ++row)
    {
        Y++; atomicAdd(&counter, 1);
        if (X < width) disparityPixel[Y * out_pitch + X] = bestd;
    }
    min_ssd[tid] = best;
    (void)label;
}

// Host code the grammar must skip.
class Launcher {
public:
    std::vector<int> sizes{1, 2, 3};
    void run() {
        auto f = [](int x) { return x + 1; };
        printf("%d }\n", f(2));
    }
};

int main() {
    Launcher l;
    l.run();
    return 0;
}

template __global__ void stereoKernel<8>(unsigned int*, const unsigned int*, const unsigned int*, int, int, size_t);
