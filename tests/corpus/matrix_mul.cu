// Tiled matrix multiplication as a template on its tile size, in the style of the CUDA samples:
// host code instantiates and launches it twice (16 and 32) and checks C = A * B on the CPU.
//   matrix_mul [--n N] [--seed S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <gi/launch.hpp>

template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, const float *A, const float *B, int wA, int wB)
{
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * BLOCK_SIZE + ty;
    const int col = blockIdx.x * BLOCK_SIZE + tx;
    float sum = 0.0f;
    for (int t = 0; t < wA / BLOCK_SIZE; ++t) {
        As[ty][tx] = A[row * wA + t * BLOCK_SIZE + tx];
        Bs[ty][tx] = B[(t * BLOCK_SIZE + ty) * wB + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * wB + col] = sum;
}

template <int BLOCK_SIZE>
static int multiply(const char* name, float* dC, const float* dA, const float* dB, int n, std::vector<float>& C)
{
    const dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
    const dim3 grid(n / BLOCK_SIZE, n / BLOCK_SIZE);
    if (cudaMemset(dC, 0, C.size() * sizeof(float)) != cudaSuccess) return 2;
    try {
        if (gi::launch(MatrixMulCUDA<BLOCK_SIZE>, name, grid, threads, 0, nullptr, dC, dA, dB, n, n) != cudaSuccess) return 2;
    } catch (const gi::RecordError& e) {
        std::fprintf(stderr, "matrix_mul: %s\n", e.what());
        return 2;
    }
    return cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : 2;
}

int main(int argc, char** argv)
{
    int n = 256;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<unsigned>(std::atoi(argv[++i]));
        else return std::fprintf(stderr, "usage: matrix_mul [--n N (a multiple of 32)] [--seed S]\n"), 2;
    }
    std::vector<float> A(n * n), B(n * n), C(n * n), reference(n * n, 0.0f);
    srand(seed);
    for (float& v : A) v = static_cast<float>(rand() % 17) / 4.0f;
    for (float& v : B) v = static_cast<float>(rand() % 13) / 8.0f;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++) reference[i * n + j] += A[i * n + k] * B[k * n + j];
    float *dA, *dB, *dC;
    if (cudaMalloc(&dA, A.size() * 4) || cudaMalloc(&dB, B.size() * 4) || cudaMalloc(&dC, C.size() * 4)) return 2;
    cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice);
    int failures = 0;
    for (int tile : {16, 32}) {
        const int status = tile == 16 ? multiply<16>("MatrixMulCUDA<16>", dC, dA, dB, n, C)
                                      : multiply<32>("MatrixMulCUDA<32>", dC, dA, dB, n, C);
        if (status) return status;
        for (int i = 0; i < n * n; i++)
            if (std::fabs(C[i] - reference[i]) > 1e-3f * std::fabs(reference[i]) + 1e-3f) failures++;
    }
    std::printf("matrix_mul: %s (%d wrong elements)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
