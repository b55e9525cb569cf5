// What loading, launching and unloading one variant's module costs on this GPU, by way of the CUDA
// driver API, as gi-worker does it per variant: issue 3's per-run stages show ~15 ms of module load
// and ~10 ms outside every stage the worker measures. This isolates the driver calls.
//
//   nvcc -cubin -arch=sm_90 -o /tmp/stereo.cubin kernels/stereo/stereo.cu
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/module_cost.cpp -o /tmp/module_cost -lcuda
//   /tmp/module_cost [--lmem-max] [--pace MS] KERNEL ITERATIONS CUBIN...
// Each iteration takes the next CUBIN in turn: one file repeats one image (the driver may reuse it),
// several distinct ones (e.g. the stereo kernel built with other -D settings) are what a search
// loads. --lmem-max creates the context with CU_CTX_LMEM_RESIZE_TO_MAX (local memory reserved for
// one kernel is kept for the next, instead of shrunk after it). --pace MS pauses before each load, so
// the iterations span seconds and meet what other processes do meanwhile (bench/module-cost.sh).
//   /tmp/module_cost --hold 60 &     # (repeat) other processes holding an idle CUDA context, as
//                                    # gi-tool's spare workers do, to see what they cost the others
//   /tmp/module_cost --churn 60 &    # (repeat) other processes starting CUDA over and over (context,
//                                    # 256 MB allocated, 64 MB copied in, context destroyed), as
//                                    # replacement workers starting up do
//   /tmp/module_cost --hang CUBIN KERNEL &  # a process whose kernel never ends (KERNEL takes no
//                                    # arguments), for the caller to kill, as gi-tool kills a worker
//                                    # whose variant hangs
//
// Modes (each N iterations; medians in ms, and the mean and largest load and unload):
//   immediate  load, cuFuncLoad, launch + sync, unload
//   deferred   the same, but each module is unloaded one iteration later (after the next launch)
//   two        two modules per iteration (the separate guarded build), both unloaded at once
//   library    cuLibraryLoadData / cuLibraryGetKernel / cuKernelGetFunction / cuLibraryUnload
// The kernel is launched on a small zeroed input (the stereo kernel's argument list:
// const uchar*, const uchar*, float*, int*, int width, int height).
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "module_cost: %s failed: %s\n", what, name ? name : "?");
    std::exit(1);
}

