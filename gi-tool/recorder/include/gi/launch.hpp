#pragma once
// gi::launch: launch a CUDA kernel through gi-optimize's recorder.
//
//     gi::launch(stereoKernel, "stereoKernel", grid, block, 0, stream, left, right, out, width, height);
//
// is `stereoKernel<<<grid, block, 0, stream>>>(left, right, out, width, height)` and returns what
// cudaLaunchKernel returns. With the environment variable GI_RECORD_DIR unset (the normal case) that
// is all it does; the variable is read once per process.
//
// With GI_RECORD_DIR set, each distinct launch (up to GI_RECORD_LIMIT per kernel name, default 16,
// counting cases already in the folder) is recorded as a test case for gi-tool: the geometry, every
// scalar argument's bytes, and for every pointer argument the whole device allocation it points
// into, before and after the launch (the "after" bytes are the oracle variants must reproduce).
// Device pointers held inside by-value struct arguments, inside arrays of pointers (T**) and inside
// arrays of structs are found and their allocations captured too, so replay can relocate them;
// the module variables named in GI_RECORD_GLOBALS (`gi-tool record` sets it to the kernel file's
// __constant__ and __device__ variables) are captured from the kernel's own module. The launch
// then synchronises the device, so recording is for recorder runs, not production runs.
// An argument the recorder cannot capture (a host pointer, pinned host memory, a texture or
// surface object, an array of pointers holding something other than device addresses) throws
// gi::RecordError naming the argument, before anything is written.
//
// When `gi-tool record` runs the program with its launch intercept preloaded (its default), it sets
// GI_RECORD_BY=intercept: the intercept then records every launch of the registered kernel,
// gi::launch's included, and gi::launch only launches, so no launch is recorded twice.
//
// Distinct: a launch whose inputs (geometry, arguments, the bytes of everything it reads) equal
// those of a case already recorded, by this process or in the folder (or in GI_RECORD_KNOWN_DIR,
// where `gi-tool record` names its --out), runs without being recorded, so a benchmark's timing
// loop on the same data is recorded once rather than sixteen times. At exit the program
// prints one line for each kernel that had such launches, saying how many were skipped. While
// under the limit every launch's buffers are copied to the host to be compared, so a program
// repeating one launch many times records more slowly than it runs.
//
// Link the target with GIOptimize::recorder (the CMake package exports it). In a project that
// includes gi-optimize with GI_OPTIMIZE off, that target defines GI_LAUNCH_RECORDING=0: gi::launch is
// then a plain launch, and a program run with GI_RECORD_DIR says once that it records nothing.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#ifndef GI_LAUNCH_RECORDING
#define GI_LAUNCH_RECORDING 1
#endif
#if !GI_LAUNCH_RECORDING
#include <cstdio>
#endif

#include "launch_args.hpp"

namespace gi {

namespace launch_detail {

template <typename T>
constexpr Element integer_element() {
    if constexpr (sizeof(T) == 1) return std::is_signed_v<T> ? Element::I8 : Element::U8;
    else if constexpr (sizeof(T) == 2) return std::is_signed_v<T> ? Element::I16 : Element::U16;
    else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? Element::I32 : Element::U32;
    else if constexpr (sizeof(T) == 8) return std::is_signed_v<T> ? Element::I64 : Element::U64;
    else return Element::Bytes;
}

// The element type a buffer of T holds; CUDA's vector types count as their components.
template <typename T>
constexpr Element element_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) return Element::U8;
    else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
        if constexpr (std::is_enum_v<U>) return integer_element<std::underlying_type_t<U>>();
        else return integer_element<U>();
    }
    else if constexpr (std::is_same_v<U, float>) return Element::F32;
    else if constexpr (std::is_same_v<U, double>) return Element::F64;
    else if constexpr (std::is_same_v<U, float1> || std::is_same_v<U, float2> || std::is_same_v<U, float3> ||
                       std::is_same_v<U, float4>) return Element::F32;
    else if constexpr (std::is_same_v<U, double1> || std::is_same_v<U, double2> || std::is_same_v<U, double3>)
        return Element::F64;
    else if constexpr (std::is_same_v<U, int1> || std::is_same_v<U, int2> || std::is_same_v<U, int3> ||
                       std::is_same_v<U, int4>) return Element::I32;
    else if constexpr (std::is_same_v<U, uint1> || std::is_same_v<U, uint2> || std::is_same_v<U, uint3> ||
                       std::is_same_v<U, uint4>) return Element::U32;
    else if constexpr (std::is_same_v<U, uchar1> || std::is_same_v<U, uchar2> || std::is_same_v<U, uchar3> ||
                       std::is_same_v<U, uchar4>) return Element::U8;
    else if constexpr (std::is_same_v<U, short2> || std::is_same_v<U, short4>) return Element::I16;
    else if constexpr (std::is_same_v<U, ushort2> || std::is_same_v<U, ushort4>) return Element::U16;
    else return Element::Bytes;
}

