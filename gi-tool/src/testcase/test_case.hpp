#pragma once
// A recorded kernel launch (seeds 000 Fig. 8.3, 001 3.7): the geometry, every argument, and for
// each device allocation an argument points into, its bytes before the launch (the input) and
// after it (the original kernel's output: the oracle). Replay gives a variant fresh copies of the
// inputs and compares what it writes with the oracle or with the original run on the same GPU.
//
// Buffers, not arguments, own the bytes: two pointer arguments into the same allocation share one
// buffer, so replay reproduces the aliasing.
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

struct CaseBuffer {
    std::uint64_t size = 0;                 // bytes of the whole allocation
    ElementType element = ElementType::Bytes;  // of the first pointer argument into it
    bool read_only = true;                  // every argument pointing into it is a pointer to const
    bool changed = false;                   // the original launch changed its bytes
    Bytes before;                           // input bytes
    Bytes after;                            // output bytes; equal to `before` when !changed
    std::string before_sha256;
    std::string after_sha256;
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
};

struct TestCase {
    std::string kernel;                     // the name given to gi::launch
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
