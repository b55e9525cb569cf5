#pragma once
// A variant with PTX edits built as the user's build compiles it (issue 46): nvcc's own compile
// trajectory (compile/nvcc_dryrun.hpp), step by step, with the PTX of one virtual architecture
// edited between the front end (cicc) and ptxas, so the object holds the edited kernel: its cubin
// for that architecture and its embedded PTX, when the command embeds any. The counterpart of the
// evaluator's PTX path (variant_builder_ptx.cpp), which edits the same front end's PTX
// (ptx_as_evaluated) and runs ptxas alone.
//
// The edits index the PTX they were made on (ptx_as_evaluated's of the variant's source); they are carried
// to nvcc's PTX only when the kernel there is the same code (ptx/ptx_rebase.hpp). Otherwise, or
// when a step fails, nothing is written where the command's -o points.
#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

#include "compile/nvrtc_compiler.hpp"
#include "genome/genome.hpp"
#include "ptx/ptx_module.hpp"

namespace gi {

// One architecture's edits: several architectures' PTX are edited in one run of the command.
struct ArchitecturePtxEdits {
    std::vector<Edit> edits;  // PTX edits, made on `base`
    PtxModule base;           // the PTX they index
    std::string function;     // the kernel they edit
    std::string arch;         // "sm_90": the PTX of compute_90 is edited
};

struct NvccPtxEdits {
    std::vector<std::string> command;  // nvcc and its arguments, as the build runs them
    std::vector<ArchitecturePtxEdits> architectures;
    std::chrono::milliseconds step_timeout{std::chrono::minutes(30)};
};

struct NvccPtxEditsOutcome {
    std::vector<std::string> edited_ptx;  // the PTX files edited (one per cicc step of the architecture)
    std::vector<std::string> skipped;     // edits that no longer applied (an earlier one deleted their instruction)
};

// The PTX of `request.source` that PTX edits index, as the cuda evaluator makes it for a variant
// (request.ptx is set here): nvcc's own front end's (compile/nvcc_ptx.hpp), the PTX the user's
// build makes, with `nvcc` (empty: find_nvcc()). Where nvcc cannot be run or fails on the file,
// NVRTC's: the whole file, or, when NVRTC cannot take the whole file (host code, C++ library
// headers), its device side with the host headers' stand-ins (compile/device_side.hpp); the build's
// launcher then ships the original wherever NVRTC's code differs from nvcc's (the result's
// `compiler` says which). A compile error is a result (ok=false, log: every compile's messages).
DeviceCompileResult ptx_as_evaluated(DeviceCompileRequest request, const std::string& nvcc = "");

// Runs the command with the edits applied. Its steps' output goes to `out` and `err` as nvcc's
// would. Throws gi::Error saying what failed: nvcc refusing the command, no PTX for the
// architecture in it, the kernel differing from the one the edits were made on, an edit that does
// not apply, a step that fails (its command and exit status; its messages went to `err`).
NvccPtxEditsOutcome compile_with_ptx_edits(const NvccPtxEdits& request, std::ostream& out, std::ostream& err);

}  // namespace gi
