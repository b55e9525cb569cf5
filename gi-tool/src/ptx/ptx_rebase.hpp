#pragma once
// Stage ptx: a genome's PTX edits carried from the PTX they were made on (NVRTC's for the variant's
// source, in the search) to the same kernel in another compile's PTX (nvcc's, when the build ships
// them, cuda/nvcc_ptx_edits.hpp). Pure. An edit names an instruction by its index in the module
// it was made on; what it means is safe to carry only when the kernel there and here is the same
// list of instructions over the same registers, so that is checked first, never assumed: nvcc's
// front end sees the whole file, other options or other headers, and may make other code.
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "ptx/ptx_module.hpp"

namespace gi {

// `edits` (PTX edits; others are left out) made on `from`, as indexes into `to`. Each must lie in
// the kernel entry `function` (its identifier, or its mangled name). Throws gi::Error when the
// kernel is missing from either module, when an edit lies outside it, or when the kernel differs
// between them: the message names the function, the first differing instruction (its position in
// the kernel and the line in each module) and both texts.
std::vector<Edit> rebase_ptx_edits(const PtxModule& from, const PtxModule& to, const std::vector<Edit>& edits,
                                   const std::string& function);

}  // namespace gi
