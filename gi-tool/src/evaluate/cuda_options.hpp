#pragma once
// The command-line options of the cuda evaluator, shared by `gi-tool evolve --evaluator cuda`
// (through the evaluator factory) and `gi-tool cuda-bench`.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "evaluate/cuda_evaluator.hpp"

namespace gi {

std::vector<std::string> cuda_value_options();   // "--cases", "--held-out", ...
std::vector<std::string> cuda_switch_options();  // "--no-loop-guard"
std::string cuda_options_help();

// From option name -> every value given, and the switches present. Throws gi::UsageError naming
// the option for a missing --cases or a malformed value. `registered_block_size` (the kernel's
// --block-size) is the launch's block unless --block says otherwise, so a tuned block size is
// launched as tuned, not as recorded.
CudaEvaluatorOptions cuda_evaluator_options(const std::map<std::string, std::vector<std::string>>& values,
                                            const std::string& kernel_path, const std::set<std::string>& switches = {},
                                            const std::string& registered_block_size = "");

}  // namespace gi
