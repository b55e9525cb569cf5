// A kernel whose arguments come in one struct passed by value, pointers and scalars together, as
// many codes bundle them; main() checks the result on the CPU.
//   struct_pointers [--n N] [--seed S] [--launches K]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <gi/launch.hpp>

struct Arrays {
    const float* x;
    const float* y;
    float* out;
    float a;
    int n;
};

__global__ void axpyStruct(Arrays p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.out[i] = p.a * p.x[i] + p.y[i];
}

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t status_ = (call);                                                            \
        if (status_ != cudaSuccess) {                                                            \
            std::fprintf(stderr, "struct_pointers: %s: %s\n", #call, cudaGetErrorString(status_)); \
            return 2;                                                                            \
        }                                                                                        \
    } while (0)

int main(int argc, char** argv) {
    int n = 1 << 20, launches = 2;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--launches") && i + 1 < argc) launches = std::atoi(argv[++i]);
        else return std::fprintf(stderr, "usage: struct_pointers [--n N] [--seed S] [--launches K]\n"), 2;
    }
    std::vector<float> x(n), y(n), out(n);
    Arrays p{};
    float *dx, *dy, *dout;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    int failures = 0;
    for (int launch = 0; launch < launches; launch++) {
        srand(seed + launch);
        for (int i = 0; i < n; i++) {
            x[i] = static_cast<float>(rand()) / RAND_MAX;
            y[i] = static_cast<float>(rand()) / RAND_MAX;
        }
        CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        p.x = dx;
        p.y = dy;
        p.out = dout;
        p.a = 2.0f + launch;
        p.n = n;
        try {
            CHECK(gi::launch(axpyStruct, "axpyStruct", dim3((n + 255) / 256), dim3(256), 0, nullptr, p));
        } catch (const gi::RecordError& e) {
            std::fprintf(stderr, "struct_pointers: %s\n", e.what());
            return 2;
        }
        CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
        // The GPU may fuse the multiply and add (one rounding instead of two).
        for (int i = 0; i < n; i++)
            if (std::fabs(out[i] - (p.a * x[i] + y[i])) > 1e-6f * (1.0f + std::fabs(out[i]))) failures++;
    }
    std::printf("struct_pointers: %s (%d wrong elements)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
