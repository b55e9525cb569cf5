// Drives blurKernel through gi::launch so GI_RECORD_DIR captures test cases (the recorder's own
// test program and the GPU check's recording source until kernels/ has drivers).
//   record_demo [--width W] [--height H] [--frames N] [--host-pointer] [--texture]
//               [--timing-loop N] [--sweep K] [--repeat R]
// --host-pointer and --texture pass an argument the recorder must refuse (its error tests).
// --timing-loop launches scaleKernel once to warm up and then N times on the same data, as a
// benchmark does; --sweep launches it with K scale factors in turn, each R times on a zeroed output
// (the recorder's tests of which launches are distinct).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gi/launch.hpp>

#include "blur_kernel.cu"

__global__ void scaleKernel(const float* in, float* out, int n, float factor) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = factor * in[i];
}

__global__ void textureKernel(cudaTextureObject_t texture, float* out) { out[threadIdx.x] = tex1Dfetch<float>(texture, threadIdx.x); }

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t status_ = (call);                                                     \
        if (status_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "record_demo: %s: %s\n", #call, cudaGetErrorString(status_)); \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

int main(int argc, char** argv) {
    int width = 4096, height = 2048, frames = 2, timing_loop = 0, sweep = 0, repeat = 1;
    bool host_pointer = false, texture = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--width") && i + 1 < argc) width = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--height") && i + 1 < argc) height = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--host-pointer")) host_pointer = true;
        else if (!std::strcmp(argv[i], "--texture")) texture = true;
        else if (!std::strcmp(argv[i], "--timing-loop") && i + 1 < argc) timing_loop = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--sweep") && i + 1 < argc) sweep = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: record_demo [--width W] [--height H] [--frames N] [--host-pointer] [--texture] "
                                 "[--timing-loop N] [--sweep K] [--repeat R]\n");
            return 2;
        }
    }
    const size_t n = static_cast<size_t>(width) * height;
    std::vector<float> host(n);
    float *in = nullptr, *out = nullptr;
    int* count = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMalloc(&count, sizeof(int)));
    try {
        for (int frame = 0; frame < frames; ++frame) {
            unsigned seed = 12345u + frame;
            for (size_t i = 0; i < n; ++i) {
                seed = seed * 1664525u + 1013904223u;
                host[i] = static_cast<float>(seed >> 8) / 16777216.0f;
            }
            CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
            CHECK(cudaMemset(count, 0, sizeof(int)));
            const dim3 block(BLOCK_W, 4);
            const dim3 grid((width + BLOCK_W - 1) / BLOCK_W, (height + 4 * ROWS - 1) / (4 * ROWS));
            const float* source = host_pointer ? host.data() : in;
            CHECK(gi::launch(blurKernel, "blurKernel", grid, block, 0, nullptr, source, out, count, width, height,
                             0.5f + 0.01f * frame));
            CHECK(cudaDeviceSynchronize());
            int above = 0;
            CHECK(cudaMemcpy(&above, count, sizeof(int), cudaMemcpyDeviceToHost));
            std::printf("frame %d: %d pixels above threshold\n", frame, above);
        }
        if (timing_loop > 0 || sweep > 0) {
            const int items = static_cast<int>(n);
            for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000) / 8.0f;
            CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
            const dim3 block(256), grid((items + 255) / 256);
            if (timing_loop > 0) {
                CHECK(cudaMemset(out, 0, n * sizeof(float)));
                for (int launch = 0; launch <= timing_loop; ++launch)  // the warm-up, then the loop
                    CHECK(gi::launch(scaleKernel, "scaleKernel", grid, block, 0, nullptr, in, out, items, 2.0f));
                CHECK(cudaDeviceSynchronize());
                std::printf("timing loop: %d launches\n", timing_loop + 1);
            }
            for (int k = 0; k < sweep; ++k)
                for (int r = 0; r < repeat; ++r) {
                    CHECK(cudaMemset(out, 0, n * sizeof(float)));
                    CHECK(gi::launch(scaleKernel, "scaleKernel", grid, block, 0, nullptr, in, out, items, 1.0f + k));
                }
            CHECK(cudaDeviceSynchronize());
        }
        if (texture) {
            cudaResourceDesc resource{};
            resource.resType = cudaResourceTypeLinear;
            resource.res.linear.devPtr = in;
            resource.res.linear.desc = cudaCreateChannelDesc<float>();
            resource.res.linear.sizeInBytes = 256 * sizeof(float);
            cudaTextureDesc desc{};
            cudaTextureObject_t object = 0;
            CHECK(cudaCreateTextureObject(&object, &resource, &desc, nullptr));
            CHECK(gi::launch(textureKernel, "textureKernel", dim3(1), dim3(256), 0, nullptr, object, out));
        }
    } catch (const gi::RecordError& e) {
        std::fprintf(stderr, "record_demo: %s\n", e.what());
        return 1;
    }
    return 0;
}