using Clock = std::chrono::steady_clock;
double ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double mean(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

double largest(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

struct Times {
    std::vector<double> load, func, launch, unload;
    void print(const char* mode) const {
        std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f / %.3f | %.3f / %.3f |\n", mode, median(load), median(func),
                    median(launch), median(unload), mean(load), largest(load), mean(unload), largest(unload));
    }
};

struct Args {
    CUdeviceptr left = 0, right = 0, disparity = 0, ssd = 0;
    int width = 64, height = 40;
    void* list[6];
    Args() {
        const std::size_t pixels = static_cast<std::size_t>(width) * height;
        check(cuMemAlloc(&left, pixels), "cuMemAlloc");
        check(cuMemAlloc(&right, pixels), "cuMemAlloc");
        check(cuMemAlloc(&disparity, pixels * 4), "cuMemAlloc");
        check(cuMemAlloc(&ssd, pixels * 4), "cuMemAlloc");
        check(cuMemsetD8(left, 0, pixels), "cuMemset");
        check(cuMemsetD8(right, 0, pixels), "cuMemset");
        list[0] = &left, list[1] = &right, list[2] = &disparity, list[3] = &ssd, list[4] = &width, list[5] = &height;
    }
};

// The first GPU, with the CUDA driver initialised.
CUdevice first_gpu() {
    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    return dev;
}

// Makes `dev`'s primary context (created with `flags`, when nonzero) current, as gi-worker does.
void use_primary_context(CUdevice dev, unsigned flags = 0) {
    if (flags != 0) check(cuDevicePrimaryCtxSetFlags(dev, flags), "cuDevicePrimaryCtxSetFlags");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

// A cubin's bytes; exits naming the file when it cannot be read.
std::string read_cubin(const char* path) {
    std::ifstream in(path, std::ios::binary);
    std::string image((std::istreambuf_iterator<char>(in)), {});
    if (image.empty()) {
        std::fprintf(stderr, "module_cost: cannot read %s\n", path);
        std::exit(1);
    }
    return image;
}

void launch(CUfunction f, Args& args, Times& t) {
    const auto a = Clock::now();
    check(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args.list, nullptr), "cuLaunchKernel");
    check(cuCtxSynchronize(), "the kernel");
    t.launch.push_back(ms(a, Clock::now()));
}

int g_pace_ms = 0;  // --pace: a pause before each load, so N iterations span what runs beside them

CUmodule load(const std::string& image, const char* name, CUfunction& f, Times& t) {
    if (g_pace_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(g_pace_ms));
    CUmodule m = nullptr;
    const auto a = Clock::now();
    check(cuModuleLoadData(&m, image.data()), "cuModuleLoadData");
    const auto b = Clock::now();
    check(cuModuleGetFunction(&f, m, name), "cuModuleGetFunction");
    check(cuFuncLoad(f), "cuFuncLoad");
    const auto c = Clock::now();
    t.load.push_back(ms(a, b));
    t.func.push_back(ms(b, c));
    return m;
}

void unload(CUmodule m, Times& t) {
    const auto a = Clock::now();
    check(cuModuleUnload(m), "cuModuleUnload");
    t.unload.push_back(ms(a, Clock::now()));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--churn") {
        const CUdevice dev = first_gpu();
        std::vector<char> host(64 << 20, 1);
        const auto until = Clock::now() + std::chrono::seconds(std::atoi(argv[2]));
        while (Clock::now() < until) {
            CUcontext ctx;
            check(cuCtxCreate(&ctx, nullptr, 0, dev), "cuCtxCreate");
            CUdeviceptr p;
            check(cuMemAlloc(&p, 256 << 20), "cuMemAlloc");
            check(cuMemsetD8(p, 0, 256 << 20), "cuMemsetD8");
            check(cuMemcpyHtoD(p, host.data(), host.size()), "cuMemcpyHtoD");
            check(cuCtxDestroy(ctx), "cuCtxDestroy");
        }
        return 0;
    }
    if (argc == 4 && std::string(argv[1]) == "--hang") {
        const std::string image = read_cubin(argv[2]);
        use_primary_context(first_gpu());
        CUmodule m;
        check(cuModuleLoadData(&m, image.data()), "cuModuleLoadData");
        CUfunction f;
        check(cuModuleGetFunction(&f, m, argv[3]), "cuModuleGetFunction");
        check(cuLaunchKernel(f, 132, 1, 1, 256, 1, 1, 0, nullptr, nullptr, nullptr), "cuLaunchKernel");
        std::printf("hanging\n");  // the caller kills this process once it reads this
        std::fflush(stdout);
        cuCtxSynchronize();  // never returns
        return 0;
    }
    if (argc == 3 && std::string(argv[1]) == "--hold") {
        use_primary_context(first_gpu());
        CUdeviceptr p;
        check(cuMemAlloc(&p, 64 << 20), "cuMemAlloc");
        std::this_thread::sleep_for(std::chrono::seconds(std::atoi(argv[2])));
        return 0;
    }
    int arg = 1;
    const bool lmem_max = argc > arg && std::string(argv[arg]) == "--lmem-max";
    if (lmem_max) ++arg;
    int pace_ms = 0;
    if (argc > arg + 1 && std::string(argv[arg]) == "--pace") {
        pace_ms = std::atoi(argv[arg + 1]);
        arg += 2;
    }
    if (argc - arg < 3) {
        std::fprintf(stderr, "usage: module_cost [--lmem-max] [--pace MS] KERNEL ITERATIONS CUBIN...\n       module_cost --hold SECONDS\n"
                             "       module_cost --churn SECONDS\n       module_cost --hang CUBIN KERNEL\n");
        return 2;
    }
    g_pace_ms = pace_ms;
    const char* name = argv[arg];
    const int n = std::atoi(argv[arg + 1]);
    std::vector<std::string> images;
    std::size_t bytes = 0;
    for (int i = arg + 2; i < argc; ++i) {
        images.push_back(read_cubin(argv[i]));
        bytes += images.back().size();
    }
    const CUdevice dev = first_gpu();
    use_primary_context(dev, lmem_max ? CU_CTX_LMEM_RESIZE_TO_MAX : 0);
    char gpu[256] = {};
    cuDeviceGetName(gpu, sizeof gpu, dev);
    Args args;
    std::printf("module_cost: %s, %zu distinct cubin(s) (%zu bytes on average), kernel %s, %d iterations each%s, "
                "%d ms pause before each load\n\n", gpu, images.size(), bytes / images.size(), name, n,
                lmem_max ? ", CU_CTX_LMEM_RESIZE_TO_MAX" : "", pace_ms);
    std::printf("| mode | load ms | get + cuFuncLoad ms | launch + sync ms | unload ms | load mean / max | unload mean / max |\n"
                "|---|---|---|---|---|---|---|\n");
    auto image_of = [&](int i) -> const std::string& { return images[static_cast<std::size_t>(i) % images.size()]; };

    Times immediate;
    for (int i = 0; i < n; ++i) {
        CUfunction f;
        CUmodule m = load(image_of(i), name, f, immediate);
        launch(f, args, immediate);
        unload(m, immediate);
    }
    immediate.print("immediate");

    Times deferred;
    CUmodule previous = nullptr;
    for (int i = 0; i < n; ++i) {
        CUfunction f;
        CUmodule m = load(image_of(i), name, f, deferred);
        launch(f, args, deferred);
        if (previous) unload(previous, deferred);
        previous = m;
    }
    if (previous) unload(previous, deferred);
    deferred.print("deferred");

    Times two;
    for (int i = 0; i < n; ++i) {
        CUfunction f, g;
        CUmodule a = load(image_of(2 * i), name, f, two);
        CUmodule b = load(image_of(2 * i + 1), name, g, two);
        launch(f, args, two);
        launch(g, args, two);
        unload(a, two);
        unload(b, two);
    }
    two.print("two (per module)");

    Times library;
    for (int i = 0; i < n; ++i) {
        CUlibrary lib = nullptr;
        CUkernel k = nullptr;
        CUfunction f = nullptr;
        const auto a = Clock::now();
        check(cuLibraryLoadData(&lib, image_of(i).data(), nullptr, nullptr, 0, nullptr, nullptr, 0), "cuLibraryLoadData");
        const auto b = Clock::now();
        check(cuLibraryGetKernel(&k, lib, name), "cuLibraryGetKernel");
        check(cuKernelGetFunction(&f, k), "cuKernelGetFunction");
        check(cuFuncLoad(f), "cuFuncLoad");
        const auto c = Clock::now();
        library.load.push_back(ms(a, b));
        library.func.push_back(ms(b, c));
        launch(f, args, library);
        const auto d = Clock::now();
        check(cuLibraryUnload(lib), "cuLibraryUnload");
        library.unload.push_back(ms(d, Clock::now()));
    }
    library.print("library");
    return 0;
}
