// A program that launches kernels the way the CUDA runtime does: it opens the driver itself
// (here the fake one, fake_libcuda.cpp, whose path is its first argument), asks dlsym for
// cuGetProcAddress_v2 and gets its launch functions through it. Run with the launch intercept
// preloaded, by tests/recorder/intercept_fake_driver_test.cpp.
//   fake_launcher LIBCUDA MODE [N]
// MODE: timing-loop N (scaleKernel once to warm up, then N times on the same data), params or
// extra (scaleKernel once, its arguments in kernelParams or in an `extra` buffer), ex (through
// cuLaunchKernelEx), cooperative-ex (the same, marked cooperative), template (sumBlocks<float, 4>),
// extern-c (vector_add), struct (axpyStruct, pointers in a struct), host-pointer (scaleKernel
// reading host memory), capture (scaleKernel while its stream is captured).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void* library = nullptr;

template <typename Fn>
Fn symbol(const char* name) {
    void* p = dlsym(library, name);
    if (!p) {
        std::fprintf(stderr, "fake_launcher: %s not found\n", name);
        std::exit(3);
    }
    return reinterpret_cast<Fn>(p);
}

struct Params {
    const float* x;
    float* y;
    float a;
    int n;
};

bool ok(CUresult status, const char* what) {
    if (status == CUDA_SUCCESS) return true;
    std::fprintf(stderr, "fake_launcher: %s failed (%d)\n", what, static_cast<int>(status));
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: fake_launcher LIBCUDA MODE [N]\n");
        return 2;
    }
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        std::fprintf(stderr, "fake_launcher: %s\n", dlerror());
        return 3;
    }
    const std::string mode = argv[2];
    const int count = argc > 3 ? std::atoi(argv[3]) : 1;
    auto get_proc = symbol<PFN_cuGetProcAddress_v12000>("cuGetProcAddress_v2");
    PFN_cuLaunchKernel_v4000 launch = nullptr;
    PFN_cuLaunchKernelEx_v11060 launch_ex = nullptr;
    CUdriverProcAddressQueryResult status{};
    if (get_proc("cuLaunchKernel", reinterpret_cast<void**>(&launch), 4000, 0, &status) != CUDA_SUCCESS ||
        get_proc("cuLaunchKernelEx", reinterpret_cast<void**>(&launch_ex), 11060, 0, &status) != CUDA_SUCCESS)
        return 3;
    auto alloc = symbol<void* (*)(std::size_t, int)>("fake_alloc");
    auto kernel = symbol<CUfunction (*)(const char*)>("fake_kernel");
    auto capture = symbol<void (*)(int)>("fake_capture");

    int n = 64;
    auto* in = static_cast<float*>(alloc(n * sizeof(float), 0));
    auto* out = static_cast<float*>(alloc(n * sizeof(float), 0));
    for (int i = 0; i < n; ++i) in[i] = 0.5f * static_cast<float>(i);
    float factor = 3.0f;
    const float* source = in;
    std::vector<float> host(n, 1.0f);
    if (mode == "host-pointer") source = host.data();
    void* scale_args[] = {&source, &out, &n, &factor};
    const CUfunction scale = kernel("_Z11scaleKernelPKfPfif");

    if (mode == "timing-loop") {
        for (int i = 0; i <= count; ++i)
            if (!ok(launch(scale, 1, 1, 1, 64, 1, 1, 0, nullptr, scale_args, nullptr), "scaleKernel")) return 1;
    } else if (mode == "params" || mode == "host-pointer") {
        if (!ok(launch(scale, 1, 1, 1, 64, 1, 1, 0, nullptr, scale_args, nullptr), "scaleKernel")) return 1;
    } else if (mode == "capture") {
        capture(1);
        if (!ok(launch(scale, 1, 1, 1, 64, 1, 1, 0, nullptr, scale_args, nullptr), "scaleKernel")) return 1;
        capture(0);
    } else if (mode == "extra") {
        // As a program packing its own parameter buffer lays it out: each at its alignment.
        unsigned char buffer[24] = {};
        std::memcpy(buffer, &source, 8);
        std::memcpy(buffer + 8, &out, 8);
        std::memcpy(buffer + 16, &n, 4);
        std::memcpy(buffer + 20, &factor, 4);
        std::size_t size = sizeof buffer;
        void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
        if (!ok(launch(scale, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra), "scaleKernel")) return 1;
    } else if (mode == "ex" || mode == "cooperative-ex") {
        CUlaunchAttribute cooperative{};
        cooperative.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        cooperative.value.cooperative = 1;
        CUlaunchConfig config{};
        config.gridDimX = config.gridDimY = config.gridDimZ = 1;
        config.blockDimX = 64;
        config.blockDimY = config.blockDimZ = 1;
        config.attrs = mode == "ex" ? nullptr : &cooperative;
        config.numAttrs = mode == "ex" ? 0 : 1;
        if (!ok(launch_ex(&config, scale, scale_args, nullptr), "scaleKernel")) return 1;
    } else if (mode == "template") {
        unsigned elements = static_cast<unsigned>(n);
        void* args[] = {&source, &out, &elements};
        if (!ok(launch(kernel("_Z9sumBlocksIfLi4EEvPKT_PS0_j"), 16, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), "sumBlocks"))
            return 1;
    } else if (mode == "extern-c") {
        const float* b = in;
        void* args[] = {&out, &source, &b, &n};
        if (!ok(launch(kernel("vector_add"), 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), "vector_add")) return 1;
    } else if (mode == "struct") {
        Params p{in, out, 2.0f, n};
        void* args[] = {&p};
        if (!ok(launch(kernel("_Z10axpyStruct6Params"), 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), "axpyStruct"))
            return 1;
    } else {
        std::fprintf(stderr, "fake_launcher: unknown mode %s\n", mode.c_str());
        return 2;
    }
    std::printf("fake_launcher: %s done\n", mode.c_str());
    return 0;
}
