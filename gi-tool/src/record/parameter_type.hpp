#pragma once
// A kernel parameter's type as text, the way the launched kernel's demangled name spells it
// ("float const*", "unsigned int", "float4", "ns::Params") or its source does ("const float*
// __restrict__", "uint", "cudaTextureObject_t"), turned into what the recorder must know of the
// argument: the description <gi/launch.hpp> derives from the C++ type (launch_detail::describe),
// so a launch gi-tool's launch intercept records is the case gi::launch records. Pure.
//
// What text cannot tell: an enum is spelled like a struct (its arguments are recorded as bytes, a
// pointer to enums as a buffer that may hold pointers), and a typedef the source declares itself
// (`typedef float real;`) is taken for a struct. A C++ kernel's demangled name has neither problem
// for typedefs (they are resolved); the source signature is only used for extern "C" kernels.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "testcase/element_type.hpp"

namespace gi {

// What the bytes a parameter reaches may hold besides numbers (gi::launch_detail::Holds).
enum class ParameterHolds { Data, Pointers, MaybePointers };

struct ParameterType {
    bool is_pointer = false;
    bool pointee_const = false;  // a pointer to const (at its first level: `float* const*` is one)
    bool maybe_object = false;   // unsigned long long by value: may be a texture or surface object
    bool is_class = false;       // by value or pointed to: a struct, union or enum (CUDA's vector types too)
    ElementType element = ElementType::Bytes;  // a scalar's, or the pointee's
    ParameterHolds pointee_holds = ParameterHolds::Data;  // a pointer's buffer
    std::size_t size = 0;        // bytes, where the text tells (not for a struct's name: 0)
    std::size_t align = 0;
};

// `text` as a parameter type. Never fails: a name it does not know is a struct.
ParameterType parameter_type(std::string_view text);

// What a parameter of `type` holds by value when it is `size` bytes: a struct of 8 bytes or more
// (not one of CUDA's vector types of numbers) may hold device pointers.
ParameterHolds value_holds(const ParameterType& type, std::size_t size);

// The parameter types of a demangled function: "void k<float, 256u>(float*, unsigned int)" ->
// {"float*", "unsigned int"}, "f()" -> {}. nullopt when `demangled` is not a function's signature
// (the name of an extern "C" kernel, or a name that did not demangle).
std::optional<std::vector<std::string>> demangled_parameters(std::string_view demangled);

}  // namespace gi
