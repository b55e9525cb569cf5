#pragma once
// The project's own kernels (kernels/*/registration.txt), for tests that compile them as the cuda
// evaluator would: the loop guard's and the paired build's.
#include <filesystem>
#include <string>
#include <vector>

namespace gi::test {

struct KernelFile {
    std::filesystem::path path;
    std::string function;
};

// Every registered kernel: its file and function, from the registration files.
std::vector<KernelFile> registered_kernels();

// The registered kernels the loop guard's tests apply to: files with a loop to guard (the gate
// corpus's stencils have none) whose function is not a template (NVRTC compiles a template only
// for the instantiations the evaluator names, from the recorded cases).
std::vector<KernelFile> kernels_with_loops();

std::string read_all(const std::filesystem::path& path);

// The PTX of the first .entry whose name contains `function` (up to the next .entry); "" if none.
std::string entry_ptx(const std::string& ptx, const std::string& function);

// Parameters under which the kernel's loops are compiled (none needed for most; hydro's only
// loops sit in #if regions that are off by default).
std::vector<std::string> options_with_live_loops(const KernelFile& k);

// `text` (a rewritten copy of k's file, saved in `dir` under k's file name) compiled to PTX for
// sm_90 by `nvcc`, with k's folder for its includes and options_with_live_loops(k). Throws
// gi::Error with nvcc's output when it fails.
std::string kernel_ptx(const std::string& nvcc, const KernelFile& k, const std::string& text, const std::filesystem::path& dir);

}  // namespace gi::test
