// A weighted histogram built with floating-point atomicAdd: the order in which threads add their
// weights changes from run to run, so the bins' last bits do too. The program accepts that (its
// self-check allows a relative error); so must gi-optimize, once told (NONDETERMINISTIC).
//   histogram [--n N] [--bins B] [--seed S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <gi/launch.hpp>

__global__ void weightedHistogram(float* hist, const int* bins, const float* weights, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[bins[i]], weights[i]);
}

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t status_ = (call);                                                      \
        if (status_ != cudaSuccess) {                                                      \
            std::fprintf(stderr, "histogram: %s: %s\n", #call, cudaGetErrorString(status_)); \
            return 2;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char** argv) {
    int n = 1 << 22, nbins = 16;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--bins") && i + 1 < argc) nbins = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<unsigned>(std::atoi(argv[++i]));
        else return std::fprintf(stderr, "usage: histogram [--n N] [--bins B] [--seed S]\n"), 2;
    }
    std::vector<int> bins(n);
    std::vector<float> weights(n);
    srand(seed);
    for (int i = 0; i < n; i++) {
        bins[i] = rand() % nbins;
        weights[i] = static_cast<float>(rand()) / RAND_MAX * 100.0f + 1e-3f * (rand() % 1000);
    }
    int* d_bins;
    float *d_weights, *d_hist;
    CHECK(cudaMalloc(&d_bins, n * sizeof(int)));
    CHECK(cudaMalloc(&d_weights, n * sizeof(float)));
    CHECK(cudaMalloc(&d_hist, nbins * sizeof(float)));
    CHECK(cudaMemcpy(d_bins, bins.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_weights, weights.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_hist, 0, nbins * sizeof(float)));
    try {
        CHECK(gi::launch(weightedHistogram, "weightedHistogram", dim3(1024), dim3(256), 0, nullptr, d_hist, d_bins,
                         d_weights, n));
    } catch (const gi::RecordError& e) {
        std::fprintf(stderr, "histogram: %s\n", e.what());
        return 2;
    }
    std::vector<float> hist(nbins);
    CHECK(cudaMemcpy(hist.data(), d_hist, nbins * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<double> expected(nbins, 0.0);
    for (int i = 0; i < n; i++) expected[bins[i]] += weights[i];
    double worst = 0;
    for (int b = 0; b < nbins; b++) worst = std::max(worst, std::fabs(hist[b] - expected[b]) / expected[b]);
    std::printf("histogram: %s (worst relative error %.3g)\n", worst < 1e-3 ? "PASSED" : "FAILED", worst);
    return worst < 1e-3 ? 0 : 1;
}
