// Issue 42 feasibility probe: a program launching one kernel three ways.
#include <cstdio>
#include <cuda_runtime.h>

template <typename T>
__global__ void scale(T* data, T factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}

int main() {
    const int n = 1 << 10;
    float* d = nullptr;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) { std::printf("no GPU\n"); return 2; }
    cudaMemset(d, 0, n * sizeof(float));
    scale<float><<<n / 256, 256>>>(d, 2.0f, n);                    // <<<>>>
    float factor = 3.0f;
    int count = n;
    void* args[] = {&d, &factor, &count};
    cudaLaunchKernel((const void*)scale<float>, dim3(n / 256), dim3(256), args, 0, nullptr);  // cudaLaunchKernel
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(n / 256);
    config.blockDim = dim3(256);
    cudaLaunchKernelEx(&config, scale<float>, d, 4.0f, n);         // cudaLaunchKernelEx
    std::printf("done: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
