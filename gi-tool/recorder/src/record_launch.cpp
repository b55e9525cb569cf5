// gi::launch's recording: the device as the program's own CUDA runtime sees it, handed to the
// recording core (record_core.hpp). Only reached when GI_RECORD_DIR is set.
#include <cuda.h>

#include "gi/launch.hpp"
#include "record_core.hpp"

namespace gi::launch_detail {
namespace {

// Driver functions through the runtime's entry point: the recorder then needs no link to libcuda,
// so a program using it still starts on a machine without the driver.
// `version`: the CUDA version that introduced the function (asking for an older one finds nothing).
template <typename Fn>
Fn driver_function(const char* symbol, unsigned version = 12000) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
    cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &status);
#else
    (void)version;
    cudaGetDriverEntryPoint(symbol, &p, cudaEnableDefault, &status);
#endif
    return status == cudaDriverEntryPointSuccess ? reinterpret_cast<Fn>(p) : nullptr;
}

using AddressRangeFn = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
using FuncGetModuleFn = CUresult (*)(CUmodule*, CUfunction);
using FuncGetNameFn = CUresult (*)(const char**, CUfunction);
using ModuleGetGlobalFn = CUresult (*)(CUdeviceptr*, size_t*, CUmodule, const char*);

AddressRangeFn address_range_function() {
    static const AddressRangeFn fn = driver_function<AddressRangeFn>("cuMemGetAddressRange");
    return fn;
}

class RuntimeDevice final : public RecordingDevice {
public:
    explicit RuntimeDevice(const void* kernel) : kernel_(kernel) {}

    const char* who() const override { return "gi::launch recording"; }

    int synchronise() override { return static_cast<int>(cudaDeviceSynchronize()); }

    MemoryQuery memory(const void* pointer) override {
        cudaPointerAttributes attributes{};
        if (const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer); status != cudaSuccess) {
            cudaGetLastError();
            return {MemoryKind::Unknown, cudaGetErrorString(status)};
        }
        switch (attributes.type) {
            case cudaMemoryTypeUnregistered: return {MemoryKind::Host, ""};
            case cudaMemoryTypeHost: return {MemoryKind::PinnedHost, ""};
            case cudaMemoryTypeDevice: return {MemoryKind::Device, ""};
            case cudaMemoryTypeManaged: return {MemoryKind::Managed, ""};
        }
        return {MemoryKind::Host, ""};
    }

    bool sizes_allocations() override { return address_range_function() != nullptr; }

    std::optional<Allocation> allocation(std::uintptr_t pointer) override {
        AddressRangeFn range = address_range_function();
        if (!range) return std::nullopt;
        CUdeviceptr base = 0;
        size_t size = 0;
        if (range(&base, &size, static_cast<CUdeviceptr>(pointer)) != CUDA_SUCCESS || size == 0) return std::nullopt;
        return Allocation{static_cast<std::uintptr_t>(base), size};
    }

    std::string copy_to_host(void* host, std::uintptr_t device, std::size_t size) override {
        const cudaError_t status = cudaMemcpy(host, reinterpret_cast<const void*>(device), size, cudaMemcpyDefault);
        return status == cudaSuccess ? "" : cudaGetErrorString(status);
    }

    void identify(std::string& name, int& compute_capability) override {
        int device = 0;
        cudaDeviceProp properties{};
        if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
            name = properties.name;
            compute_capability = properties.major * 10 + properties.minor;
        }
    }

    // Which instantiation of a template ran, so replay runs the same one; "" on an old driver
    // (replay then goes by the name).
    std::string kernel_symbol() override {
        static const FuncGetNameFn get_name = driver_function<FuncGetNameFn>("cuFuncGetName", 12030);
        const char* name = nullptr;
        const CUfunction f = function();
        if (!f || !get_name || get_name(&name, f) != CUDA_SUCCESS || !name) return "";
        return name;
    }

    bool finds_module() override {
        static const FuncGetModuleFn get_module = driver_function<FuncGetModuleFn>("cuFuncGetModule");
        const CUfunction f = function();
        if (!module_ && (!get_module || !get_global() || !f || get_module(&module_, f) != CUDA_SUCCESS)) {
            cudaGetLastError();
            module_ = nullptr;
        }
        return module_ != nullptr;
    }

    std::optional<Allocation> module_variable(const std::string& name) override {
        CUdeviceptr address = 0;
        size_t size = 0;
        if (!module_ || get_global()(&address, &size, module_, name.c_str()) != CUDA_SUCCESS) return std::nullopt;
        return Allocation{static_cast<std::uintptr_t>(address), size};
    }

    ObjectKind object_kind(unsigned long long handle) override {
        cudaResourceDesc desc{};
        if (cudaGetTextureObjectResourceDesc(&desc, handle) == cudaSuccess) return ObjectKind::Texture;
        cudaGetLastError();
        if (cudaGetSurfaceObjectResourceDesc(&desc, handle) == cudaSuccess) return ObjectKind::Surface;
        cudaGetLastError();
        return ObjectKind::None;
    }

private:
    static ModuleGetGlobalFn get_global() {
        static const ModuleGetGlobalFn fn = driver_function<ModuleGetGlobalFn>("cuModuleGetGlobal");
        return fn;
    }

    // The driver's handle of the kernel the program launched, nullptr when the runtime cannot tell.
    CUfunction function() {
        if (!looked_up_) {
            looked_up_ = true;
            cudaFunction_t f = nullptr;
            if (cudaGetFuncBySymbol(&f, kernel_) == cudaSuccess) function_ = reinterpret_cast<CUfunction>(f);
            else cudaGetLastError();
        }
        return function_;
    }

    const void* kernel_;
    bool looked_up_ = false;
    CUfunction function_ = nullptr;
    CUmodule module_ = nullptr;
};

}  // namespace

cudaError_t record_launch(Launcher launcher, const void* kernel, const char* name, dim3 grid, dim3 block,
                          std::size_t shared_bytes, cudaStream_t stream, void** args, const ArgInfo* infos,
                          std::size_t count) {
    RuntimeDevice device(kernel);
    LaunchToRecord launch;
    launch.name = name;
    launch.grid = {grid.x, grid.y, grid.z};
    launch.block = {block.x, block.y, block.z};
    launch.shared_bytes = shared_bytes;
    launch.args = infos;
    launch.count = count;
    return static_cast<cudaError_t>(record_launch_with(
        device, launch, [&] { return static_cast<int>(launcher(kernel, grid, block, args, shared_bytes, stream)); }));
}

}  // namespace gi::launch_detail
