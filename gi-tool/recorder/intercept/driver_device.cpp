#include "driver_device.hpp"

namespace gi::intercept {

using launch_detail::Allocation;
using launch_detail::MemoryKind;
using launch_detail::MemoryQuery;
using launch_detail::ObjectKind;

int DriverDevice::synchronise() { return static_cast<int>(api_.ctx_synchronize()); }

MemoryQuery DriverDevice::memory(const void* pointer) {
    if (!api_.pointer_get_attributes) return {MemoryKind::Unknown, "the driver lacks cuPointerGetAttributes"};
    // Unlike cuPointerGetAttribute, a pointer CUDA does not know is no error: its type reads 0.
    unsigned int type = 0;
    unsigned int managed = 0;  // a bool written into the first byte
    CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void* data[] = {&type, &managed};
    const CUresult status =
        api_.pointer_get_attributes(2, attributes, data, static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer)));
    if (status != CUDA_SUCCESS) return {MemoryKind::Unknown, error_text(status)};
    if (managed != 0) return {MemoryKind::Managed, ""};
    switch (type) {
        case CU_MEMORYTYPE_HOST: return {MemoryKind::PinnedHost, ""};
        case CU_MEMORYTYPE_DEVICE:
        case CU_MEMORYTYPE_UNIFIED: return {MemoryKind::Device, ""};
        default: return {MemoryKind::Host, ""};
    }
}

std::optional<Allocation> DriverDevice::allocation(std::uintptr_t pointer) {
    if (!api_.mem_get_address_range) return std::nullopt;
    CUdeviceptr base = 0;
    size_t size = 0;
    if (api_.mem_get_address_range(&base, &size, static_cast<CUdeviceptr>(pointer)) != CUDA_SUCCESS || size == 0)
        return std::nullopt;
    return Allocation{static_cast<std::uintptr_t>(base), size};
}

std::string DriverDevice::copy_to_host(void* host, std::uintptr_t device, std::size_t size) {
    const CUresult status = api_.memcpy_dtoh(host, static_cast<CUdeviceptr>(device), size);
    return status == CUDA_SUCCESS ? "" : error_text(status);
}

void DriverDevice::identify(std::string& name, int& compute_capability) {
    CUdevice device = 0;
    char text[256] = {};
    int major = 0, minor = 0;
    if (!api_.ctx_get_device || api_.ctx_get_device(&device) != CUDA_SUCCESS) return;
    if (api_.device_get_name(text, sizeof text, device) != CUDA_SUCCESS ||
        api_.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
        api_.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
        return;
    name = text;
    compute_capability = major * 10 + minor;
}

bool DriverDevice::finds_module() {
    if (module_ || library_) return true;
    if (handle_.function && api_.func_get_module && api_.module_get_global &&
        api_.func_get_module(&module_, handle_.function) == CUDA_SUCCESS)
        return true;
    module_ = nullptr;
    if (handle_.kernel && api_.kernel_get_library && api_.library_get_global &&
        api_.kernel_get_library(&library_, handle_.kernel) == CUDA_SUCCESS)
        return true;
    library_ = nullptr;
    return false;
}

std::optional<Allocation> DriverDevice::module_variable(const std::string& name) {
    CUdeviceptr address = 0;
    size_t size = 0;
    CUresult status = CUDA_ERROR_NOT_FOUND;
    if (module_) status = api_.module_get_global(&address, &size, module_, name.c_str());
    else if (library_) status = api_.library_get_global(&address, &size, library_, name.c_str());
    if (status != CUDA_SUCCESS) return std::nullopt;
    return Allocation{static_cast<std::uintptr_t>(address), size};
}

ObjectKind DriverDevice::object_kind(unsigned long long handle) {
    CUDA_RESOURCE_DESC desc{};
    if (api_.tex_object_get_resource_desc && api_.tex_object_get_resource_desc(&desc, handle) == CUDA_SUCCESS)
        return ObjectKind::Texture;
    if (api_.surf_object_get_resource_desc && api_.surf_object_get_resource_desc(&desc, handle) == CUDA_SUCCESS)
        return ObjectKind::Surface;
    return ObjectKind::None;
}

}  // namespace gi::intercept
