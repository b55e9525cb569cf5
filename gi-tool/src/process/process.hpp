#pragma once
// Child processes with a deadline: compilers and other untrusted programs run here, never in the
// tool's own process. The child gets its own process group so a timeout kills everything it
// started (nvcc's cicc/ptxas, a script's sleep), and its output is captured up to a limit so a
// child that prints without end cannot exhaust memory. Safe to call from several threads at once.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "util/signal_cleanup.hpp"

namespace gi {

struct ProcessOptions {
    std::chrono::milliseconds timeout{std::chrono::minutes(5)};
    std::filesystem::path working_directory;  // empty: the caller's
    std::size_t max_output_bytes = 1 << 20;   // per stream; the rest is read and dropped
    // Variables set for the child alone, on top of (or replacing) the caller's environment. Set
    // here rather than through env(1), which would take a program path holding '=' for one more
    // assignment.
    std::vector<std::pair<std::string, std::string>> environment;
};

struct ProcessResult {
    bool timed_out = false;   // killed (with its process group) at the deadline
    int exit_code = -1;       // when it exited normally
    int signal = 0;           // the signal that ended it, 0 when it exited normally
    std::string out;          // captured standard output (at most max_output_bytes)
    std::string err;          // captured standard error (at most max_output_bytes)
    bool truncated = false;   // some output was dropped
    double seconds = 0;       // wall time from start to exit or kill
    bool succeeded() const { return !timed_out && signal == 0 && exit_code == 0; }
};

// Runs argv[0] (a path, or a name looked up on PATH) with the remaining arguments, standard input
// from /dev/null. Throws gi::Error naming the program when it cannot be started at all; a program
// that starts and fails is a result, not an exception.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// A fresh private directory (mode 0700, an unpredictable name "<prefix>-XXXXXX") under `parent`,
// the system's temporary folder by default, for a child's input and output files; removed with
// everything in it when the object goes, or when SIGINT, SIGTERM or SIGHUP ends the process
// (util/signal_cleanup.hpp).
class TemporaryDirectory {
public:
    // Throws gi::Error when it cannot.
    explicit TemporaryDirectory(const std::string& prefix, const std::filesystem::path& parent = {});
    ~TemporaryDirectory();
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
    std::unique_ptr<RemovedOnFatalSignal> on_signal_;  // destroyed after the folder is removed
};

// "nvcc -arch=sm_90 'a b.cu'": argv as a person would paste it into a shell, for messages.
std::string command_line_text(const std::vector<std::string>& argv);

}  // namespace gi
