#pragma once
// Builds the Evaluator that `gi-tool evolve --evaluator NAME` asks for. Each kind lists the
// command-line options it reads, so the CLI accepts exactly those and --help describes them; adding
// an evaluator is one entry in evaluator_factory.cpp's table.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "grammar/grammar.hpp"

namespace gi {

// The evaluator options given on the command line: option name ("--arch") -> every value given,
// and the switches present.
struct EvaluatorOptions {
    std::map<std::string, std::vector<std::string>> values;
    std::set<std::string> switches;
    std::string kernel_path;  // the kernel file, for evaluators that need its folder
    std::string function;     // the first --function as given: "MatrixMulCUDA<32>" names one instantiation
    // How the kernel file compiles besides its own folder (-I, -D, --compile-option): every
    // evaluator that compiles passes them on.
    std::vector<std::string> include_dirs;
    std::vector<std::string> compile_options;
    // The registration's --block-size (cuda_evaluator_options: the launch's block unless --block).
    std::string block_size;

    std::optional<std::string> last(const std::string& option) const;
};

struct EvaluatorKind {
    std::string name;                         // "fake", "compile-only", "cuda"
    std::string summary;                      // one line for --help
    std::string options_help;                 // lines describing its options (may be empty)
    std::vector<std::string> value_options;   // options it reads
    std::vector<std::string> switch_options;
};

const std::vector<EvaluatorKind>& evaluator_kinds();

// Every option any evaluator reads (for the CLI's option list).
std::vector<std::string> evaluator_value_options();
std::vector<std::string> evaluator_switch_options();

// Throws gi::UsageError for an unknown name (listing the known ones), an option given to an
// evaluator that does not read it, or a malformed value.
std::unique_ptr<Evaluator> make_evaluator(const std::string& name, const Grammar& grammar,
                                          const EvaluatorOptions& options);

}  // namespace gi
