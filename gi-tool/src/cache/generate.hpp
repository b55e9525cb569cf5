#pragma once
// What `gi-tool cache apply` writes for the build: per architecture either a variant or the original
// kernel, one wrapper translation unit that the target compiles instead of the kernel file, and a
// header the host code includes to learn, at run time, which variant runs and its parameter values.
//
// Several architectures, one kernel name. Each variant defines the same __global__ function with
// the same parameter list, so they must never meet in one compilation pass. The wrapper includes
// exactly one variant per nvcc pass: the device pass for compute_NN sees `__CUDA_ARCH__ == NN0` and
// includes that architecture's variant (or the original kernel for an architecture without one);
// the host pass includes the first architecture's variant, which only supplies the launch stub
// (the signature is the same in every variant). So the fatbinary holds one `stereoKernel` per
// architecture, the host has one stub, nothing is renamed and host code needs no edits. Compiling
// variants as separate translation units instead would define the host stub several times (or force
// renaming and a dispatcher), which is why the wrapper is one file. The CUDA rule that makes this
// legal: __global__ signatures must not depend on __CUDA_ARCH__; bodies may.
#include <string>
#include <vector>

#include "cache/entry.hpp"
#include "grammar/grammar.hpp"

namespace gi {

struct ArchitectureChoice {
    int architecture = 0;
    bool use_variant = false;          // false: this architecture compiles the original kernel
    std::string variant_file;          // file name of the variant source next to the wrapper
    std::string genome;                // genome text ("" for the original)
    std::string origin;                // one line for people: the cache file and its provenance, or why original
    std::vector<ParameterValue> parameters;  // Param gene values in effect for this architecture
    // The variant's PTX edits are applied by the build's launcher (cache apply --ptx-edits), which
    // compiles the fallback wrapper, this architecture's original kernel, when it cannot apply them.
    bool ptx_edits = false;
};

// The wrapper translation unit. `original_include` is the path the original kernel is #included by
// (absolute, so its own relative #includes still resolve when the wrapper's folder is on the
// include path of the kernel's folder).
// With PTX-edited variants (ArchitectureChoice::ptx_edits), the wrapper also defines
// ptx_fallback_symbol(identifier): 0 in the wrapper, 1 in the fallback wrapper (`fallback`), so the
// header's lookups say which kernel the build compiled.
std::string wrapper_source(const std::string& kernel_name, const std::string& original_include,
                           const std::vector<ArchitectureChoice>& choices, const std::string& identifier = "",
                           bool fallback = false);

// "gi_<identifier>_ptx_fallback": the C symbol telling host code whether the build compiled the
// fallback wrapper (the PTX edits could not be applied).
std::string ptx_fallback_symbol(const std::string& identifier);

// A C/C++ identifier for the registered functions ("stereoKernel"; several joined by '_').
std::string registration_identifier(const std::vector<std::string>& functions);

// The header host code includes ("<identifier>.gi.h"): a table with one row per architecture with a
// variant plus one row for every other architecture (the original kernel), and lookups by the
// compiled architecture (exact: cudaFuncGetAttributes' ptxVersion) and by compute capability.
// A row whose variant has PTX edits is given only where the build applied them (the wrapper's
// ptx_fallback_symbol() is 0); otherwise the lookups give the original kernel's row.
std::string variants_header(const std::string& identifier, const std::string& kernel_name, const Grammar& grammar,
                            const std::vector<ArchitectureChoice>& choices);

}  // namespace gi
