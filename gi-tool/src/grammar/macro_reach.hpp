#pragma once
// Which CUDA functions of a file a macro reaches. A registration that tunes a #define changes every
// function whose code names it, directly or through another macro; when the file has several
// registered kernels, such a change may only be used where it reaches nothing its evolution did
// not check (variant/compose.hpp).
#include <string>
#include <vector>

#include "source/source_file.hpp"

namespace gi {

// The __global__ and __device__ functions defined in `source` whose code (tokens, and the
// directives inside their bodies) names one of `macros` or a macro whose definition names one
// (transitively), in file order, each name once. Throws gi::Error for a file the grammar stage
// cannot read (unbalanced brackets, unterminated comments).
std::vector<std::string> functions_reached_by_macros(const SourceFile& source, const std::vector<std::string>& macros);

// Where code the host compiler sees names one of `macros` (directly or through a macro naming
// one): anything outside the bodies of __global__ functions and __device__ functions that are not
// also __host__ (host functions, module-scope declarations, #if lines outside those bodies; the
// #defines themselves are not uses). A file is compiled once for the host whatever architectures
// it targets, so a macro used there must have one value on every architecture (cache apply).
struct MacroUse {
    std::string macro;  // the name as written there
    int line = 0;
};
std::vector<MacroUse> host_uses_of_macros(const SourceFile& source, const std::vector<std::string>& macros);

}  // namespace gi
