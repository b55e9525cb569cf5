// Host side: prints which variant the generated header describes (no GPU needed for that), and
// launches the kernel when asked to (needs a GPU).
#include <cstdio>
#include <cstring>
#include <cstdlib>

#if __has_include("scaleKernel.gi.h")
#include "scaleKernel.gi.h"
#define HAVE_VARIANTS 1
#endif

__global__ void scaleKernel(const float* in, float* out, int n);

int main(int argc, char** argv) {
    if (argc > 2 && std::strcmp(argv[1], "--variant") == 0) {
#ifdef HAVE_VARIANTS
        const gi_scaleKernel_variant* v = gi_scaleKernel_variant_for_architecture(std::atoi(argv[2]));
        std::printf("variant: %s SCALE=%lld BLOCK=%lld\n", v->genome[0] ? v->genome : "original kernel", v->SCALE, v->BLOCK);
#else
        std::printf("variant: original kernel (no gi-optimize header)\n");
#endif
        return 0;
    }
    const int n = 1000;
    float *in = nullptr, *out = nullptr;
    if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) {
        std::printf("no GPU\n");
        return 0;
    }
    scaleKernel<<<(n + 127) / 128, 128>>>(in, out, n);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
