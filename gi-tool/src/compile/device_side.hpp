#pragma once
// Stage 5, compile: the device side of a kernel file, so NVRTC (which compiles no host code and has
// no C/C++ library headers) can take files written the usual way: host functions and main() in the
// file, <cstdio>, <vector>, <cuda_runtime.h> at the top. nvcc needs ~0.6 s a variant where NVRTC
// needs a fraction of that, and on such files every variant used to go to nvcc.
//
// Host code cannot be called from device code, so setting it aside cannot change what a kernel
// does: a kernel that used any of it fails to compile, and the caller then uses nvcc.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gi {

struct DeviceSide {
    std::string source;          // same length of lines as the input: messages keep their line numbers
    int host_definitions = 0;    // host functions and host variables blanked
};

// The file with every top-level host function definition, host function declaration and non-const
// host variable blanked (spaces; newlines and preprocessor lines kept). Kept: __global__,
// __device__, __constant__ and __managed__ declarations (also through a macro #defined to one of
// those words), types, templates of types, typedefs, using, const and constexpr variables, and the
// contents of namespaces and extern "C" blocks, walked the same way.
// std::nullopt when the file's brackets do not balance, so nothing safe can be cut out.
std::optional<DeviceSide> device_side_of(const std::string& source, const std::string& name);

// In-memory headers handed to NVRTC for the C and C++ library and host-only CUDA headers it cannot
// open: empty for host-only ones (<vector>, <cuda.h>), the device-usable parts for the others
// (<cmath>'s M_PI and std:: maths through libcu++, <cstdint>'s types as the host ABI spells them so
// kernel names mangle as nvcc's do, <climits>, <cfloat>, std::min/max of <algorithm>).
const std::vector<std::pair<std::string, std::string>>& host_header_stand_ins();

}  // namespace gi
