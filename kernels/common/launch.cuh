#pragma once
// How the drivers launch their kernel: through gi::launch (gi-optimize's recorder, <gi/launch.hpp>)
// when they are built with it, so a run with GI_RECORD_DIR set captures test cases; with plain
// <<<>>> where the recorder is not available (a standalone build of kernels/ on a machine without
// tinyxml2). Either way a launch error throws gi::Error naming the kernel.
#include <cstdlib>
#include <string>
#include <utility>

#include "common/cuda_check.cuh"

#if GI_KERNELS_WITH_RECORDER
#include <gi/launch.hpp>
#endif

namespace gi::kernels {

template <typename... Params, typename... Args>
void launch_kernel(void (*kernel)(Params...), const char* name, dim3 grid, dim3 block, Args&&... args) {
#if GI_KERNELS_WITH_RECORDER
    const cudaError_t status = gi::launch(kernel, name, grid, block, 0, nullptr, std::forward<Args>(args)...);
#else
    kernel<<<grid, block>>>(std::forward<Args>(args)...);
    const cudaError_t status = cudaGetLastError();
#endif
    if (status != cudaSuccess) {
        throw Error(std::string("launching ") + name + " with block (" + std::to_string(block.x) + "," +
                    std::to_string(block.y) + "," + std::to_string(block.z) + ") and grid (" + std::to_string(grid.x) +
                    "," + std::to_string(grid.y) + "," + std::to_string(grid.z) + ") failed: " +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
}

// True when this run records test cases: the drivers then skip timing, whose repeated launches
// would only record the same input again (and be slowed by the recorder's synchronisation).
inline bool recording() {
    const char* dir = std::getenv("GI_RECORD_DIR");
    return dir != nullptr && *dir != '\0';
}

inline const char* launch_mode() {
#if GI_KERNELS_WITH_RECORDER
    return recording() ? "gi::launch, recording" : "gi::launch";
#else
    return "<<<>>>";
#endif
}

}  // namespace gi::kernels
