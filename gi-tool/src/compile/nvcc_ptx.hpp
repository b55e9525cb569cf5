#pragma once
// A variant's PTX from nvcc's own front end (gcc's preprocessor, cudafe++, cicc: `nvcc -ptx`), the
// PTX that PTX edits index (issue 46). The user's build compiles the file with nvcc, and the build's
// PTX launcher edits the PTX nvcc makes there; NVRTC's front end makes other code of every kernel
// with a __shared__ array (64-bit shared addresses against cicc's 32-bit: 8 of the 14 corpus
// kernels, bench/results/2026-11-29-cpu-ptx-front-ends.md), so edits made on NVRTC's PTX could
// not reach the build there. nvcc's front end costs 7-10 times NVRTC's (0.27-0.47 s a file).
#include <string>

#include "compile/nvrtc_compiler.hpp"

namespace gi {

// `nvcc -ptx` of `request.source` for the virtual architecture of `request.arch` (sm_90 ->
// compute_90), with its options, include folders and in-memory headers (found first). Where
// `request.name` is a file holding that very source, nvcc compiles it in place, so its quoted
// #includes resolve as in the build; otherwise a copy, with that file's folder searched last. Each of `request.name_expressions` is instantiated by a host-side reference, as a
// launch in the program would. The result's `ptx` (compiler "nvcc"); a compile error is a result
// (ok=false, log: nvcc's messages). Throws gi::Error only when nvcc cannot be run. `nvcc`: the
// program (empty: find_nvcc()).
DeviceCompileResult compile_ptx_with_nvcc(const DeviceCompileRequest& request, const std::string& nvcc = "");

}  // namespace gi
