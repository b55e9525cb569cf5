#pragma once
// Byte-for-byte comparison of device buffers on the GPU (bytes_differ.cu), for Replay's comparison
// of a variant's outputs with the original's: when they are equal, nothing is copied to the host.
// Copying a 64 MB output to the host and scanning it there cost tens of milliseconds per variant,
// twice (the guarded check and the timed build), against well under one on the GPU.
#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gi::worker {

class DeviceCompare {
public:
    // Loads the comparison kernel into the current context (the driver JIT-compiles its PTX for
    // this GPU). Throws CudaError when it cannot (a driver older than the toolkit's PTX, say):
    // the worker then compares on the host, as before.
    DeviceCompare(CUstream stream, int sms);
    ~DeviceCompare();
    DeviceCompare(const DeviceCompare&) = delete;
    DeviceCompare& operator=(const DeviceCompare&) = delete;

    // Queues whether the `bytes` bytes at `a` and `b` (cuMemAlloc'd, so 16-byte aligned) differ, on
    // the stream after the work already queued there; returns the pair's index for differs().
    std::size_t queue(CUdeviceptr a, CUdeviceptr b, std::size_t bytes);
    // Waits for the queued pairs and returns, per pair in queue order, whether it differs; the
    // queue is empty afterwards. Throws CudaError when a launch or the copy back fails.
    std::vector<bool> differs();

private:
    CUstream stream_;
    int blocks_limit_;
    CUmodule module_ = nullptr;
    CUfunction kernel_ = nullptr;
    CUdeviceptr flags_ = 0;        // one unsigned int per queued pair
    std::size_t capacity_ = 0;     // flags_ has room for this many
    std::size_t queued_ = 0;
    CUresult first_error_ = CUDA_SUCCESS;
    std::string first_error_what_;
};

}  // namespace gi::worker
