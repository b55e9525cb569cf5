#pragma once
// The cuda evaluator's NVRTC compiles in long-lived `gi-tool --nvrtc-server` processes
// (compile/nvrtc_server.hpp says why), one per compile thread at most, started as needed and kept.
// A process that crashes or runs past the timeout on a variant is killed and judges that variant
// a compile error; the next compile starts another. Thread-safe.
//
// With a compile launcher (`--compile-launcher "srun -N1 -n1 --quiet"`, worker/launcher.hpp) the
// processes run where it puts them, when the master's CPUs are the limit: a request then names no
// file of this machine (the project's headers travel whole, each once per process, by sha256), and
// a process lost with its launcher (its node, its connection) judges nothing: the compile runs
// again on another, at most `launcher_retries` times in a row; then the same compile runs once in
// a process here, to tell a broken launcher (it answers here: the run stops, naming the launcher)
// from a variant that kills NVRTC (it dies here too: a compile error, as without a launcher).
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compile/nvrtc_compiler.hpp"
#include "cuda/part_stats.hpp"
#include "util/error.hpp"
#include "worker/worker_process.hpp"

namespace gi {

// The compile launcher cannot be used (it cannot start gi-tool, keeps losing its processes, or a
// request cannot be made without this machine's files): the run stops, where any other gi::Error of
// a compile would send the variant to nvcc.
class CompileLauncherError : public Error {
public:
    using Error::Error;
};

struct NvrtcProcessOptions {
    std::string executable;                 // gi-tool (run with --nvrtc-server), the same path where the launcher runs it
    std::chrono::milliseconds timeout{300000};  // the most one compile may take
    std::vector<std::string> launcher;      // a command prefix starting each process elsewhere; empty: here
    int launcher_retries = 3;               // processes lost with it in a row on one compile before the check here
    std::string launcher_option = "--compile-launcher";  // where the launcher came from, for messages
};

class NvrtcProcesses {
public:
    // `executable`: gi-tool (run with --nvrtc-server); `timeout`: the most one compile may take.
    NvrtcProcesses(std::string executable, std::chrono::milliseconds timeout);
    explicit NvrtcProcesses(NvrtcProcessOptions options);
    ~NvrtcProcesses();

    // As compile_with_nvrtc: a compile error is a result; throws gi::Error when NVRTC refuses the
    // options (the caller uses nvcc) or no process can be started here (the caller compiles in
    // process); CompileLauncherError when the launcher cannot be used.
    DeviceCompileResult compile(const DeviceCompileRequest& request);

    NvrtcProcessStats stats() const;

private:
    struct Server {
        std::unique_ptr<worker::WorkerProcess> process;
        std::set<std::string> headers_sent;  // sha256s of the headers it has (through a launcher)
        bool answered = false;               // it has answered a request (a launched one's first waits for its node)
    };
    std::unique_ptr<Server> acquire();
    std::unique_ptr<Server> start(bool launched) const;
    void release(std::unique_ptr<Server> server);
    DeviceCompileRequest remote_request(const DeviceCompileRequest& request);
    DeviceCompileResult compile_launched(const DeviceCompileRequest& request);
    DeviceCompileResult judge_lost(const DeviceCompileRequest& request, const worker::WorkerFailure& failure, int losses);
    DeviceCompileResult failed_on_variant(const worker::WorkerFailure& failure, const Server& server);

    NvrtcProcessOptions options_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<Server>> idle_;
    NvrtcProcessStats stats_;
    // Through a launcher: the project files a source's #include lines (and the request's headers
    // and folders) lead to, by those lines: read once, not for every variant.
    std::mutex files_mutex_;
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> files_by_includes_;
};

// This program's path when it is gi-tool (which serves --nvrtc-server), else "": a test binary or
// a library user then compiles in process.
std::string nvrtc_server_program();

}  // namespace gi
