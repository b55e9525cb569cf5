// Kernels launched every way a CUDA program launches them, for the GPU tests of gi-tool's launch
// intercept (tests/recorder/gpu_intercept_test.cpp): the same launches made through gi::launch and
// through <<<...>>>, cudaLaunchKernel with a void** argument array, or the driver's cuLaunchKernel
// with an `extra` parameter buffer must give the same recorded cases, byte for byte. Built three
// times: with the static CUDA runtime (CMake's default), the shared one, and per-thread default
// streams (the runtime then launches through cuLaunchKernel_ptsz).
//   intercept_demo --via launch|chevron|runtime|driver [--timing-loop N] [--capture]
// Each kernel is launched once on fresh data, then N more times on the same data (a benchmark's
// loop); axpyStruct, whose output is its input, once. --capture first launches scaleKernel into a
// stream being captured into a graph, and runs the graph. Exit status 0 when every result is right.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gi/launch.hpp>

__constant__ float c_bias[4];

__global__ void scaleKernel(const float* in, float* out, int n, float factor) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = factor * in[i] + c_bias[0];
}

template <typename T, int PER_THREAD>
__global__ void sumBlocks(const T* in, T* out, unsigned n) {
    const unsigned o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o * PER_THREAD >= n) return;
    T sum = 0;
    for (unsigned k = 0; k < PER_THREAD && o * PER_THREAD + k < n; ++k) sum += in[o * PER_THREAD + k];
    out[o] = sum;
}

extern "C" __global__ void vector_add(float* c, const float* a, const float* b, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

struct Params {
    const float* x;
    float* y;
    float a;
    int n;
};

__global__ void axpyStruct(Params p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.y[i] += p.a * p.x[i];
}

namespace {

#define CHECK(call)                                                                                \
    do {                                                                                           \
        const cudaError_t status_ = (call);                                                        \
        if (status_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "intercept_demo: %s: %s\n", #call, cudaGetErrorString(status_)); \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

std::string via = "launch";

// The driver's cuLaunchKernel, as the runtime hands it out, with the arguments packed into an
// `extra` buffer at their natural alignment (what a program packing its own buffer does).
class DriverLaunch {
public:
    template <typename... Args>
    void operator()(const void* kernel, dim3 grid, dim3 block, const Args&... args) {
        static PFN_cuLaunchKernel_v4000 launch = [] {
            void* p = nullptr;
            cudaDriverEntryPointQueryResult status{};
            CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 12000, cudaEnableDefault, &status));
            if (status != cudaDriverEntryPointSuccess) std::exit(1);
            return reinterpret_cast<PFN_cuLaunchKernel_v4000>(p);
        }();
        cudaFunction_t function = nullptr;
        CHECK(cudaGetFuncBySymbol(&function, kernel));
        std::vector<unsigned char> buffer;
        (pack(buffer, args), ...);
        std::size_t size = buffer.size();
        void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                         CU_LAUNCH_PARAM_END};
        if (launch(reinterpret_cast<CUfunction>(function), grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, nullptr,
                   nullptr, extra) != CUDA_SUCCESS) {
            std::fprintf(stderr, "intercept_demo: cuLaunchKernel failed\n");
            std::exit(1);
        }
    }

private:
    template <typename T>
    static void pack(std::vector<unsigned char>& buffer, const T& value) {
        const std::size_t at = (buffer.size() + alignof(T) - 1) / alignof(T) * alignof(T);
        buffer.resize(at + sizeof(T));
        std::memcpy(buffer.data() + at, &value, sizeof(T));
    }
};

// One launch of `kernel` the way --via says; `name` is the gi::launch name.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), const char* name, dim3 grid, dim3 block, Args... args) {
    if (via == "launch") {
        CHECK(gi::launch(kernel, name, grid, block, 0, nullptr, args...));
    } else if (via == "chevron") {
        kernel<<<grid, block>>>(args...);
        CHECK(cudaGetLastError());
    } else if (via == "runtime") {
        void* pointers[] = {static_cast<void*>(&args)...};
        CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, pointers, 0, nullptr));
    } else {
        DriverLaunch()(reinterpret_cast<const void*>(kernel), grid, block, static_cast<Params>(args)...);
    }
}

bool close(float a, float b) { return std::fabs(a - b) <= 1e-4f * std::fabs(b) + 1e-5f; }

}  // namespace

int main(int argc, char** argv) {
    int loop = 0;
    bool capture = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--via") && i + 1 < argc) via = argv[++i];
        else if (!std::strcmp(argv[i], "--timing-loop") && i + 1 < argc) loop = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--capture")) capture = true;
        else {
            std::fprintf(stderr, "usage: intercept_demo --via launch|chevron|runtime|driver [--timing-loop N] [--capture]\n");
            return 2;
        }
    }
    if (via != "launch" && via != "chevron" && via != "runtime" && via != "driver") return 2;
    const int n = 1000;
    std::vector<float> host(n), result(n);
    for (int i = 0; i < n; ++i) host[i] = 0.25f * static_cast<float>(i % 97);
    const float bias[4] = {0.5f, 0, 0, 0};
    CHECK(cudaMemcpyToSymbol(c_bias, bias, sizeof bias));
    float *in = nullptr, *out = nullptr, *sums = nullptr, *y = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMalloc(&sums, n / 4 * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0, n * sizeof(float)));
    CHECK(cudaMemset(sums, 0, n / 4 * sizeof(float)));
    int wrong = 0;

    if (capture) {
        cudaStream_t stream = nullptr;
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        CHECK(cudaStreamCreate(&stream));
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        scaleKernel<<<(n + 127) / 128, 128, 0, stream>>>(in, out, n, 5.0f);
        CHECK(cudaStreamEndCapture(stream, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        CHECK(cudaMemcpy(result.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) wrong += !close(result[i], 5.0f * host[i] + 0.5f);
        CHECK(cudaMemset(out, 0, n * sizeof(float)));
    }
    for (int i = 0; i <= loop; ++i) launch(scaleKernel, "scaleKernel", dim3((n + 127) / 128), dim3(128), (const float*)in, out, n, 3.0f);
    for (int i = 0; i <= loop; ++i)
        launch(sumBlocks<float, 4>, "sumBlocks", dim3((n / 4 + 63) / 64), dim3(64), (const float*)in, sums, unsigned(n));
    for (int i = 0; i <= loop; ++i)
        launch(vector_add, "vector_add", dim3((n + 127) / 128), dim3(128), out, (const float*)in, (const float*)in, n);
    launch(axpyStruct, "axpyStruct", dim3((n + 127) / 128), dim3(128), Params{in, y, 2.0f, n});
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(result.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) wrong += !close(result[i], 2.0f * host[i]);  // vector_add wrote last
    CHECK(cudaMemcpy(result.data(), sums, n / 4 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int o = 0; o < n / 4; ++o)
        wrong += !close(result[o], host[4 * o] + host[4 * o + 1] + host[4 * o + 2] + host[4 * o + 3]);
    CHECK(cudaMemcpy(result.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) wrong += !close(result[i], 3.0f * host[i]);
    std::printf("intercept_demo --via %s: %s (%d wrong)\n", via.c_str(), wrong ? "FAILED" : "PASSED", wrong);
    return wrong ? 1 : 0;
}
