#include "driver_api.hpp"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <mutex>
#include <string>

namespace gi::intercept {
namespace {

using DlsymFn = void* (*)(void*, const char*);

// glibc 2.34 moved dlsym into libc under a new version; older ones have only the first.
DlsymFn glibc_dlsym() {
    static const DlsymFn fn = [] {
        void* p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!p) p = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        return reinterpret_cast<DlsymFn>(p);
    }();
    return fn;
}

std::atomic<GetProcAddressV2> known_v2{nullptr};
std::atomic<GetProcAddressV1> known_v1{nullptr};

template <typename Fn>
void find(Fn& slot, const char* symbol, int version) {
    void* p = nullptr;
    if (const GetProcAddressV2 v2 = real_get_proc_address_v2()) {
        CUdriverProcAddressQueryResult status{};
        if (v2(symbol, &p, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) != CUDA_SUCCESS) p = nullptr;
    } else if (const GetProcAddressV1 v1 = real_get_proc_address_v1()) {
        if (v1(symbol, &p, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM) != CUDA_SUCCESS) p = nullptr;
    }
    slot = reinterpret_cast<Fn>(p);
}

bool load(DriverApi& api) {
    if (!real_get_proc_address_v2() && !real_get_proc_address_v1()) return false;
    find(api.get_error_string, "cuGetErrorString", 12000);
    find(api.ctx_synchronize, "cuCtxSynchronize", 12000);
    find(api.ctx_get_device, "cuCtxGetDevice", 12000);
    find(api.device_get_name, "cuDeviceGetName", 12000);
    find(api.device_get_attribute, "cuDeviceGetAttribute", 12000);
    find(api.pointer_get_attributes, "cuPointerGetAttributes", 12000);
    find(api.mem_get_address_range, "cuMemGetAddressRange", 12000);
    find(api.memcpy_dtoh, "cuMemcpyDtoH", 12000);
    find(api.stream_is_capturing, "cuStreamIsCapturing", 12000);
    find(api.tex_object_get_resource_desc, "cuTexObjectGetResourceDesc", 12000);
    find(api.surf_object_get_resource_desc, "cuSurfObjectGetResourceDesc", 12000);
    find(api.func_get_name, "cuFuncGetName", 12030);
    find(api.func_get_param_info, "cuFuncGetParamInfo", 12040);
    find(api.func_get_module, "cuFuncGetModule", 12000);
    find(api.module_get_global, "cuModuleGetGlobal", 12000);
    find(api.kernel_get_name, "cuKernelGetName", 12030);
    find(api.kernel_get_function, "cuKernelGetFunction", 12000);
    find(api.kernel_get_param_info, "cuKernelGetParamInfo", 12040);
    find(api.kernel_get_library, "cuKernelGetLibrary", 12050);
    find(api.library_get_global, "cuLibraryGetGlobal", 12000);
    return api.ctx_synchronize != nullptr;
}

}  // namespace

void* real_dlsym(void* handle, const char* symbol) {
    const DlsymFn fn = glibc_dlsym();
    return fn ? fn(handle, symbol) : nullptr;
}

void* caller_dlsym(void* handle, const char* symbol, void* caller) {
    if (handle != RTLD_NEXT) return real_dlsym(handle, symbol);
    // glibc resolves RTLD_NEXT by its own caller, which is now this library: search the objects
    // loaded after the caller's, in order, as it would have.
    Dl_info info{};
    link_map* caller_map = nullptr;
    if (!dladdr1(caller, &info, reinterpret_cast<void**>(&caller_map), RTLD_DL_LINKMAP) || !caller_map)
        return real_dlsym(handle, symbol);
    for (link_map* next = caller_map->l_next; next; next = next->l_next)
        if (void* p = real_dlsym(next, symbol)) return p;
    return nullptr;
}

void* libcuda_symbol(const char* symbol) {
    // A program linked with libcuda finds it next after this library; one whose runtime opened
    // the driver (dlopen, not global) through a handle of its own.
    if (void* p = real_dlsym(RTLD_NEXT, symbol)) return p;
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!handle) return nullptr;
    void* p = real_dlsym(handle, symbol);
    dlclose(handle);
    return p;
}

void remember_get_proc_address(GetProcAddressV2 v2, GetProcAddressV1 v1) {
    if (v2) known_v2.store(v2);
    if (v1) known_v1.store(v1);
}

GetProcAddressV2 real_get_proc_address_v2() {
    if (const GetProcAddressV2 known = known_v2.load()) return known;
    const auto found = reinterpret_cast<GetProcAddressV2>(libcuda_symbol("cuGetProcAddress_v2"));
    if (found) known_v2.store(found);
    return found;
}

GetProcAddressV1 real_get_proc_address_v1() {
    if (const GetProcAddressV1 known = known_v1.load()) return known;
    const auto found = reinterpret_cast<GetProcAddressV1>(libcuda_symbol("cuGetProcAddress"));
    if (found) known_v1.store(found);
    return found;
}

const DriverApi* driver() {
    static DriverApi api;
    static bool loaded = false;
    static std::once_flag once;
    std::call_once(once, [] { loaded = load(api); });
    return loaded ? &api : nullptr;
}

const char* error_text(CUresult status) {
    const char* text = nullptr;
    const DriverApi* api = driver();
    if (api && api->get_error_string && api->get_error_string(status, &text) == CUDA_SUCCESS && text) return text;
    thread_local std::string fallback;
    fallback = "CUDA driver error " + std::to_string(static_cast<int>(status));
    return fallback.c_str();
}

}  // namespace gi::intercept
