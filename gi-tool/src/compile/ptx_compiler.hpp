#pragma once
// Stage 5, compile: PTX -> cubin by ptxas alone (issue 46), for variants with PTX edits: their
// source's PTX is compiled once, each edited PTX costs only the assembler, no front end. ptxas
// runs in a child process with a deadline, since edited PTX is untrusted input to it.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "compile/nvrtc_compiler.hpp"

namespace gi {

// ptxas beside the nvcc find_nvcc() finds (`nvcc` names one, when not empty). Throws gi::Error
// saying how to provide one.
std::string find_ptxas(const std::string& nvcc = {});

// "sm_90" -> "compute_90" ("sm_90a" -> "compute_90a"): the virtual architecture whose PTX ptxas
// assembles for `arch`.
std::string virtual_architecture(const std::string& arch);

// The part of a variant's nvcc options that acts on ptxas ("-Xptxas -dlcm=ca" -> "-dlcm=ca",
// "-maxrregcount=32" -> "--maxrregcount=32"); the rest acted on the front end, whose PTX this is.
std::vector<std::string> ptxas_options_for(const std::vector<std::string>& nvcc_options);

// Assembles `ptx` for `arch` (a real architecture) with `ptxas` (find_ptxas() when empty). A
// failing or hanging ptxas is a result (ok=false, log says why); throws gi::Error only when ptxas
// cannot be started.
DeviceCompileResult compile_ptx(const std::string& ptx, const std::string& arch, const std::vector<std::string>& options,
                                const std::string& ptxas = {},
                                std::chrono::milliseconds timeout = std::chrono::minutes(2));

}  // namespace gi
