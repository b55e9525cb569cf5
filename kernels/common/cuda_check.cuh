#pragma once
// CUDA error checks and event timing for the example drivers.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "common/timing.hpp"
#include "util/error.hpp"

namespace gi::kernels {

inline void cuda_check(cudaError_t status, const char* what, const char* file, int line) {
    if (status != cudaSuccess) {
        throw Error(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
}

#define GI_CUDA_CHECK(call) ::gi::kernels::cuda_check((call), #call, __FILE__, __LINE__)

// Times `launch` (which enqueues kernel work on the default stream) with CUDA events: `warmup`
// untimed runs, then `repetitions` timed ones. Checks for launch errors after every run.
template <class Launch>
TimingSummary time_with_events(Launch&& launch, int warmup, int repetitions) {
    for (int i = 0; i < warmup; ++i) {
        launch();
        GI_CUDA_CHECK(cudaGetLastError());
    }
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    GI_CUDA_CHECK(cudaEventCreate(&start));
    GI_CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> samples;
    for (int i = 0; i < repetitions; ++i) {
        GI_CUDA_CHECK(cudaEventRecord(start));
        launch();
        GI_CUDA_CHECK(cudaGetLastError());
        GI_CUDA_CHECK(cudaEventRecord(stop));
        GI_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        GI_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples.push_back(ms);
    }
    GI_CUDA_CHECK(cudaEventDestroy(start));
    GI_CUDA_CHECK(cudaEventDestroy(stop));
    return summarise(samples);
}

// A device buffer that frees itself.
template <class T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        GI_CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
    }
    DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() { cudaFree(data_); }

    T* get() const { return data_; }
    std::size_t size() const { return count_; }
    void upload(const std::vector<T>& host) {
        GI_CUDA_CHECK(cudaMemcpy(data_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const {
        std::vector<T> host(count_);
        GI_CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
    // Fills every byte with `byte`, so outputs a kernel fails to write stand out.
    void poison(int byte = 0xff) { GI_CUDA_CHECK(cudaMemset(data_, byte, count_ * sizeof(T))); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace gi::kernels
