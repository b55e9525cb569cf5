// A transpose through shared memory, templated on its tile size, with the tile chosen when the
// program is built (-DTILE=32) and the host code in the same file: the template argument is the
// size a build tunes. Registered as FUNCTION "transposeTiled<TILE>" with PARAMS TILE, each variant
// runs the instantiation its TILE names; the program names its launches after the template.
#include <gi/launch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef TILE
#define TILE 16
#endif

template <int T>
__global__ void transposeTiled(float* out, const float* in, int width, int height)
{
    __shared__ float tile[T][T + 1];
    int x = blockIdx.x * T + threadIdx.x;
    int y = blockIdx.y * T + threadIdx.y;
    if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    x = blockIdx.y * T + threadIdx.x;
    y = blockIdx.x * T + threadIdx.y;
    if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

int main(int argc, char** argv)
{
    int width = 1000, height = 700;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--width") && i + 1 < argc) width = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--height") && i + 1 < argc) height = std::atoi(argv[++i]);
        else return std::fprintf(stderr, "usage: tile_param [--width W] [--height H]\n"), 2;
    }
    const size_t n = static_cast<size_t>(width) * height;
    std::vector<float> in(n), out(n);
    for (size_t i = 0; i < n; i++) in[i] = static_cast<float>(i % 1013) * 0.5f;
    float *d_in, *d_out;
    if (cudaMalloc(&d_in, n * sizeof(float)) || cudaMalloc(&d_out, n * sizeof(float))) return 2;
    cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const dim3 block(TILE, TILE);
    const dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
    try {
        if (gi::launch(transposeTiled<TILE>, "transposeTiled", grid, block, 0, nullptr, d_out, d_in, width, height) != cudaSuccess)
            return 2;
    } catch (const gi::RecordError& e) {
        std::fprintf(stderr, "tile_param: %s\n", e.what());
        return 2;
    }
    cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    long wrong = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            if (out[static_cast<size_t>(x) * height + y] != in[static_cast<size_t>(y) * width + x]) wrong++;
    std::printf("tile_param: TILE %d, %s (%ld wrong elements)\n", TILE, wrong ? "FAILED" : "PASSED", wrong);
    return wrong ? 1 : 0;
}
