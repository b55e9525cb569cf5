// Where the launch intercept sees launches (bench/probe-42 showed the way, with the static and the
// shared runtime alike): the CUDA runtime opens libcuda itself and asks dlsym for
// cuGetProcAddress_v2, through which it then finds every driver function it calls. This library,
// preloaded, defines dlsym: it hands the runtime a cuGetProcAddress of its own, which wraps the
// launch entry points the driver hands out (cuLaunchKernel, which <<<>>> and cudaLaunchKernel come
// down to; cuLaunchKernelEx for cudaLaunchKernelEx; cuLaunchCooperativeKernel; each also in its
// per-thread-default-stream form). A program calling the driver API directly reaches libcuda's
// exports instead, so those are defined here too. Everything else passes through untouched, and
// nothing is wrapped unless the intercept works in this process (intercepted_launch.hpp).
//
// The only symbols this library exports are these entry points (it is built with hidden
// visibility): the recording core, gi-tool's sources and their static objects stay private.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "driver_api.hpp"
#include "intercepted_launch.hpp"

// cuda.h names the version 2 entry point cuGetProcAddress; the version 1 export is defined below
// under its own name.
#undef cuGetProcAddress

#define GI_EXPORT __attribute__((visibility("default")))

extern "C" {
GI_EXPORT void* dlsym(void* handle, const char* symbol);
GI_EXPORT CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);
GI_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                               CUdriverProcAddressQueryResult* symbolStatus);
GI_EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                                          unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ,
                                          unsigned sharedMemBytes, CUstream hStream, void** kernelParams, void** extra);
GI_EXPORT CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                                               unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ,
                                               unsigned sharedMemBytes, CUstream hStream, void** kernelParams,
                                               void** extra);
GI_EXPORT CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra);
GI_EXPORT CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** kernelParams,
                                                 void** extra);
GI_EXPORT CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                                                     unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ,
                                                     unsigned sharedMemBytes, CUstream hStream, void** kernelParams);
GI_EXPORT CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gridDimX, unsigned gridDimY,
                                                          unsigned gridDimZ, unsigned blockDimX, unsigned blockDimY,
                                                          unsigned blockDimZ, unsigned sharedMemBytes, CUstream hStream,
                                                          void** kernelParams);
}

namespace gi::intercept {
namespace {

using LaunchKernelFn = PFN_cuLaunchKernel_v4000;  // the _ptsz forms have the same signatures
using LaunchKernelExFn = PFN_cuLaunchKernelEx_v11060;
using LaunchCooperativeFn = PFN_cuLaunchCooperativeKernel_v9000;

const char* const kCooperative =
    "it is launched cooperatively (cuLaunchCooperativeKernel, cudaLaunchCooperativeKernel: grid-wide "
    "synchronisation), which replay does not reproduce";

LaunchCall call_of(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, CUstream stream, bool per_thread, void** params, void** extra) {
    LaunchCall call;
    call.function = f;
    call.grid[0] = gx, call.grid[1] = gy, call.grid[2] = gz;
    call.block[0] = bx, call.block[1] = by, call.block[2] = bz;
    call.shared_bytes = shared;
    call.stream = stream;
    call.per_thread_stream = per_thread;
    call.params = params;
    call.extra = extra;
    return call;
}

CUresult launch_kernel(LaunchKernelFn real, bool per_thread, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream stream, void** params,
                       void** extra) {
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    auto run = [&] { return real(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra); };
    if (!intercept_enabled()) return run();
    return intercept_launch(call_of(f, gx, gy, gz, bx, by, bz, shared, stream, per_thread, params, extra), run);
}

CUresult launch_cooperative(LaunchCooperativeFn real, bool per_thread, CUfunction f, unsigned gx, unsigned gy,
                            unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream stream,
                            void** params) {
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    auto run = [&] { return real(f, gx, gy, gz, bx, by, bz, shared, stream, params); };
    if (!intercept_enabled()) return run();
    LaunchCall call = call_of(f, gx, gy, gz, bx, by, bz, shared, stream, per_thread, params, nullptr);
    call.refused = kCooperative;
    return intercept_launch(call, run);
}

// Attributes of cuLaunchKernelEx that replay, a plain launch, would not reproduce.
std::string ex_refusal(const CUlaunchConfig& config) {
    for (unsigned i = 0; config.attrs && i < config.numAttrs; ++i) {
        const CUlaunchAttribute& a = config.attrs[i];
        if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a.value.cooperative != 0) return kCooperative;
        if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
            a.value.clusterDim.x * a.value.clusterDim.y * a.value.clusterDim.z > 1)
            return "it is launched with thread block clusters of " + std::to_string(a.value.clusterDim.x) + "x" +
                   std::to_string(a.value.clusterDim.y) + "x" + std::to_string(a.value.clusterDim.z) +
                   " (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION), which replay does not set";
    }
    return "";
}