// What a pointer argument's buffer of T holds: pointers (T is a pointer type), maybe pointers (T is a
// struct; not CUDA's vector types, which are numbers; it may be incomplete here), or numbers.
template <typename T>
constexpr Holds pointee_holds() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_pointer_v<U>) return Holds::Pointers;
    else if constexpr (std::is_class_v<U> && element_of<U>() == Element::Bytes) return Holds::MaybePointers;
    else return Holds::Data;
}

// What a by-value argument of type T holds: a struct big enough may hold pointers.
template <typename T>
constexpr Holds value_holds() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_class_v<U> && element_of<U>() == Element::Bytes && sizeof(U) >= sizeof(void*))
        return Holds::MaybePointers;
    else return Holds::Data;
}

template <typename Param>
ArgInfo describe(const Param& value) {
    ArgInfo info;
    info.value = &value;
    info.size = sizeof(Param);
    if constexpr (std::is_pointer_v<Param>) {
        using Pointee = std::remove_pointer_t<Param>;
        info.is_pointer = true;
        info.pointee_const = std::is_const_v<Pointee>;
        if constexpr (!std::is_void_v<Pointee>) {
            info.element = element_of<Pointee>();
            info.holds = pointee_holds<Pointee>();
        }
    } else {
        info.element = element_of<Param>();
        info.maybe_object = std::is_same_v<std::remove_cv_t<Param>, unsigned long long>;
        info.holds = value_holds<Param>();
    }
    return info;
}

// Whether gi::launch records, from GI_RECORD_DIR and GI_RECORD_BY: not when `gi-tool record` preloads
// its launch intercept (GI_RECORD_BY=intercept), which records every launch, gi::launch's too.
inline bool records_itself(const char* dir, const char* by) noexcept {
    return dir != nullptr && *dir != '\0' && !(by != nullptr && std::strcmp(by, "intercept") == 0);
}

inline bool recording_enabled() noexcept {
    static const bool enabled = records_itself(std::getenv("GI_RECORD_DIR"), std::getenv("GI_RECORD_BY"));
    return enabled;
}

// The launch itself is done through the caller's CUDA runtime (the one its kernels are registered
// with), so the recorder library never needs a runtime of its own.
using Launcher = cudaError_t (*)(const void* kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes,
                                 cudaStream_t stream);
inline cudaError_t launch_with_runtime(const void* kernel, dim3 grid, dim3 block, void** args,
                                       std::size_t shared_bytes, cudaStream_t stream) {
    return cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);
}

// In the recorder library (record_launch.cpp).
cudaError_t record_launch(Launcher launcher, const void* kernel, const char* name, dim3 grid, dim3 block,
                          std::size_t shared_bytes, cudaStream_t stream, void** args, const ArgInfo* infos,
                          std::size_t count);

}  // namespace launch_detail

template <typename... Params, typename... Args>
cudaError_t launch(void (*kernel)(Params...), const char* name, dim3 grid, dim3 block, std::size_t shared_bytes,
                   cudaStream_t stream, Args&&... args) {
    static_assert(sizeof...(Params) == sizeof...(Args),
                  "gi::launch: pass exactly one argument per kernel parameter");
    // Converted to the parameter types first, as the <<<>>> syntax does.
    std::tuple<std::remove_cv_t<Params>...> values(std::forward<Args>(args)...);
    return std::apply(
        [&](auto&... value) {
            void* pointers[sizeof...(Params) + 1] = {static_cast<void*>(&value)...};
            const void* function = reinterpret_cast<const void*>(kernel);
#if GI_LAUNCH_RECORDING
            if (!launch_detail::recording_enabled())
                return cudaLaunchKernel(function, grid, block, pointers, shared_bytes, stream);
            const launch_detail::ArgInfo infos[sizeof...(Params) + 1] = {launch_detail::describe(value)...};
            return launch_detail::record_launch(&launch_detail::launch_with_runtime, function, name, grid, block,
                                                shared_bytes, stream, pointers, infos, sizeof...(Params));
#else
            static const bool told = [] {
                if (launch_detail::recording_enabled())
                    std::fprintf(stderr, "gi::launch: GI_RECORD_DIR is set, but this program was built with GI_OPTIMIZE "
                                         "off, so nothing is recorded\n");
                return true;
            }();
            (void)told;
            (void)name;
            return cudaLaunchKernel(function, grid, block, pointers, shared_bytes, stream);
#endif
        },
        values);
}

}  // namespace gi
