// A kernel whose every thread writes past its buffer, as a variant that lost its bounds check
// does: what one such launch costs under compute-sanitizer memcheck, by reporting options
// (bench/sanitizer-fault-cost.sh). Issue 19: on the H200 the gate's memcheck sessions spent
// 50 s launching 14 such row_filter variants.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void oob_write(float* out, int n, int overrun) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + overrun] = 2.0f * i;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
    const int overrun = argc > 2 ? std::atoi(argv[2]) : n;  // n: every thread out of bounds
    float* out = nullptr;
    cudaMalloc(&out, sizeof(float) * n);
    oob_write<<<(n + 255) / 256, 256>>>(out, n, overrun);
    const cudaError_t launched = cudaDeviceSynchronize();
    std::printf("launch: %s\n", cudaGetErrorString(launched));
    // Whether the context outlives the fault (--destroy-on-device-error kernel): a clean launch after it.
    oob_write<<<(n + 255) / 256, 256>>>(out, n, 0);
    std::printf("a clean launch after it: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return launched == cudaSuccess ? 0 : 3;
}