CUresult launch_kernel_ex(LaunchKernelExFn real, bool per_thread, const CUlaunchConfig* config, CUfunction f,
                          void** params, void** extra) {
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    auto run = [&] { return real(config, f, params, extra); };
    if (!intercept_enabled() || !config) return run();
    LaunchCall call = call_of(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                              config->blockDimY, config->blockDimZ, config->sharedMemBytes, config->hStream, per_thread,
                              params, extra);
    call.refused = ex_refusal(*config);
    return intercept_launch(call, run);
}

// The driver's launch functions the runtime was handed, each behind a wrapper of its own: a
// handful of slots per entry point, since the driver may hand out several (legacy and per-thread
// default stream, and one per version asked for).
constexpr std::size_t kSlots = 8;

struct Slot {
    std::atomic<void*> real{nullptr};
    std::atomic<bool> per_thread{false};
};

std::array<Slot, kSlots> kernel_slots, ex_slots, cooperative_slots;
std::mutex slots_mutex;

template <std::size_t N>
CUresult CUDAAPI kernel_hook(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned shared, CUstream stream, void** params, void** extra) {
    const Slot& slot = kernel_slots[N];
    return launch_kernel(reinterpret_cast<LaunchKernelFn>(slot.real.load()), slot.per_thread.load(), f, gx, gy, gz, bx,
                         by, bz, shared, stream, params, extra);
}

template <std::size_t N>
CUresult CUDAAPI ex_hook(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
    const Slot& slot = ex_slots[N];
    return launch_kernel_ex(reinterpret_cast<LaunchKernelExFn>(slot.real.load()), slot.per_thread.load(), config, f,
                            params, extra);
}

template <std::size_t N>
CUresult CUDAAPI cooperative_hook(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                  unsigned bz, unsigned shared, CUstream stream, void** params) {
    const Slot& slot = cooperative_slots[N];
    return launch_cooperative(reinterpret_cast<LaunchCooperativeFn>(slot.real.load()), slot.per_thread.load(), f, gx,
                              gy, gz, bx, by, bz, shared, stream, params);
}

template <std::size_t... I>
std::array<void*, kSlots> kernel_hooks_of(std::index_sequence<I...>) {
    return {{reinterpret_cast<void*>(&kernel_hook<I>)...}};
}
template <std::size_t... I>
std::array<void*, kSlots> ex_hooks_of(std::index_sequence<I...>) {
    return {{reinterpret_cast<void*>(&ex_hook<I>)...}};
}
template <std::size_t... I>
std::array<void*, kSlots> cooperative_hooks_of(std::index_sequence<I...>) {
    return {{reinterpret_cast<void*>(&cooperative_hook<I>)...}};
}

const std::array<void*, kSlots> kernel_hooks = kernel_hooks_of(std::make_index_sequence<kSlots>{});
const std::array<void*, kSlots> ex_hooks = ex_hooks_of(std::make_index_sequence<kSlots>{});
const std::array<void*, kSlots> cooperative_hooks = cooperative_hooks_of(std::make_index_sequence<kSlots>{});

