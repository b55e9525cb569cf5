// The recording half of gi::launch: find each pointer argument's allocation, snapshot it before and
// after the launch, and write the case atomically (testcase/case_io). Only reached when
// GI_RECORD_DIR is set.
#include <cuda.h>

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gi/launch.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi::launch_detail {
namespace {

static_assert(static_cast<int>(Element::F64) == static_cast<int>(ElementType::F64) &&
                  static_cast<int>(Element::Bytes) == static_cast<int>(ElementType::Bytes),
              "gi::launch_detail::Element must mirror gi::ElementType");

std::string where(const char* name, std::size_t index) {
    return std::string("gi::launch recording '") + name + "': argument " + std::to_string(index);
}

// cuMemGetAddressRange through the runtime's driver entry point: the recorder then needs no link
// to libcuda, so a program using it still starts on a machine without the driver.
using AddressRangeFn = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
AddressRangeFn address_range_function() {
    static AddressRangeFn fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
        cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p, 12000, cudaEnableDefault, &status);
#else
        cudaGetDriverEntryPoint("cuMemGetAddressRange", &p, cudaEnableDefault, &status);
#endif
        return status == cudaDriverEntryPointSuccess ? reinterpret_cast<AddressRangeFn>(p) : nullptr;
    }();
    return fn;
}

struct Allocation {
    std::uintptr_t base = 0;
    std::size_t size = 0;
};

Allocation find_allocation(const void* pointer, const char* name, std::size_t index) {
    cudaPointerAttributes attributes{};
    const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw RecordError(where(name, index) + " is a pointer the CUDA runtime does not know (" +
                          cudaGetErrorString(status) + "); pass device memory from cudaMalloc");
    }
    switch (attributes.type) {
        case cudaMemoryTypeUnregistered:
            throw RecordError(where(name, index) + " points to host memory; a kernel argument the recorder can "
                              "capture must point into device memory from cudaMalloc");
        case cudaMemoryTypeHost:
            throw RecordError(where(name, index) + " points to pinned host memory (cudaMallocHost/cudaHostRegister), "
                              "which the recorder cannot replay; copy it to device memory for the recorder run");
        case cudaMemoryTypeDevice:
        case cudaMemoryTypeManaged: break;
    }
    AddressRangeFn range = address_range_function();
    if (!range)
        throw RecordError(where(name, index) + ": the driver's cuMemGetAddressRange is not available, so the "
                          "allocation cannot be sized (update the NVIDIA driver)");
    CUdeviceptr base = 0;
    size_t size = 0;
    if (range(&base, &size, reinterpret_cast<CUdeviceptr>(pointer)) != CUDA_SUCCESS || size == 0)
        throw RecordError(where(name, index) + std::string(attributes.type == cudaMemoryTypeManaged ? " (managed memory)" : "") +
                          ": the driver cannot tell the allocation it points into, so it cannot be snapshot; "
                          "use plain cudaMalloc memory for the recorder run");
    return {static_cast<std::uintptr_t>(base), size};
}

void reject_texture_or_surface(unsigned long long handle, const char* name, std::size_t index) {
    if (handle == 0) return;
    cudaResourceDesc desc{};
    if (cudaGetTextureObjectResourceDesc(&desc, handle) == cudaSuccess)
        throw RecordError(where(name, index) + " is a texture object, which the recorder cannot capture; "
                          "pass the underlying device pointer to the kernel instead");
    cudaGetLastError();
    if (cudaGetSurfaceObjectResourceDesc(&desc, handle) == cudaSuccess)
        throw RecordError(where(name, index) + " is a surface object, which the recorder cannot capture; "
                          "pass the underlying device pointer to the kernel instead");
    cudaGetLastError();
}

void check(cudaError_t status, const char* name, const std::string& what) {
    if (status != cudaSuccess)
        throw RecordError(std::string("gi::launch recording '") + name + "': " + what + ": " + cudaGetErrorString(status));
}

Bytes snapshot(const Allocation& a, const char* name) {
    Bytes bytes(a.size);
    check(cudaMemcpy(bytes.data(), reinterpret_cast<const void*>(a.base), a.size, cudaMemcpyDefault), name,
          "copying an argument's allocation to the host");
    return bytes;
}

