#pragma once
// A recorded kernel launch (seeds 000 Fig. 8.3, 001 3.7): the geometry, every argument, and for
// each device allocation an argument points into, its bytes before the launch (the input) and
// after it (the original kernel's output: the oracle). Replay gives a variant fresh copies of the
// inputs and compares what it writes with the oracle or with the original run on the same GPU.
//
// Buffers, not arguments, own the bytes: two pointer arguments into the same allocation share one
// buffer, so replay reproduces the aliasing. Everything else the kernel reads is a buffer too:
// - a module variable (__constant__, __device__) of the kernel's file is a buffer with a
//   `variable` name; replay copies it into each variant's own module before the launch (and back
//   after it, when the kernel may write it);
// - a device pointer stored inside a by-value struct argument or inside a buffer (an array of
//   pointers, structs holding pointers) is an EmbeddedPointer: replay writes the address of its
//   target in the replay's own copy there, and reads it back as the recorded address, so outputs
//   compare as recorded.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "testcase/element_type.hpp"

namespace gi {

struct Dim3 {
    std::uint32_t x = 1, y = 1, z = 1;
    friend bool operator==(const Dim3&, const Dim3&) = default;
};
std::string to_string(const Dim3& d);  // "20,240,1"

using Bytes = std::vector<unsigned char>;

// A device address stored at byte `at` (8 bytes) of an argument's or a buffer's bytes: it pointed
// `offset` bytes into buffer `buffer` when recorded.
struct EmbeddedPointer {
    std::uint64_t at = 0;
    int buffer = -1;
    std::uint64_t offset = 0;
    friend bool operator==(const EmbeddedPointer&, const EmbeddedPointer&) = default;
};

struct CaseBuffer {
    std::uint64_t size = 0;                 // bytes of the whole allocation
    ElementType element = ElementType::Bytes;  // of the first pointer argument into it
    bool read_only = true;                  // every argument pointing into it is a pointer to const
    bool changed = false;                   // the original launch changed its bytes
    Bytes before;                           // input bytes
    Bytes after;                            // output bytes; equal to `before` when !changed
    std::string before_sha256;
    std::string after_sha256;
    std::string variable;                   // a module variable of the kernel's file: its compiled name
    std::vector<EmbeddedPointer> pointers;  // device addresses held in its bytes
};

struct CaseArg {
    enum class Kind { Scalar, Pointer, Null };
    Kind kind = Kind::Scalar;
    std::uint32_t size = 0;                 // bytes of the kernel parameter
    ElementType element = ElementType::Bytes;  // scalar's type, or the pointee's
    Bytes value;                            // Scalar: the parameter's bytes
    int buffer = -1;                        // Pointer: index into TestCase::buffers
    std::uint64_t offset = 0;               // Pointer: where in the buffer it points (bytes)
    bool is_const = false;                  // Pointer: to const
    std::vector<EmbeddedPointer> pointers;  // Scalar: device addresses held in its bytes (a struct)
};

struct TestCase {
    std::string kernel;                     // the name given to gi::launch
    std::string symbol;                     // the launched kernel's compiled (mangled) name: which
                                            // instantiation of a template kernel ran; "" when not recorded
    Dim3 grid, block;
    std::uint32_t shared_bytes = 0;         // dynamic shared memory
    std::vector<CaseArg> args;              // in the kernel's parameter order
    std::vector<CaseBuffer> buffers;
    std::string device;                     // provenance: GPU name and compute capability ("90")
    int compute_capability = 0;
    std::string path;                       // the folder it was read from (messages), "" if in memory
};

std::string_view to_string(CaseArg::Kind kind);  // "scalar", "pointer", "null"


// Scalar value as a signed integer when its element type is an integer of 1..8 bytes (geometry
// expressions use it), otherwise nullopt.
std::optional<long long> scalar_as_integer(const CaseArg& arg);

}  // namespace gi
