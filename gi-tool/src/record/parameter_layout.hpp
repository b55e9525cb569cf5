#pragma once
// Where a launch's arguments are: each parameter's offset and size in the kernel's parameter
// buffer (as cuFuncGetParamInfo gives them, or from the types where the driver is older than CUDA
// 12.4), and the bytes of each argument, from the launch's kernelParams array or from its `extra`
// buffer (CU_LAUNCH_PARAM_BUFFER_POINTER). Pure: the launch intercept hands in what it was given.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "record/parameter_type.hpp"

namespace gi {

struct ParameterSlot {
    std::size_t offset = 0;
    std::size_t size = 0;
    friend bool operator==(const ParameterSlot&, const ParameterSlot&) = default;
};

// The layout from the types alone, each at its natural alignment; nullopt when a type does not
// tell its size (a struct passed by value).
std::optional<std::vector<ParameterSlot>> layout_from_types(const std::vector<ParameterType>& types);

// Why the types cannot describe a launch with this layout ("" when they can): another number of
// parameters, a pointer that is not 8 bytes, a number of another size.
std::string layout_problem(const std::vector<ParameterType>& types, const std::vector<ParameterSlot>& layout);

// cuda.h's markers in a launch's `extra` array.
inline constexpr std::uintptr_t kLaunchParamEnd = 0x00;
inline constexpr std::uintptr_t kLaunchParamBufferPointer = 0x01;
inline constexpr std::uintptr_t kLaunchParamBufferSize = 0x02;

// Each argument's bytes: `params[i]`, or where `layout` puts it in the `extra` array's buffer.
// Throws gi::Error when neither holds them (no parameters given, a buffer shorter than the layout).
std::vector<const void*> argument_values(const std::vector<ParameterSlot>& layout, void* const* params,
                                         void* const* extra);

}  // namespace gi
