// Separable row filter in the style of the CUDA samples: the filter weights live in __constant__
// memory and are set by host code with cudaMemcpyToSymbol, the kernel reads an image tile with its
// halo into shared memory, and main() checks the GPU result against a CPU reference and exits 1
// when they differ (the program's own self-check).
//   row_filter [--width W] [--height H] [--frames N] [--seed S] [--sigma X]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <gi/launch.hpp>

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
#define ROW_TILE_W 128
#define ROW_BLOCK_X 32
#define ROW_BLOCK_Y 4

__constant__ float c_Kernel[KERNEL_LENGTH];

__global__ void rowFilter(float* dst, const float* src, int width, int height) {
    __shared__ float tile[ROW_BLOCK_Y][ROW_TILE_W + 2 * KERNEL_RADIUS];
    const int y = blockIdx.y * ROW_BLOCK_Y + threadIdx.y;
    const int x0 = blockIdx.x * ROW_TILE_W;
    for (int i = threadIdx.x; i < ROW_TILE_W + 2 * KERNEL_RADIUS; i += ROW_BLOCK_X) {
        const int x = min(max(x0 + i - KERNEL_RADIUS, 0), width - 1);
        tile[threadIdx.y][i] = y < height ? src[y * width + x] : 0.0f;
    }
    __syncthreads();
    if (y >= height) return;
    for (int i = threadIdx.x; i < ROW_TILE_W && x0 + i < width; i += ROW_BLOCK_X) {
        float sum = 0.0f;
        for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++)
            sum += c_Kernel[KERNEL_RADIUS - k] * tile[threadIdx.y][i + KERNEL_RADIUS + k];
        dst[y * width + x0 + i] = sum;
    }
}

static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::fprintf(stderr, "row_filter: %s: %s\n", what, cudaGetErrorString(status));
        std::exit(2);
    }
}

static void setConvolutionKernel(const float* weights) {
    check(cudaMemcpyToSymbol(c_Kernel, weights, KERNEL_LENGTH * sizeof(float)), "cudaMemcpyToSymbol");
}

static void rowFilterCpu(float* dst, const float* src, const float* weights, int width, int height) {
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            double sum = 0;
            for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
                const int xx = std::min(std::max(x + k, 0), width - 1);
                sum += weights[KERNEL_RADIUS - k] * src[y * width + xx];
            }
            dst[y * width + x] = static_cast<float>(sum);
        }
}

int main(int argc, char** argv) {
    int width = 1024, height = 512, frames = 2;
    unsigned seed = 1;
    float sigma = 3.0f;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--width") && i + 1 < argc) width = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--height") && i + 1 < argc) height = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--sigma") && i + 1 < argc) sigma = static_cast<float>(std::atof(argv[++i]));
        else {
            std::fprintf(stderr, "usage: row_filter [--width W] [--height H] [--frames N] [--seed S] [--sigma X]\n");
            return 2;
        }
    }
    float weights[KERNEL_LENGTH];
    float total = 0;
    for (int k = 0; k < KERNEL_LENGTH; k++) {
        const float d = static_cast<float>(k - KERNEL_RADIUS);
        weights[k] = std::exp(-d * d / (2 * sigma * sigma));
        total += weights[k];
    }
    for (float& w : weights) w /= total;
    setConvolutionKernel(weights);

    const size_t n = static_cast<size_t>(width) * height;
    std::vector<float> image(n), result(n), reference(n);
    float *d_src = nullptr, *d_dst = nullptr;
    check(cudaMalloc(&d_src, n * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&d_dst, n * sizeof(float)), "cudaMalloc");
    double worst = 0;
    for (int frame = 0; frame < frames; frame++) {
        unsigned state = seed * 7919u + frame;
        for (float& v : image) {
            state = state * 1664525u + 1013904223u;
            v = static_cast<float>(state >> 8) / 16777216.0f;
        }
        check(cudaMemcpy(d_src, image.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
        const dim3 block(ROW_BLOCK_X, ROW_BLOCK_Y);
        const dim3 grid((width + ROW_TILE_W - 1) / ROW_TILE_W, (height + ROW_BLOCK_Y - 1) / ROW_BLOCK_Y);
        try {
            check(gi::launch(rowFilter, "rowFilter", grid, block, 0, nullptr, d_dst, d_src, width, height), "rowFilter");
        } catch (const gi::RecordError& e) {
            std::fprintf(stderr, "row_filter: %s\n", e.what());
            return 2;
        }
        check(cudaMemcpy(result.data(), d_dst, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
        rowFilterCpu(reference.data(), image.data(), weights, width, height);
        double diff = 0, norm = 0;
        for (size_t i = 0; i < n; i++) {
            diff += (result[i] - reference[i]) * (result[i] - reference[i]);
            norm += reference[i] * reference[i];
        }
        const double error = std::sqrt(diff / norm);
        std::printf("frame %d: relative L2 error %.3g\n", frame, error);
        worst = std::max(worst, error);
    }
    cudaFree(d_src);
    cudaFree(d_dst);
    if (worst > 1e-5) {
        std::printf("row_filter: FAILED (relative L2 error %.3g)\n", worst);
        return 1;
    }
    std::printf("row_filter: PASSED\n");
    return 0;
}
