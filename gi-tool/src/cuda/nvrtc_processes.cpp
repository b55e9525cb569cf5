#include "cuda/nvrtc_processes.hpp"

#include <filesystem>
#include <iostream>

#include "compile/nvrtc_messages.hpp"
#include "worker/case_messages.hpp"
#include "util/error.hpp"

namespace gi {

NvrtcProcesses::NvrtcProcesses(std::string executable, std::chrono::milliseconds timeout)
    : executable_(std::move(executable)), timeout_(timeout) {}

NvrtcProcesses::~NvrtcProcesses() {
    std::lock_guard lock(mutex_);
    for (auto& p : idle_) {
        try {
            p->send(worker::quit_message(), std::chrono::seconds(1));
        } catch (const worker::WorkerFailure&) {
        }
    }
}

std::unique_ptr<worker::WorkerProcess> NvrtcProcesses::acquire() {
    {
        std::lock_guard lock(mutex_);
        while (!idle_.empty()) {
            std::unique_ptr<worker::WorkerProcess> p = std::move(idle_.back());
            idle_.pop_back();
            if (p->running()) return p;
        }
    }
    worker::WorkerOptions options;
    options.executable = executable_;
    options.args = {"--nvrtc-server"};
    auto started = std::make_unique<worker::WorkerProcess>(std::move(options));  // gi::Error when it cannot start
    std::lock_guard lock(mutex_);
    ++stats_.started;
    return started;
}

void NvrtcProcesses::release(std::unique_ptr<worker::WorkerProcess> process) {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(process));
}

DeviceCompileResult NvrtcProcesses::compile(const DeviceCompileRequest& request) {
    std::unique_ptr<worker::WorkerProcess> process;
    try {
        process = acquire();
    } catch (const Error&) {
        // Without processes, in this one, as before they existed (one compile at a time).
        static std::once_flag said;
        std::call_once(said, [&] {
            std::cerr << "gi-tool: note: NVRTC compiles in gi-tool's own process, one at a time: '" << executable_
                      << " --nvrtc-server' could not be started\n";
        });
        return compile_with_nvrtc(request);
    }
    worker::Message reply;
    try {
        reply = process->request(to_message(request), timeout_);
    } catch (const worker::WorkerFailure& e) {
        {
            std::lock_guard lock(mutex_);
            ++stats_.lost;
        }
        // The variant's own doing (NVRTC crashed on it, or ran past the limit): its verdict.
        DeviceCompileResult r;
        r.compiler = "nvrtc";
        r.log = std::string("NVRTC's process failed on this variant: ") + e.what() + "; its log ends: " + process->log_tail(600);
        return r;
    }
    release(std::move(process));
    return compile_result_from(reply);  // throws for "refused": NVRTC refused the options
}

NvrtcProcessStats NvrtcProcesses::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

std::string nvrtc_server_program() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return !ec && self.filename() == "gi-tool" ? self.string() : "";
}

}  // namespace gi
