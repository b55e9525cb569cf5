#pragma once
// Working buffers that end at an unmapped page (the gate's guard pages, CheckVariants::
// guard_pages): the CUDA driver's virtual memory calls reserve one granule more than they map,
// and the buffer is placed so that its end meets the unmapped granule (worker/guard_page_layout).
#include <cuda.h>

#include <cstddef>
#include <map>

namespace gi::worker {

class GuardPagedMemory {
public:
    GuardPagedMemory() = default;
    GuardPagedMemory(const GuardPagedMemory&) = delete;
    GuardPagedMemory& operator=(const GuardPagedMemory&) = delete;
    ~GuardPagedMemory();

    // A buffer of `bytes` with `zone_before` mapped bytes before it, in the current context's
    // device memory; 0 when memory or the driver does not allow (the caller falls back or gives up).
    CUdeviceptr allocate(std::size_t bytes, std::size_t zone_before);
    // Whether the current context's device maps memory this way at all (not every device or
    // driver does: there, the zones after buffers stay).
    static bool supported();
    void free(CUdeviceptr buffer);

private:
    struct Mapping {
        CUdeviceptr start = 0;
        std::size_t mapped = 0, reserved = 0;
        CUmemGenericAllocationHandle handle = 0;
    };
    static void release(const Mapping& m);
    std::map<CUdeviceptr, Mapping> mappings_;  // by the buffer's address
};

}  // namespace gi::worker
