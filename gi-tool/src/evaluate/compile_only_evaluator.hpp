#pragma once
// The compile-only evaluator: does each variant compile with nvcc for one architecture? Works on a
// machine without a GPU, so searches and mutation studies can run anywhere; it measures no time and
// no error, so a search driven by it only learns what compiles.
#include <map>
#include <mutex>
#include <string>

#include "compile/nvcc_compiler.hpp"
#include "evaluate/evaluator.hpp"
#include "process/process.hpp"

namespace gi {

struct CompileOnlyOptions {
    NvccOptions nvcc;
    int jobs = 2;  // compilers running at once
};

class CompileOnlyEvaluator : public Evaluator {
public:
    explicit CompileOnlyEvaluator(CompileOnlyOptions options);  // throws gi::Error when nvcc is missing

    // One pseudo case (compiling needs no inputs); no timings.
    EvaluatorTraits traits() const override { return {"compile-only", 1, false, true}; }

    // Ok, CompileError (detail: the first error lines) or Timeout per variant; timings stay invalid.
    // Variants with equal keys are compiled once, also across calls.
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override;

    const NvccCompiler& compiler() const { return compiler_; }

private:
    EvalResult compile_one(const Variant& variant, std::size_t serial);

    CompileOnlyOptions options_;
    NvccCompiler compiler_;
    TemporaryDirectory scratch_;
    std::mutex mutex_;
    std::map<std::string, EvalResult> known_;  // by variant key
};

// The folder holding the kernel file, for -I: variants are compiled from a scratch folder, so the
// kernel's own #include "..." files must be found through it.
std::string kernel_include_dir(const std::string& kernel_path);

// Compiles `original` (the empty genome's variant). When it fails no variant can compile and the
// cause is the set-up (include folders, flags, architecture), so this throws gi::Error with nvcc's
// first errors and the command to reproduce them.
void require_original_compiles(CompileOnlyEvaluator& evaluator, const Variant& original,
                               const std::string& kernel_path);

}  // namespace gi
