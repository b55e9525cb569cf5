#pragma once
// Stage 5, compile (offline): one variant file -> nvcc in a child process with a deadline. Used by
// the compile-only evaluator and as the fallback for options NVRTC lacks.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace gi {

struct NvccOptions {
    std::string nvcc;                       // program to run; empty: find_nvcc()
    std::string arch = "sm_90";             // real architecture, "sm_XX" or "sm_XXa"
    bool object = false;                    // -c (host + device object) instead of -cubin (device only, faster)
    std::vector<std::string> flags;         // the user's extra nvcc words, e.g. "-std=c++17"
    std::vector<std::string> include_dirs;  // -I folders (the kernel's own folder, for its #includes)
    std::chrono::milliseconds timeout{std::chrono::minutes(2)};
};

// nvcc on PATH, else /usr/local/cuda/bin/nvcc. Throws gi::Error saying how to provide one.
std::string find_nvcc();

// Throws gi::UsageError unless `arch` reads like "sm_90" (what -cubin needs: a real architecture).
void check_nvcc_arch(const std::string& arch);

struct CompileOutcome {
    enum class Status { Ok, Failed, TimedOut } status = Status::Ok;
    std::string first_errors;  // the first error lines of nvcc's output (Failed), or why it timed out
    std::string log;           // nvcc's whole output
    double seconds = 0;
};

// The first `count` lines of a compiler log that report errors ("k.cu(12): error: ...",
// "ptxas error : ..."), or its first non-empty lines when none says "error". Occurrences of
// `scratch_path` are replaced by `shown_name` so messages do not point at deleted files.
std::string first_error_lines(const std::string& log, int count, const std::string& scratch_path = {},
                              const std::string& shown_name = {});

class NvccCompiler {
public:
    explicit NvccCompiler(NvccOptions options);  // resolves nvcc, checks arch
    const NvccOptions& options() const { return options_; }

    // The argv compiling `source` to `output` with the variant's own options last.
    std::vector<std::string> command(const std::filesystem::path& source, const std::filesystem::path& output,
                                     const std::vector<std::string>& variant_options) const;

    // Compiles; a failing or hanging compile is an outcome. Throws gi::Error only when nvcc cannot
    // be started. `shown_name` replaces the source path in error lines ("variant.cu").
    CompileOutcome compile(const std::filesystem::path& source, const std::filesystem::path& output,
                           const std::vector<std::string>& variant_options, const std::string& shown_name) const;

private:
    NvccOptions options_;
};

}  // namespace gi
