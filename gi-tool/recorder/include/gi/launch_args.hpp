#pragma once
// What the recorder knows of one kernel argument: its bytes and what its C++ type says they are
// (a pointer or not, to const or not, the element type of the buffer it points into, whether that
// buffer or the argument itself may hold device pointers). <gi/launch.hpp> fills it from the
// kernel's parameter types at compile time; gi-tool's launch intercept fills it from the launched
// kernel's demangled name (record/parameter_type.hpp). No CUDA header: the recording core is built
// into both.
#include <cstddef>
#include <stdexcept>

namespace gi {

// The recorder could not capture a launch; the message names the kernel and the argument.
class RecordError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace gi

namespace gi::launch_detail {

// Same order and meaning as gi::ElementType in gi-tool (testcase/element_type.hpp).
enum class Element : unsigned char { Bytes, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64 };

// What the bytes an argument reaches may hold besides data.
enum class Holds : unsigned char {
    Data,            // numbers only
    Pointers,        // only device pointers (T** and its const forms): every non-null one must resolve
    MaybePointers,   // a struct: some 8-byte words may be device pointers
};

struct ArgInfo {
    const void* value = nullptr;   // the parameter's bytes, already converted to the parameter type
    std::size_t size = 0;
    bool is_pointer = false;
    bool pointee_const = false;
    bool maybe_object = false;     // unsigned long long: could be a texture or surface object
    Element element = Element::Bytes;
    Holds holds = Holds::Data;     // scalar: its own bytes; pointer: the buffer it points into
};

}  // namespace gi::launch_detail
