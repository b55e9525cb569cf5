#pragma once
// The GPU gi-worker opens (GI_WORKER_DEVICE, else device 0): its primary context made current, a
// non-blocking stream, and what the evaluator is told about it.
#include <cuda.h>

#include <cstddef>
#include <string>

namespace gi::worker {

struct Gpu {
    CUdevice device = 0;
    CUcontext context = nullptr;
    CUstream stream = nullptr;
    std::string name;
    int compute_capability = 0;
    int sms = 0;
    std::size_t l2_bytes = 0;
    std::size_t memory_bytes = 0;
    int driver = 0;
    int devices = 0;  // cuDeviceGetCount's: the GPUs `--gpus all` spreads over
    int ordinal = 0;  // GI_WORKER_DEVICE's
};

// Throws CudaError when there is no usable GPU (no driver, no device).
Gpu open_gpu();

}  // namespace gi::worker
