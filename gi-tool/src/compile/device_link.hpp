#pragma once
// Stage 5, compile: a relocatable cubin made loadable. A target built with separable compilation
// (CUDA_SEPARABLE_COMPILATION, -rdc=true) compiles its kernel file to relocatable device code,
// which the driver cannot load by itself (issue 40: every replay of the original ended in
// CUDA_ERROR_INVALID_IMAGE). The variant is still compiled with -rdc=true, so what is timed is the
// code the program links, and then linked alone, as the program's device link would link it with
// nothing else: with nvJitLink in process where gi-tool was built with it, else with `nvcc -dlink`.
// The device runtime library (dynamic parallelism) is added only when the file needs it. A file
// whose device code calls into another translation unit cannot be linked alone, and says so.
#include <string>

namespace gi {

// Whether `image` is an ELF image of relocatable device code (ET_REL), which must be linked first.
bool is_relocatable_cubin(const std::string& image);

struct DeviceLinkResult {
    bool ok = false;
    std::string cubin;    // the linked, loadable image (ok only)
    std::string log;      // why it failed: the undefined symbols, or the linker's words
    std::string linker;   // "nvJitLink" or "nvcc -dlink"
};

// Links `relocatable` (a cubin for `arch`, "sm_90") alone into a loadable cubin. `nvcc` is used when
// this gi-tool has no nvJitLink ("" = find it on PATH). Never throws for a failed link.
DeviceLinkResult link_device_code(const std::string& relocatable, const std::string& arch, const std::string& nvcc = "");

// The same when `image` is relocatable, else `image` itself: what every compile of gi-tool hands
// to the GPU. On a failed link `image` is replaced by nothing and `log` says why.
DeviceLinkResult loadable_device_code(const std::string& image, const std::string& arch, const std::string& nvcc = "");

}  // namespace gi