// Whether `p` is this library's own: never remembered as the driver's, never wrapped again.
bool ours(void* p) {
    for (const auto* hooks : {&kernel_hooks, &ex_hooks, &cooperative_hooks})
        for (void* hook : *hooks)
            if (hook == p) return true;
    for (void* exported : {reinterpret_cast<void*>(&::dlsym), reinterpret_cast<void*>(&::cuGetProcAddress),
                           reinterpret_cast<void*>(&::cuGetProcAddress_v2), reinterpret_cast<void*>(&::cuLaunchKernel),
                           reinterpret_cast<void*>(&::cuLaunchKernel_ptsz), reinterpret_cast<void*>(&::cuLaunchKernelEx),
                           reinterpret_cast<void*>(&::cuLaunchKernelEx_ptsz),
                           reinterpret_cast<void*>(&::cuLaunchCooperativeKernel),
                           reinterpret_cast<void*>(&::cuLaunchCooperativeKernel_ptsz)})
        if (exported == p) return true;
    return false;
}

// The wrapper of the driver's function `real` (per-thread default stream or not), or `real` when
// every slot is taken.
void* wrapped(std::array<Slot, kSlots>& slots, const std::array<void*, kSlots>& hooks, void* real, bool per_thread,
              const char* symbol) {
    if (ours(real)) return real;
    std::lock_guard lock(slots_mutex);
    for (std::size_t i = 0; i < kSlots; ++i)
        if (slots[i].real.load() == real && slots[i].per_thread.load() == per_thread) return hooks[i];
    for (std::size_t i = 0; i < kSlots; ++i)
        if (!slots[i].real.load()) {
            slots[i].per_thread.store(per_thread);
            slots[i].real.store(real);
            return hooks[i];
        }
    static bool told = false;
    if (!told) {
        told = true;
        std::fprintf(stderr, "gi-intercept: the driver handed out more than %zu versions of %s; launches through the "
                     "others are not seen\n", kSlots, symbol);
    }
    return real;
}

// The launch entry point `symbol` names (as cuGetProcAddress or dlsym is asked for it), wrapped.
void* wrapped_launch(std::string_view symbol, void* real, bool per_thread) {
    constexpr std::string_view ptsz = "_ptsz";
    if (symbol.size() > ptsz.size() && symbol.substr(symbol.size() - ptsz.size()) == ptsz) {
        symbol.remove_suffix(ptsz.size());
        per_thread = true;
    }
    const std::string name(symbol);
    if (symbol == "cuLaunchKernel") return wrapped(kernel_slots, kernel_hooks, real, per_thread, name.c_str());
    if (symbol == "cuLaunchKernelEx") return wrapped(ex_slots, ex_hooks, real, per_thread, name.c_str());
    if (symbol == "cuLaunchCooperativeKernel")
        return wrapped(cooperative_slots, cooperative_hooks, real, per_thread, name.c_str());
    return real;
}

CUresult CUDAAPI get_proc_address_v2_hook(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                          CUdriverProcAddressQueryResult* status);
CUresult CUDAAPI get_proc_address_v1_hook(const char* symbol, void** pfn, int version, cuuint64_t flags);

// What the driver handed out for `symbol`, exchanged for this library's wrapper where it has one.
void* exchanged(const char* symbol, void* found, int version, cuuint64_t flags) {
    if (!symbol || !found || ours(found) || !intercept_enabled()) return found;
    const std::string_view name(symbol);
    if (name == "cuGetProcAddress") {
        // Asked through itself: version 2's signature from CUDA 12.0 on.
        if (version >= 12000) {
            remember_get_proc_address(reinterpret_cast<GetProcAddressV2>(found), nullptr);
            return reinterpret_cast<void*>(&get_proc_address_v2_hook);
        }
        remember_get_proc_address(nullptr, reinterpret_cast<GetProcAddressV1>(found));
        return reinterpret_cast<void*>(&get_proc_address_v1_hook);
    }
    return wrapped_launch(name, found, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0);
}

CUresult CUDAAPI get_proc_address_v2_hook(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                          CUdriverProcAddressQueryResult* status) {
    const GetProcAddressV2 real = real_get_proc_address_v2();
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult result = real(symbol, pfn, version, flags, status);
    if (result == CUDA_SUCCESS && pfn) *pfn = exchanged(symbol, *pfn, version, flags);
    return result;
}

