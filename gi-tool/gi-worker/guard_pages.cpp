#include "guard_pages.hpp"

#include "worker/guard_page_layout.hpp"

namespace gi::worker {

GuardPagedMemory::~GuardPagedMemory() {
    for (const auto& [buffer, mapping] : mappings_) release(mapping);
}

void GuardPagedMemory::release(const Mapping& m) {
    if (m.mapped) cuMemUnmap(m.start, m.mapped);
    if (m.handle) cuMemRelease(m.handle);
    cuMemAddressFree(m.start, m.reserved);
}

bool GuardPagedMemory::supported() {
    CUdevice device = 0;
    int value = 0;
    return cuCtxGetDevice(&device) == CUDA_SUCCESS &&
           cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device) == CUDA_SUCCESS &&
           value != 0;
}

CUdeviceptr GuardPagedMemory::allocate(std::size_t bytes, std::size_t zone_before) {
    CUdevice device = 0;
    if (cuCtxGetDevice(&device) != CUDA_SUCCESS) return 0;
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = static_cast<int>(device);
    std::size_t granularity = 0;
    if (cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) return 0;
    const GuardPageLayout layout = guard_page_layout(bytes, zone_before, granularity, kGuardPageAlignment);
    Mapping m;
    m.reserved = layout.reserved;
    if (cuMemAddressReserve(&m.start, layout.reserved, granularity, 0, 0) != CUDA_SUCCESS) return 0;
    if (cuMemCreate(&m.handle, layout.mapped, &prop, 0) != CUDA_SUCCESS) {
        m.handle = 0;
        release(m);
        return 0;
    }
    if (cuMemMap(m.start, layout.mapped, 0, m.handle, 0) != CUDA_SUCCESS) {
        release(m);
        return 0;
    }
    m.mapped = layout.mapped;
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (cuMemSetAccess(m.start, layout.mapped, &access, 1) != CUDA_SUCCESS) {
        release(m);
        return 0;
    }
    const CUdeviceptr buffer = m.start + layout.buffer;
    mappings_[buffer] = m;
    return buffer;
}

void GuardPagedMemory::free(CUdeviceptr buffer) {
    const auto it = mappings_.find(buffer);
    if (it == mappings_.end()) return;
    release(it->second);
    mappings_.erase(it);
}

}  // namespace gi::worker
