#pragma once
// Running a program with the gi::launch recorder on, shared by `gi-tool record` (the original
// program, to make test cases) and `gi-tool accept` (the program with a variant compiled in).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/kernel_args.hpp"
#include "compile/module_variables.hpp"
#include "process/process.hpp"

namespace gi::cli {

// The module variables of `kernel_path` the recorder can capture (compiled for `arch`); notes on
// standard error those it cannot (file-private names).
std::vector<ModuleVariable> capturable_variables(const std::string& kernel_path, const std::string& arch,
                                                 const CompileSettings& settings, const std::string& command);

struct RecordingRequest {
    std::vector<std::string> program;          // argv
    std::filesystem::path out;                 // where the cases go (GI_RECORD_DIR is a folder inside)
    std::string recorded_name;                 // the gi::launch name whose cases are counted
    std::vector<ModuleVariable> variables;     // GI_RECORD_GLOBALS
    long long limit = 16;                      // GI_RECORD_LIMIT: distinct cases per kernel, `out`'s counted
    double timeout_s = 1800;
};

// What `gi-tool record` and `gi-tool accept` read alike: KERNEL.cu, --function, --recorded-name,
// --out, --arch, --timeout and how the file compiles, then "-- PROGRAM [ARGS...]".
struct RecordingCommandLine {
    KernelSettings kernel;
    std::string function;
    std::string arch = "sm_90";
    std::string out;
    RecordingRequest request;
};
void add_recording_options(CommandLine& app, RecordingCommandLine& c, const std::string& function_help);

// Parses the arguments before "--" and takes the program after it; false when --help was asked
// for. `command` ("record") names the command in the error for a missing program.
bool parse_recording(CommandLine& app, RecordingCommandLine& c, const std::vector<std::string>& raw, const std::string& command);

struct RecordingResult {
    ProcessResult process;                     // output captured (and echoed)
    // The cases of `recorded_name` this run wrote, sorted: in `folder` until keep_recording moves
    // them into `out`.
    std::vector<std::filesystem::path> added;
    // The run's own recording folder inside `out` (hidden, as ".tmp-record-XXXXXX"): another
    // recorder writing into `out` meanwhile can neither take nor lose cases by this run. Removed
    // with whatever keep_recording left in it when the result goes, so a failed run leaves nothing.
    std::unique_ptr<TemporaryDirectory> folder;
    bool succeeded() const { return process.succeeded(); }
};

// Runs the program with recording on into a folder of its own, and echoes its output.
RecordingResult run_recording(const RecordingRequest& request);

// Moves the run's cases into `out` under the first free numbers, each kernel's up to `limit`
// counting the cases `out` holds by then (the rest are dropped), and points `added` at them.
void keep_recording(const RecordingRequest& request, RecordingResult& result);

// Why the run cannot be used ("" when it can): it timed out or failed (with its last output), or
// it recorded nothing of `recorded_name`. `existing` counts that name's cases `out` held before.
std::string recording_problem(const RecordingRequest& request, const RecordingResult& result, std::size_t existing);

// The last `count` lines of a program's output, for messages.
std::string last_lines(const std::string& text, std::size_t count);

}  // namespace gi::cli
