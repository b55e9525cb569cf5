#pragma once
// `--evaluator NAME` and each evaluator kind's options, in a group per kind, for `gi-tool evolve`.
// An option of another kind than the one chosen is a usage error ("--cases does not apply to
// --evaluator fake"), except --grid and --tolerance, which describe the kernel's registration.
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/cuda_options.hpp"
#include "cli/evaluator_factory.hpp"

namespace gi::cli {

struct EvaluatorCommandLine {
    std::string name;                   // --evaluator
    std::vector<std::string> fake;      // --fake NAME=VALUE
    std::vector<std::string> nvcc_flags;  // compile-only's --nvcc-flag
    int compile_timeout_s = 120;
    CompilerChoice compiler;
    CudaCommandLine cuda;
};
void add_evaluator_options(CommandLine& app, EvaluatorCommandLine& evaluator);

// What every kind takes from the kernel options: its file, first function and compile settings.
EvaluatorSettings evaluator_settings_for(const KernelSettings& kernel);

// The chosen kind's settings, with the kernel's file, function and compile settings.
EvaluatorSettings evaluator_settings(const CommandLine& app, const EvaluatorCommandLine& evaluator, const KernelSettings& kernel);

}  // namespace gi::cli
