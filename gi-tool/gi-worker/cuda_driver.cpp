#include "cuda_driver.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "worker/kernel_name.hpp"

namespace gi::worker {

std::string cuda_error_name(CUresult code) {
    const char* name = nullptr;
    if (cuGetErrorName(code, &name) != CUDA_SUCCESS || !name) return "CUDA error " + std::to_string(code);
    return name;
}

std::string cuda_error_text(CUresult code) {
    const char* text = nullptr;
    if (cuGetErrorString(code, &text) != CUDA_SUCCESS || !text) return "unknown CUDA error";
    return text;
}

void check_cuda(CUresult code, const std::string& what) {
    if (code != CUDA_SUCCESS) throw CudaError(code, what + ": " + cuda_error_name(code) + " (" + cuda_error_text(code) + ")");
}

bool is_sticky(CUresult code) {
    switch (code) {
        case CUDA_ERROR_ILLEGAL_ADDRESS:
        case CUDA_ERROR_LAUNCH_FAILED:
        case CUDA_ERROR_ASSERT:
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        case CUDA_ERROR_MISALIGNED_ADDRESS:
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        case CUDA_ERROR_INVALID_PC:
        case CUDA_ERROR_LAUNCH_TIMEOUT:
        case CUDA_ERROR_ECC_UNCORRECTABLE:
        case CUDA_ERROR_CONTEXT_IS_DESTROYED:
            return true;
        default: return false;
    }
}

namespace {
std::string demangle(const char* name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : std::string(name);
}
}  // namespace

CUfunction find_kernel(CUmodule module, const std::string& name) {
    unsigned count = 0;
    check_cuda(cuModuleGetFunctionCount(&count, module), "counting the module's kernels");
    std::vector<CUfunction> functions(count);
    if (count > 0) check_cuda(cuModuleEnumerateFunctions(functions.data(), count, module), "listing the module's kernels");
    std::vector<CUfunction> matches;
    std::string listing;
    for (CUfunction f : functions) {
        const char* mangled = nullptr;
        check_cuda(cuFuncGetName(&mangled, f), "reading a kernel's name");
        const std::string full = demangle(mangled);
        listing += (listing.empty() ? "" : ", ") + full;
        if (kernel_name_matches(name, mangled, full)) matches.push_back(f);
    }
    if (matches.size() == 1) return matches[0];
    if (matches.empty())
        throw Error("the compiled module has no kernel named '" + name + "' (it has: " +
                    (listing.empty() ? "none" : listing) + "); check --function and the name given to gi::launch");
    throw Error("the compiled module has " + std::to_string(matches.size()) + " kernels named '" + name +
                "' (" + listing + "); name one by its mangled name");
}

}  // namespace gi::worker
