// A stand-in for libcuda, so the launch intercept's whole path (dlsym, cuGetProcAddress, the
// launch wrappers, the driver device, the recording core) runs in the CPU tests: "device memory"
// is host memory this library hands out and knows, a "kernel" is a host function with the
// compiled name and parameter layout a real one has. Only what the intercept and the fake
// launcher (fake_launcher.cpp) call is here; the rest is not found.
#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Range {
    std::uintptr_t base;
    std::size_t size;
    bool pinned_host;
};
std::vector<Range> ranges;

const Range* range_of(CUdeviceptr p) {
    for (const Range& r : ranges)
        if (p >= r.base && p - r.base < r.size) return &r;
    return nullptr;
}

struct Params {
    const float* x;
    float* y;
    float a;
    int n;
};

// The module's __constant__ variable.
float c_scale_storage[4] = {2.0f, 0, 0, 0};

struct FakeKernel {
    const char* name;
    std::vector<std::pair<std::size_t, std::size_t>> layout;  // offset, size
    void (*run)(void** args, unsigned threads);
};

template <typename T>
T arg(void** args, int i) {
    T value;
    std::memcpy(&value, args[i], sizeof value);
    return value;
}

std::vector<FakeKernel> kernels = {
    {"_Z11scaleKernelPKfPfif", {{0, 8}, {8, 8}, {16, 4}, {20, 4}},
     [](void** args, unsigned) {
         const float* in = arg<const float*>(args, 0);
         float* out = arg<float*>(args, 1);
         const int n = arg<int>(args, 2);
         const float factor = arg<float>(args, 3);
         for (int i = 0; i < n; ++i) out[i] = factor * in[i] * c_scale_storage[0] / 2.0f;
     }},
    {"_Z9sumBlocksIfLi4EEvPKT_PS0_j", {{0, 8}, {8, 8}, {16, 4}},
     [](void** args, unsigned) {
         const float* in = arg<const float*>(args, 0);
         float* out = arg<float*>(args, 1);
         const unsigned n = arg<unsigned>(args, 2);
         for (unsigned b = 0; b * 4 < n; ++b) {
             out[b] = 0;
             for (unsigned i = b * 4; i < n && i < b * 4 + 4; ++i) out[b] += in[i];
         }
     }},
    {"vector_add", {{0, 8}, {8, 8}, {16, 8}, {24, 4}},
     [](void** args, unsigned) {
         float* c = arg<float*>(args, 0);
         const float* a = arg<const float*>(args, 1);
         const float* b = arg<const float*>(args, 2);
         const int n = arg<int>(args, 3);
         for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
     }},
    {"_Z10axpyStruct6Params", {{0, sizeof(Params)}},
     [](void** args, unsigned) {
         const Params p = arg<Params>(args, 0);
         for (int i = 0; i < p.n; ++i) p.y[i] += p.a * p.x[i];
     }},
};

FakeKernel* kernel_of(CUfunction f) {
    for (FakeKernel& k : kernels)
        if (reinterpret_cast<CUfunction>(&k) == f) return &k;
    return nullptr;
}

int capturing = 0;
int fake_module;

CUresult launch(CUfunction f, void** params, void** extra, unsigned threads) {
    FakeKernel* k = kernel_of(f);
    if (!k) return CUDA_ERROR_INVALID_HANDLE;
    std::vector<void*> args;
    if (params) {
        args.assign(params, params + k->layout.size());
    } else {
        unsigned char* buffer = nullptr;
        for (void** e = extra; e && *e != CU_LAUNCH_PARAM_END; e += 2)
            if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<unsigned char*>(e[1]);
        if (!buffer && !k->layout.empty()) return CUDA_ERROR_INVALID_VALUE;
        for (const auto& [offset, size] : k->layout) args.push_back(buffer + offset);
    }
    k->run(args.data(), threads);
    return CUDA_SUCCESS;
}

CUresult launch_kernel(CUfunction f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned, CUstream,
                       void** params, void** extra) {
    return launch(f, params, extra, gx * bx);
}
CUresult launch_kernel_ex(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
    return launch(f, params, extra, config->gridDimX * config->blockDimX);
}
CUresult get_error_string(CUresult, const char** text) {
    *text = "fake driver error";
    return CUDA_SUCCESS;
}
CUresult ctx_synchronize() { return CUDA_SUCCESS; }
CUresult ctx_get_device(CUdevice* device) {
    *device = 0;
    return CUDA_SUCCESS;
}
CUresult device_get_name(char* name, int length, CUdevice) {
    std::strncpy(name, "Fake GPU", static_cast<std::size_t>(length));
    return CUDA_SUCCESS;
}
CUresult device_get_attribute(int* value, CUdevice_attribute attribute, CUdevice) {
    *value = attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
    return CUDA_SUCCESS;
}
CUresult pointer_get_attributes(unsigned count, CUpointer_attribute* attributes, void** data, CUdeviceptr p) {
    const Range* r = range_of(p);
    for (unsigned i = 0; i < count; ++i) {
        if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
            *static_cast<unsigned*>(data[i]) = !r ? 0u : r->pinned_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        else if (attributes[i] == CU_POINTER_ATTRIBUTE_IS_MANAGED)
            *static_cast<unsigned char*>(data[i]) = 0;
    }
    return CUDA_SUCCESS;
}
CUresult mem_get_address_range(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
    const Range* r = range_of(p);
    if (!r || r->pinned_host) return CUDA_ERROR_NOT_FOUND;
    *base = r->base;
    *size = r->size;
    return CUDA_SUCCESS;
}
CUresult memcpy_dtoh(void* host, CUdeviceptr device, size_t size) {
    std::memcpy(host, reinterpret_cast<const void*>(device), size);
    return CUDA_SUCCESS;
}
CUresult stream_is_capturing(CUstream, CUstreamCaptureStatus* status) {
    *status = capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}
