#pragma once
// Builds the Evaluator that `gi-tool evolve --evaluator NAME` asks for, from each kind's typed
// settings. The command line declares each kind's options (cli/evaluator_options.hpp); adding an
// evaluator is one entry in evaluator_factory.cpp's table and its options there.
#include <memory>
#include <string>
#include <vector>

#include "evaluate/compile_only_evaluator.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "cuda/multi_gpu_evaluator.hpp"
#include "evaluate/evaluator.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "grammar/grammar.hpp"

namespace gi {

// Every kind's settings; make_evaluator() uses those of the kind asked for.
struct EvaluatorSettings {
    FakeLandscapeOptions fake;
    CompileOnlyOptions compile_only;
    CudaEvaluatorOptions cuda;
    std::string kernel_path;  // the kernel file, for evaluators that need its folder
    std::string function;     // the first --function as given: "MatrixMulCUDA<32>" names one instantiation
    // How the kernel file compiles besides its own folder (-I, -D, --compile-option): every
    // evaluator that compiles passes them on.
    std::vector<std::string> include_dirs;
    std::vector<std::string> compile_options;
};

struct EvaluatorKind {
    std::string name;     // "fake", "compile-only", "cuda"
    std::string summary;  // one line for --help
};

const std::vector<EvaluatorKind>& evaluator_kinds();

// Throws gi::UsageError for a name no evaluator has, listing the known ones.
void require_evaluator_kind(const std::string& name);

// The cuda evaluator's options with the kernel's function, folder, -I and compile options added
// (what make_evaluator("cuda", ...) constructs it with; gi-tool cuda-bench constructs it itself).
CudaEvaluatorOptions cuda_options_for(const EvaluatorSettings& settings);

// Throws gi::UsageError for an unknown name (listing the known ones); the evaluator's own errors
// (a kernel that does not compile, cases that do not load) otherwise.
std::unique_ptr<Evaluator> make_evaluator(const std::string& name, const Grammar& grammar, const EvaluatorSettings& settings);

}  // namespace gi
