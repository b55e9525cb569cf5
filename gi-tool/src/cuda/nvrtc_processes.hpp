#pragma once
// The cuda evaluator's NVRTC compiles in long-lived `gi-tool --nvrtc-server` processes
// (compile/nvrtc_server.hpp says why), one per compile thread at most, started as needed and kept.
// A process that crashes or runs past the timeout on a variant is killed and judges that variant
// a compile error; the next compile starts another. Thread-safe.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compile/nvrtc_compiler.hpp"
#include "cuda/part_stats.hpp"
#include "worker/worker_process.hpp"

namespace gi {


class NvrtcProcesses {
public:
    // `executable`: gi-tool (run with --nvrtc-server); `timeout`: the most one compile may take.
    NvrtcProcesses(std::string executable, std::chrono::milliseconds timeout);
    ~NvrtcProcesses();

    // As compile_with_nvrtc: a compile error is a result; throws gi::Error when NVRTC refuses the
    // options (the caller uses nvcc) or no process can be started (the caller compiles in process).
    DeviceCompileResult compile(const DeviceCompileRequest& request);

    NvrtcProcessStats stats() const;

private:
    std::unique_ptr<worker::WorkerProcess> acquire();
    void release(std::unique_ptr<worker::WorkerProcess> process);

    std::string executable_;
    std::chrono::milliseconds timeout_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<worker::WorkerProcess>> idle_;
    NvrtcProcessStats stats_;
};

// This program's path when it is gi-tool (which serves --nvrtc-server), else "": a test binary or
// a library user then compiles in process.
std::string nvrtc_server_program();

}  // namespace gi