CUresult object_resource_desc(CUDA_RESOURCE_DESC*, unsigned long long) { return CUDA_ERROR_INVALID_VALUE; }
CUresult func_get_name(const char** name, CUfunction f) {
    const FakeKernel* k = kernel_of(f);
    if (!k) return CUDA_ERROR_INVALID_HANDLE;
    *name = k->name;
    return CUDA_SUCCESS;
}
CUresult func_get_param_info(CUfunction f, size_t index, size_t* offset, size_t* size) {
    const FakeKernel* k = kernel_of(f);
    if (!k) return CUDA_ERROR_INVALID_HANDLE;
    if (index >= k->layout.size()) return CUDA_ERROR_INVALID_VALUE;
    *offset = k->layout[index].first;
    *size = k->layout[index].second;
    return CUDA_SUCCESS;
}
CUresult func_get_module(CUmodule* module, CUfunction f) {
    if (!kernel_of(f)) return CUDA_ERROR_INVALID_HANDLE;
    *module = reinterpret_cast<CUmodule>(&fake_module);
    return CUDA_SUCCESS;
}
CUresult module_get_global(CUdeviceptr* address, size_t* size, CUmodule, const char* name) {
    if (std::strcmp(name, "c_scale") != 0) return CUDA_ERROR_NOT_FOUND;
    *address = reinterpret_cast<CUdeviceptr>(c_scale_storage);
    *size = sizeof c_scale_storage;
    return CUDA_SUCCESS;
}

struct Entry {
    const char* name;
    void* function;
};
const Entry entries[] = {
    {"cuLaunchKernel", reinterpret_cast<void*>(&launch_kernel)},
    {"cuLaunchKernelEx", reinterpret_cast<void*>(&launch_kernel_ex)},
    {"cuGetErrorString", reinterpret_cast<void*>(&get_error_string)},
    {"cuCtxSynchronize", reinterpret_cast<void*>(&ctx_synchronize)},
    {"cuCtxGetDevice", reinterpret_cast<void*>(&ctx_get_device)},
    {"cuDeviceGetName", reinterpret_cast<void*>(&device_get_name)},
    {"cuDeviceGetAttribute", reinterpret_cast<void*>(&device_get_attribute)},
    {"cuPointerGetAttributes", reinterpret_cast<void*>(&pointer_get_attributes)},
    {"cuMemGetAddressRange", reinterpret_cast<void*>(&mem_get_address_range)},
    {"cuMemcpyDtoH", reinterpret_cast<void*>(&memcpy_dtoh)},
    {"cuStreamIsCapturing", reinterpret_cast<void*>(&stream_is_capturing)},
    {"cuTexObjectGetResourceDesc", reinterpret_cast<void*>(&object_resource_desc)},
    {"cuSurfObjectGetResourceDesc", reinterpret_cast<void*>(&object_resource_desc)},
    {"cuFuncGetName", reinterpret_cast<void*>(&func_get_name)},
    {"cuFuncGetParamInfo", reinterpret_cast<void*>(&func_get_param_info)},
    {"cuFuncGetModule", reinterpret_cast<void*>(&func_get_module)},
    {"cuModuleGetGlobal", reinterpret_cast<void*>(&module_get_global)},
};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t,
                                                                    CUdriverProcAddressQueryResult* status) {
    for (const Entry& e : entries)
        if (std::strcmp(e.name, symbol) == 0) {
            *pfn = e.function;
            if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    if (std::strcmp(symbol, "cuGetProcAddress") == 0) {
        *pfn = reinterpret_cast<void*>(&cuGetProcAddress_v2);
        return CUDA_SUCCESS;
    }
    *pfn = nullptr;
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

// The fake launcher's way to make "device memory", find kernels and fake a stream capture.
__attribute__((visibility("default"))) void* fake_alloc(std::size_t size, int pinned_host) {
    void* p = std::calloc(size, 1);
    ranges.push_back({reinterpret_cast<std::uintptr_t>(p), size, pinned_host != 0});
    return p;
}
__attribute__((visibility("default"))) CUfunction fake_kernel(const char* name) {
    for (FakeKernel& k : kernels)
        if (std::strcmp(k.name, name) == 0) return reinterpret_cast<CUfunction>(&k);
    return nullptr;
}
__attribute__((visibility("default"))) void fake_capture(int on) { capturing = on; }

}  // extern "C"
