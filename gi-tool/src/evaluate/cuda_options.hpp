#pragma once
// The command-line options of the cuda evaluator, shared by `gi-tool evolve --evaluator cuda`
// (through the evaluator factory) and `gi-tool cuda-bench`.
#include <map>
#include <string>
#include <vector>

#include "evaluate/cuda_evaluator.hpp"

namespace gi {

std::vector<std::string> cuda_value_options();  // "--cases", "--held-out", ...
std::string cuda_options_help();

// From option name -> every value given. Throws gi::UsageError naming the option for a missing
// --cases or a malformed value.
CudaEvaluatorOptions cuda_evaluator_options(const std::map<std::string, std::vector<std::string>>& values,
                                            const std::string& kernel_path);

}  // namespace gi