std::size_t record_limit() {
    static const std::size_t limit = [] {
        const char* text = std::getenv("GI_RECORD_LIMIT");
        if (!text || !*text) return std::size_t{16};
        char* end = nullptr;
        const long long value = std::strtoll(text, &end, 10);
        if (*end != '\0' || value < 0)
            throw RecordError(std::string("GI_RECORD_LIMIT must be a non-negative integer, not '") + text + "'");
        return static_cast<std::size_t>(value);
    }();
    return limit;
}

std::mutex recorder_mutex;
std::map<std::string, std::size_t> recorded_per_kernel;  // cases in the folder, counted once per kernel

}  // namespace

cudaError_t record_launch(Launcher launcher, const void* kernel, const char* name, dim3 grid, dim3 block,
                          std::size_t shared_bytes, cudaStream_t stream, void** args, const ArgInfo* infos,
                          std::size_t count) {
    std::lock_guard lock(recorder_mutex);
    const std::filesystem::path dir = std::getenv("GI_RECORD_DIR");
    auto counted = recorded_per_kernel.find(name);
    if (counted == recorded_per_kernel.end()) {
        std::size_t existing = 0;
        if (std::filesystem::is_directory(dir)) existing = list_test_cases(dir, name).size();
        counted = recorded_per_kernel.emplace(name, existing).first;
    }
    if (counted->second >= record_limit()) return launcher(kernel, grid, block, args, shared_bytes, stream);

    // Earlier asynchronous work must be finished before the snapshot, and its errors are not ours.
    if (cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) return status;

    TestCase tc;
    tc.kernel = name;
    tc.grid = {grid.x, grid.y, grid.z};
    tc.block = {block.x, block.y, block.z};
    tc.shared_bytes = static_cast<std::uint32_t>(shared_bytes);
    int device = 0;
    cudaDeviceProp properties{};
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
        tc.device = properties.name;
        tc.compute_capability = properties.major * 10 + properties.minor;
    }

    std::vector<Allocation> allocations;
    for (std::size_t i = 0; i < count; ++i) {
        const ArgInfo& info = infos[i];
        CaseArg arg;
        arg.size = static_cast<std::uint32_t>(info.size);
        arg.element = static_cast<ElementType>(info.element);
        if (info.is_pointer) {
            const void* pointer = *static_cast<const void* const*>(info.value);
            arg.is_const = info.pointee_const;
            if (pointer == nullptr) {
                arg.kind = CaseArg::Kind::Null;
            } else {
                arg.kind = CaseArg::Kind::Pointer;
                const Allocation a = find_allocation(pointer, name, i);
                std::size_t b = 0;
                while (b < allocations.size() && allocations[b].base != a.base) ++b;
                if (b == allocations.size()) {
                    allocations.push_back(a);
                    CaseBuffer buffer;
                    buffer.size = a.size;
                    buffer.element = arg.element;
                    tc.buffers.push_back(std::move(buffer));
                }
                if (!info.pointee_const) tc.buffers[b].read_only = false;
                arg.buffer = static_cast<int>(b);
                arg.offset = reinterpret_cast<std::uintptr_t>(pointer) - a.base;
            }
        } else {
            if (info.maybe_object) reject_texture_or_surface(*static_cast<const unsigned long long*>(info.value), name, i);
            arg.kind = CaseArg::Kind::Scalar;
            const auto* bytes = static_cast<const unsigned char*>(info.value);
            arg.value.assign(bytes, bytes + info.size);
        }
        tc.args.push_back(std::move(arg));
    }

    for (std::size_t b = 0; b < allocations.size(); ++b) tc.buffers[b].before = snapshot(allocations[b], name);
    if (cudaError_t status = launcher(kernel, grid, block, args, shared_bytes, stream); status != cudaSuccess)
        return status;
    // A launch that fails records nothing: a failing original is no oracle.
    if (cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) return status;
    for (std::size_t b = 0; b < allocations.size(); ++b) {
        CaseBuffer& buffer = tc.buffers[b];
        buffer.after = snapshot(allocations[b], name);
        buffer.changed = buffer.after != buffer.before;
    }
    try {
        write_test_case(tc, dir);
    } catch (const Error& e) {
        throw RecordError(std::string("gi::launch recording '") + name + "': " + e.what());
    }
    ++counted->second;
    return cudaSuccess;
}

}  // namespace gi::launch_detail
