// Host side: scales floats with scaleKernel<float> (needs a GPU), prints where it was compiled from
// (--where: __FILE__ and __LINE__, which the build's copy of this file must keep) and which variant the
// generated header describes (--variant ARCH, no GPU needed).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <gi/launch.hpp>

#include "common.h"
#include "kernels/scale.cuh"

#if __has_include("scaleKernel.gi.h")
#include "scaleKernel.gi.h"
#define HAVE_VARIANTS 1
#endif

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--where") == 0) {
        std::printf("%s:%d\n", __FILE__, __LINE__);
        return 0;
    }
    if (argc > 2 && std::strcmp(argv[1], "--variant") == 0) {
#ifdef HAVE_VARIANTS
        const gi_scaleKernel_variant* v = gi_scaleKernel_variant_for_architecture(std::atoi(argv[2]));
        // SCALE is a macro of the kernel header included above: read by name (docs/cmake.md).
        std::printf("variant: %s SCALE=%lld\n", v->genome[0] ? v->genome : "original kernel",
                    gi_scaleKernel_parameter(v, "SCALE"));
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
    cudaMemset(in, 0, n * sizeof(float));
    if (gi::launch(scaleKernel<float>, "scaleKernel", dim3((n + 127) / 128), dim3(128), 0, 0, in, out, n) != cudaSuccess)
        return 1;
    return cudaDeviceSynchronize() == cudaSuccess && scale_doubles(nullptr, 0) == 0 ? 0 : 1;
}
