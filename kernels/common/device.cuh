#pragma once
// What a driver does on a machine without a usable GPU (a CI machine that builds and runs the test
// suite without one): it says so in one line and exits with the CUDA samples' EXIT_WAIVED (2),
// rather than failing on its first cudaMalloc with a message about memory.
#include <cuda_runtime.h>

#include <cstdio>

namespace gi::kernels {

inline constexpr int kExitWaived = 2;

// True when no CUDA device can be used; then `program`'s waiver line has been printed.
inline bool waived_without_device(const char* program) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count > 0) return false;
    std::printf("%s: No CUDA device found (%s): waived\n", program,
                status != cudaSuccess ? cudaGetErrorString(status) : "the driver sees none");
    return true;
}

}  // namespace gi::kernels
