// Does compute-sanitizer's racecheck run kernels of one process side by side? (issue 19: the
// gate's racecheck checks take 0.4 s each on stereo's 9-block gate case, and more sessions do not
// help.) A kernel shaped like stereo's (few blocks, a long loop of shared-memory reads and writes
// between barriers) is launched K times, one after another on one stream or at once on K streams;
// the wall time says whether the tool serialises them.
//
//   racecheck_streams serial|streams K BLOCKS ITERATIONS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

__global__ void shared_loop(float* out, int iterations) {
    __shared__ float buffer[128];
    float sum = 0;
    for (int i = 0; i < iterations; ++i) {
        buffer[threadIdx.x] = sum + static_cast<float>(i);
        __syncthreads();
        sum += buffer[(threadIdx.x + 1) % blockDim.x];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "racecheck_streams: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

int main(int argc, char** argv) {
    if (argc != 5 || (std::strcmp(argv[1], "serial") != 0 && std::strcmp(argv[1], "streams") != 0)) {
        std::fprintf(stderr, "usage: racecheck_streams serial|streams K BLOCKS ITERATIONS\n");
        return 2;
    }
    const bool streams = std::strcmp(argv[1], "streams") == 0;
    const int k = std::atoi(argv[2]), blocks = std::atoi(argv[3]), iterations = std::atoi(argv[4]);
    constexpr int threads = 64;
    std::vector<float*> out(k);
    std::vector<cudaStream_t> stream(k);
    for (int i = 0; i < k; ++i) {
        check(cudaMalloc(&out[i], sizeof(float) * blocks * threads), "cudaMalloc");
        check(cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking), "cudaStreamCreate");
    }
    // One launch first: module instrumentation and context set-up stay out of the timing.
    shared_loop<<<blocks, threads, 0, stream[0]>>>(out[0], iterations);
    check(cudaDeviceSynchronize(), "the warm-up launch");
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < k; ++i) shared_loop<<<blocks, threads, 0, streams ? stream[i] : stream[0]>>>(out[i], iterations);
    check(cudaDeviceSynchronize(), "the timed launches");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %d launches of %d blocks x %d iterations in %.3f s (%.3f s a launch)\n", argv[1], k, blocks, iterations, s,
                s / k);
    return 0;
}
