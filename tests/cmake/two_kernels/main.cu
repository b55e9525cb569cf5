// Sums n pseudo-random numbers on the GPU and checks the result against a sum in double on the
// CPU (exit 1 when they differ by more than float rounding explains: 1e-4 relative). --variant ARCH prints which
// variants the generated headers describe, without a GPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sum.hpp"

#if __has_include("partial_sums.gi.h") && __has_include("final_sum.gi.h")
#include "final_sum.gi.h"
#include "partial_sums.gi.h"
#define HAVE_VARIANTS 1
#endif

int main(int argc, char** argv)
{
    int n = 1 << 20;
    unsigned seed = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
#ifdef HAVE_VARIANTS
            const int arch = std::atoi(argv[++i]);
            const gi_partial_sums_variant* a = gi_partial_sums_variant_for_architecture(arch);
            const gi_final_sum_variant* b = gi_final_sum_variant_for_architecture(arch);
            std::printf("partial_sums: %s BLOCK=%lld\nfinal_sum: %s FINAL_THREADS=%lld\n",
                        a->genome[0] ? a->genome : "original kernel", a->BLOCK,
                        b->genome[0] ? b->genome : "original kernel", b->FINAL_THREADS);
#else
            std::printf("no gi-optimize headers\n");
#endif
            return 0;
        }
        if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = static_cast<unsigned>(std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--n N] [--seed S] | --variant ARCH\n", argv[0]);
            return 2;
        }
    }
    std::vector<float> host(static_cast<std::size_t>(n));
    double expected = 0;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        host[static_cast<std::size_t>(i)] = static_cast<float>(seed >> 8) / 16777216.0f;
        expected += host[static_cast<std::size_t>(i)];
    }
    float *in = nullptr, *partial = nullptr, *total = nullptr;
    if (cudaMalloc(&in, host.size() * sizeof(float)) != cudaSuccess) {
        std::printf("no GPU\n");
        return 0;
    }
    cudaMalloc(&partial, static_cast<std::size_t>(gpu_sum_partials()) * sizeof(float));
    cudaMalloc(&total, sizeof(float));
    cudaMemcpy(in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
    if (gpu_sum(total, partial, in, n) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    float result = 0;
    cudaMemcpy(&result, total, sizeof(float), cudaMemcpyDeviceToHost);
    const double error = std::fabs(result - expected) / expected;
    std::printf("sum of %d numbers: %.6f, expected %.6f (relative error %.2e): %s\n", n, result, expected, error,
                error < 1e-4 ? "ok" : "WRONG");
    return error < 1e-4 ? 0 : 1;
}
