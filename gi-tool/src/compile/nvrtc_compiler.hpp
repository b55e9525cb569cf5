#pragma once
// Stage 5, compile (in process): variant source -> cubin for one GPU architecture with NVRTC, the
// fast path of the cuda evaluator (no process start, no host compilation). Thread-safe: each call
// has its own NVRTC program, so a batch compiles on every core at once.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gi {

struct DeviceCompileRequest {
    std::string source;
    std::string name = "variant.cu";         // shown in compiler messages
    std::vector<std::string> options;         // nvcc spelling, as Flag genes write them
    std::string arch = "sm_90";               // a real architecture: the result is a cubin
    std::vector<std::string> include_dirs;    // the kernel's own folder, for its #includes
    // Template instantiations to emit ("MatrixMulCUDA<32>"): NVRTC compiles no host code, so the
    // launches that would instantiate a template kernel in the program are not there.
    std::vector<std::string> name_expressions;
    // In-memory headers by the name the source includes them with; they win over include folders.
    std::vector<std::pair<std::string, std::string>> headers;
    // PTX for `arch`'s virtual architecture instead of a cubin (result.ptx), for PTX edits.
    bool ptx = false;
};

struct DeviceCompileResult {
    bool ok = false;
    std::string cubin;                // the module image (ok only)
    std::string ptx;                  // the PTX, when the request asked for it instead
    std::string log;                  // the compiler's messages
    std::string compiler;             // "nvrtc" or "nvcc"
    double ms = 0;                    // wall time of this compile (0 for a cache hit)
    bool cached = false;
};

// The toolkit's include folders NVRTC needs for <cuda_runtime.h>, <cuda_fp16.h> and libcu++
// (<cuda/std/...>): the ones gi-tool was built with when they exist, else those beside the nvcc on
// PATH. Empty when neither is found.
std::vector<std::string> toolkit_include_dirs();

// Whether this build has NVRTC (the CUDA toolkit was found when gi-tool was built).
bool nvrtc_available();

// nvcc-style options in NVRTC's spelling ("-use_fast_math" -> "--use_fast_math", "-Xptxas -dlcm=ca"
// -> "--ptxas-options=-dlcm=ca"); std::nullopt when one has no NVRTC equivalent, so the caller
// falls back to nvcc for that variant.
std::optional<std::vector<std::string>> nvrtc_options_for(const std::vector<std::string>& options);

// Compiles with NVRTC. A compile error is a result (ok=false, log); throws gi::Error only when
// NVRTC itself is unavailable or refuses the options.
DeviceCompileResult compile_with_nvrtc(const DeviceCompileRequest& request);

}  // namespace gi
