#pragma once
// A corpus kernel's driver (kernels/<k>/<k>_driver.cu) built by nvcc with a variant of its kernel
// file in place of the original, as a consumer's build compiles it, and run: for the GPU tests of
// the transformations (issue 46), whose drivers check every output against their CPU reference.
#include <filesystem>
#include <string>
#include <vector>

#include "process/process.hpp"

namespace gi::test {

// Builds kernels/<kernel>'s driver with `kernel_file` (a variant of kernels/<kernel>/<kernel>.cu)
// into `binary`, for this machine's GPU, with -D`defines`.
ProcessResult build_corpus_driver(const std::string& kernel, const std::filesystem::path& kernel_file,
                                  const std::filesystem::path& binary, const std::vector<std::string>& defines = {});

// Runs `binary` with `args`; whether it printed PASS and exited 0 is the caller's to check.
ProcessResult run_corpus_driver(const std::filesystem::path& binary, const std::vector<std::string>& args);

}  // namespace gi::test
