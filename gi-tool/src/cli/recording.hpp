#pragma once
// Running a program with recording on, shared by `gi-tool record` (the original program, to make
// test cases) and `gi-tool accept` (the program with a variant compiled in). By default the
// program runs with gi-tool's launch intercept preloaded (libgi-intercept.so, gi-tool/recorder/
// intercept/), which records launches of the kernel however the program makes them, without the
// program being edited or relinked; `--record-with launch` leaves recording to gi::launch in the
// program, as before.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
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

// Who records the launches: the launch intercept gi-tool preloads, or gi::launch in the program.
enum class RecordWith { Intercept, Launch };

struct RecordingRequest {
    std::vector<std::string> program;          // argv
    std::filesystem::path out;                 // where the cases go (GI_RECORD_DIR is a folder inside)
    std::string recorded_name;                 // the name whose cases are counted: gi::launch's, or
                                               // the kernel the intercept records (GI_RECORD_FUNCTION)
    std::vector<ModuleVariable> variables;     // GI_RECORD_GLOBALS
    long long limit = 16;                      // GI_RECORD_LIMIT: distinct cases per kernel, `out`'s counted
    double timeout_s = 1800;
    RecordWith with = RecordWith::Intercept;
    // The kernel's parameter types as its source writes them, for the intercept: a kernel whose
    // compiled name carries none (extern "C") is described from them. nullopt: not read.
    std::optional<std::vector<std::string>> signature;
    std::string intercept_library;             // libgi-intercept.so to preload ("" with RecordWith::Launch)
};

// libgi-intercept.so beside gi-tool (its build folder), in ../lib (an installed gi-tool) or in
// ../gi-tool (gi-tool's tests); "" when there is none.
std::string find_intercept_library();

// The variables the program runs with (besides the caller's environment): the recorder's, and for
// the intercept its own and LD_PRELOAD (the library ahead of `preloaded`, the caller's LD_PRELOAD).
// `folder`: the run's recording folder (GI_RECORD_DIR).
std::vector<std::pair<std::string, std::string>> recording_environment(const RecordingRequest& request,
                                                                       const std::filesystem::path& folder,
                                                                       const std::string& preloaded);

// The parameter types of `function` as `kernel_path` writes them; nullopt (with a note on standard
// error) when the file cannot be read so.
std::optional<std::vector<std::string>> source_signature(const std::string& kernel_path, const std::string& function,
                                                         const std::string& command);

// What `gi-tool record` and `gi-tool accept` read alike: KERNEL.cu, --function, --recorded-name,
// --out, --arch, --timeout and how the file compiles, then "-- PROGRAM [ARGS...]".
struct RecordingCommandLine {
    KernelSettings kernel;
    std::string function;
    std::string arch = "sm_90";
    std::string out;
    std::string record_with = "intercept";
    RecordingRequest request;
};
void add_recording_options(CommandLine& app, RecordingCommandLine& c, const std::string& function_help);

// Parses the arguments before "--" and takes the program after it; false when --help was asked
// for. `command` ("record") names the command in the error for a missing program. With the
// intercept, finds its library (an Error when there is none) and reads the kernel's signature.
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
    // What the launch intercept left in `folder`: the kernels the program launched, and the
    // launches it could not record (record/intercept_settings.hpp).
    std::vector<std::string> launched;
    std::vector<std::string> intercept_errors;
    bool succeeded() const { return process.succeeded(); }
};

// Runs the program with recording on into a folder of its own, and echoes its output.
RecordingResult run_recording(const RecordingRequest& request);

// Moves the run's cases into `out` under the first free numbers, each kernel's up to `limit`
// counting the cases `out` holds by then (the rest are dropped), and points `added` at them.
void keep_recording(const RecordingRequest& request, RecordingResult& result);

// Why the run cannot be used ("" when it can): it timed out or failed (with its last output), the
// intercept could not record a launch, or it recorded nothing of `recorded_name` (with the kernels
// the intercept saw launched). `existing` counts that name's cases `out` held before.
std::string recording_problem(const RecordingRequest& request, const RecordingResult& result, std::size_t existing);

// The last `count` lines of a program's output, for messages.
std::string last_lines(const std::string& text, std::size_t count);

}  // namespace gi::cli
