// A filter in the style of the CUDA samples built with separable compilation: its target sets
// CUDA_SEPARABLE_COMPILATION ON (every NVIDIA sample's CMakeLists does), so the kernel file is
// compiled to relocatable device code (-rdc=true); the kernel uses cooperative groups and libcu++,
// whose headers define module variables of their own, and reads its taps from __constant__ memory
// set with cudaMemcpyToSymbol. main() checks the GPU result against a CPU reference, prints PASS or
// FAIL and exits 1 on FAIL (issue 40: such a program stopped the build with
// CUDA_ERROR_INVALID_IMAGE, then with a libcu++ constant taken for a variable to capture).
//   separable_filter [--n N] [--frames F] [--seed S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cooperative_groups.h>
#include <cuda/std/limits>
#include <cuda_runtime.h>
#include <gi/launch.hpp>

namespace cg = cooperative_groups;

#define TAPS 9
#define BLOCK 128

__constant__ float c_Taps[TAPS];

__global__ void smooth(float* dst, const float* src, int n) {
    cg::thread_block block = cg::this_thread_block();
    __shared__ float tile[BLOCK + TAPS - 1];
    const int base = blockIdx.x * BLOCK;
    for (int i = block.thread_rank(); i < BLOCK + TAPS - 1; i += BLOCK) {
        const int x = base + i - TAPS / 2;
        tile[i] = x >= 0 && x < n ? src[x] : 0.0f;
    }
    block.sync();
    const int i = base + block.thread_rank();
    if (i >= n) return;
    float sum = 0.0f;
    for (int k = 0; k < TAPS; k++) sum += c_Taps[k] * tile[block.thread_rank() + k];
    dst[i] = fmaxf(sum, cuda::std::numeric_limits<float>::lowest());
}

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t e = (call);                                                                       \
        if (e != cudaSuccess) {                                                                       \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));           \
            std::exit(2);                                                                             \
        }                                                                                             \
    } while (0)

int main(int argc, char** argv) {
    int n = 1 << 18, frames = 2;
    unsigned seed = 7;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--frames")) frames = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--seed")) seed = static_cast<unsigned>(std::atoi(argv[i + 1]));
    }
    float taps[TAPS], total = 0;
    for (int k = 0; k < TAPS; k++) total += taps[k] = std::exp(-0.5f * (k - TAPS / 2) * (k - TAPS / 2) / 4.0f);
    for (float& t : taps) t /= total;
    CHECK(cudaMemcpyToSymbol(c_Taps, taps, sizeof taps));
    std::vector<float> src(n), dst(n), ref(n);
    float *d_src = nullptr, *d_dst = nullptr;
    CHECK(cudaMalloc(&d_src, n * sizeof(float)));
    CHECK(cudaMalloc(&d_dst, n * sizeof(float)));
    bool pass = true;
    for (int f = 0; f < frames; f++) {
        std::srand(seed + f);
        for (float& v : src) v = static_cast<float>(std::rand()) / RAND_MAX;
        CHECK(cudaMemcpy(d_src, src.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(d_dst, 0, n * sizeof(float)));
        CHECK(gi::launch(smooth, "smooth", dim3((n + BLOCK - 1) / BLOCK), dim3(BLOCK), 0, 0, d_dst, d_src, n));
        CHECK(cudaMemcpy(dst.data(), d_dst, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            float sum = 0;
            for (int k = 0; k < TAPS; k++) {
                const int x = i + k - TAPS / 2;
                sum += taps[k] * (x >= 0 && x < n ? src[x] : 0.0f);
            }
            if (std::fabs(sum - dst[i]) > 1e-5f) pass = false;
        }
    }
    CHECK(cudaFree(d_src));
    CHECK(cudaFree(d_dst));
    std::printf("%s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
}
