#pragma once
// Thin helpers over the CUDA driver API for gi-worker: errors as exceptions carrying the CUresult,
// and which errors leave the context unusable (so the worker must be replaced).
#include <cuda.h>

#include <string>

#include "util/error.hpp"

namespace gi::worker {

class CudaError : public Error {
public:
    CudaError(CUresult code, const std::string& what) : Error(what), code_(code) {}
    CUresult code() const { return code_; }

private:
    CUresult code_;
};

std::string cuda_error_name(CUresult code);    // "CUDA_ERROR_ILLEGAL_ADDRESS"
std::string cuda_error_text(CUresult code);    // "an illegal memory access was encountered"

// Throws CudaError "<what>: NAME (text)" unless code is CUDA_SUCCESS.
void check_cuda(CUresult code, const std::string& what);

// True for errors after which the context cannot be used again (illegal address, trap, assert,
// launch failure...): the worker reports the variant and exits so the parent starts a fresh one.
bool is_sticky(CUresult code);

// The kernel named `name` in a loaded module, matched by worker/kernel_name.hpp's rule (the
// guarded copy of a paired build only as "gi_guarded::" + name); throws gi::Error listing the module's kernels when there is no
// such kernel or more than one.
CUfunction find_kernel(CUmodule module, const std::string& name);

}  // namespace gi::worker
