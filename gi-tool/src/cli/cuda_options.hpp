#pragma once
// The cuda evaluator's command-line options, declared once (name, default, range, help, and the
// field of CudaEvaluatorOptions each sets) for `gi-tool evolve --evaluator cuda` and
// `gi-tool cuda-bench`.
#include <string>

#include "cli/command_line.hpp"
#include "cuda/cuda_evaluator.hpp"

namespace gi::cli {

// --arch, --nvcc and --jobs: read by the compile-only evaluator too, with its own defaults.
struct CompilerChoice {
    std::string arch;  // "" = the evaluator's default (the GPU's for cuda, sm_90 for compile-only)
    std::string nvcc;  // "" = PATH, then /usr/local/cuda/bin
    int jobs = 0;      // 0 = the evaluator's default
};
void add_compiler_options(CommandLine& app, CompilerChoice& compiler, const std::string& group);

// The options bound to a CudaEvaluatorOptions, and the switches that turn its defaults off.
struct CudaCommandLine {
    CudaEvaluatorOptions options;
    bool no_loop_guard = false;
    bool no_barrier_guard = false;
    bool no_shared_guard = false;
    bool separate_guard_build = false;
    bool run_binary_duplicates = false;
    bool gpu_turn_per_run = false;
    bool original_once = false;
    bool no_sanitize_prewarm = false;
    bool gate_guard_pages = false;  // the old switch for what is now the default, still accepted
    bool no_gate_guard_pages = false;
    std::string worker_launcher;  // --worker-launcher's text, split into words by cuda_evaluator_options
    std::string compile_launcher;  // --compile-launcher's, likewise
    bool compile_on_workers = false;
};
void add_cuda_options(CommandLine& app, CudaCommandLine& cuda, const std::string& group);

// The options after parsing: the switches applied, the compiler choice taken in, and the launch's
// block the registration's --block-size unless --block was given (so a tuned block size is
// launched as tuned, not as recorded). UsageError for --cases missing and options that contradict.
CudaEvaluatorOptions cuda_evaluator_options(const CommandLine& app, const CudaCommandLine& cuda, const CompilerChoice& compiler,
                                            const std::string& registered_block_size);

}  // namespace gi::cli