CUresult CUDAAPI get_proc_address_v1_hook(const char* symbol, void** pfn, int version, cuuint64_t flags) {
    const GetProcAddressV1 real = real_get_proc_address_v1();
    if (!real) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult result = real(symbol, pfn, version, flags);
    if (result == CUDA_SUCCESS && pfn) *pfn = exchanged(symbol, *pfn, version, flags);
    return result;
}

// libcuda's own export of `symbol`, looked up once found.
template <typename Fn>
Fn libcuda_export(std::atomic<void*>& cache, const char* symbol) {
    void* p = cache.load();
    if (!p) {
        p = libcuda_symbol(symbol);
        cache.store(p);
    }
    return reinterpret_cast<Fn>(p);
}

}  // namespace
}  // namespace gi::intercept

using namespace gi::intercept;

void* dlsym(void* handle, const char* symbol) {
    void* found = caller_dlsym(handle, symbol, __builtin_return_address(0));
    if (!found || !symbol || symbol[0] != 'c' || symbol[1] != 'u' || ours(found) || !intercept_enabled()) return found;
    const std::string_view name(symbol);
    if (name == "cuGetProcAddress_v2") {
        remember_get_proc_address(reinterpret_cast<GetProcAddressV2>(found), nullptr);
        return reinterpret_cast<void*>(&get_proc_address_v2_hook);
    }
    if (name == "cuGetProcAddress") {  // the export keeps version 1's signature
        remember_get_proc_address(nullptr, reinterpret_cast<GetProcAddressV1>(found));
        return reinterpret_cast<void*>(&get_proc_address_v1_hook);
    }
    return wrapped_launch(name, found, false);
}

CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
    return get_proc_address_v1_hook(symbol, pfn, cudaVersion, flags);
}

CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult* symbolStatus) {
    return get_proc_address_v2_hook(symbol, pfn, cudaVersion, flags, symbolStatus);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ, unsigned blockDimX,
                                unsigned blockDimY, unsigned blockDimZ, unsigned sharedMemBytes, CUstream hStream,
                                void** kernelParams, void** extra) {
    static std::atomic<void*> real{nullptr};
    return launch_kernel(libcuda_export<LaunchKernelFn>(real, "cuLaunchKernel"), false, f, gridDimX, gridDimY, gridDimZ,
                         blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                                     unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ, unsigned sharedMemBytes,
                                     CUstream hStream, void** kernelParams, void** extra) {
    static std::atomic<void*> real{nullptr};
    return launch_kernel(libcuda_export<LaunchKernelFn>(real, "cuLaunchKernel_ptsz"), true, f, gridDimX, gridDimY,
                         gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
    static std::atomic<void*> real{nullptr};
    return launch_kernel_ex(libcuda_export<LaunchKernelExFn>(real, "cuLaunchKernelEx"), false, config, f, kernelParams,
                            extra);
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
    static std::atomic<void*> real{nullptr};
    return launch_kernel_ex(libcuda_export<LaunchKernelExFn>(real, "cuLaunchKernelEx_ptsz"), true, config, f,
                            kernelParams, extra);
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                                           unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ,
                                           unsigned sharedMemBytes, CUstream hStream, void** kernelParams) {
    static std::atomic<void*> real{nullptr};
    return launch_cooperative(libcuda_export<LaunchCooperativeFn>(real, "cuLaunchCooperativeKernel"), false, f, gridDimX,
                              gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams);
}

CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gridDimX, unsigned gridDimY, unsigned gridDimZ,
                                                unsigned blockDimX, unsigned blockDimY, unsigned blockDimZ,
                                                unsigned sharedMemBytes, CUstream hStream, void** kernelParams) {
    static std::atomic<void*> real{nullptr};
    return launch_cooperative(libcuda_export<LaunchCooperativeFn>(real, "cuLaunchCooperativeKernel_ptsz"), true, f,
                              gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
                              kernelParams);
}
