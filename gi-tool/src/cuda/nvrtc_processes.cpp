#include "cuda/nvrtc_processes.hpp"

#include <filesystem>
#include <iostream>

#include "compile/nvrtc_messages.hpp"
#include "compile/project_headers.hpp"
#include "process/process.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"
#include "worker/case_messages.hpp"

namespace gi {
namespace {

// A launched process's first compile may wait for its node first (a queued srun step), as a
// launched gi-worker's first answer may (cuda/case_worker.cpp).
constexpr std::chrono::seconds kLaunchedStartAllowance{600};

}  // namespace

NvrtcProcesses::NvrtcProcesses(std::string executable, std::chrono::milliseconds timeout)
    : NvrtcProcesses(NvrtcProcessOptions{std::move(executable), timeout, {}, 0, "--compile-launcher"}) {}

NvrtcProcesses::NvrtcProcesses(NvrtcProcessOptions options) : options_(std::move(options)) {}

NvrtcProcesses::~NvrtcProcesses() {
    std::lock_guard lock(mutex_);
    for (auto& s : idle_) {
        try {
            s->process->send(worker::quit_message(), std::chrono::seconds(1));
        } catch (const worker::WorkerFailure&) {
        }
    }
}

std::unique_ptr<NvrtcProcesses::Server> NvrtcProcesses::start(bool launched) const {
    worker::WorkerOptions options;
    options.executable = options_.executable;
    options.args = {"--nvrtc-server"};
    options.role = "NVRTC's compile process";
    if (launched) {
        options.launcher = options_.launcher;
        options.launcher_option = options_.launcher_option;
    }
    auto server = std::make_unique<Server>();
    server->process = std::make_unique<worker::WorkerProcess>(std::move(options));  // gi::Error when it cannot start
    return server;
}

std::unique_ptr<NvrtcProcesses::Server> NvrtcProcesses::acquire() {
    {
        std::lock_guard lock(mutex_);
        while (!idle_.empty()) {
            std::unique_ptr<Server> s = std::move(idle_.back());
            idle_.pop_back();
            if (s->process->running()) return s;
        }
    }
    std::unique_ptr<Server> started;
    try {
        started = start(!options_.launcher.empty());
    } catch (const Error& e) {
        if (options_.launcher.empty()) throw;
        throw CompileLauncherError(std::string(e.what()) + "; NVRTC's compiles were to run through it (" + options_.launcher_option +
                                   "), so the run stops");
    }
    std::lock_guard lock(mutex_);
    ++stats_.started;
    return started;
}

void NvrtcProcesses::release(std::unique_ptr<Server> server) {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(server));
}

// The variant's own doing (NVRTC crashed on it, or ran past the limit): its verdict.
DeviceCompileResult NvrtcProcesses::failed_on_variant(const worker::WorkerFailure& failure, const Server& server) {
    {
        std::lock_guard lock(mutex_);
        ++stats_.lost;
    }
    DeviceCompileResult r;
    r.compiler = "nvrtc";
    r.log = std::string("NVRTC's process failed on this variant: ") + failure.what() + "; its log ends: " + server.process->log_tail(600);
    return r;
}

DeviceCompileResult NvrtcProcesses::compile(const DeviceCompileRequest& request) {
    if (!options_.launcher.empty()) return compile_launched(request);
    std::unique_ptr<Server> server;
    try {
        server = acquire();
    } catch (const Error&) {
        // Without processes, in this one, as before they existed (one compile at a time).
        static std::once_flag said;
        std::call_once(said, [&] {
            std::cerr << "gi-tool: note: NVRTC compiles in gi-tool's own process, one at a time: '" << options_.executable
                      << " --nvrtc-server' could not be started\n";
        });
        return compile_with_nvrtc(request);
    }
    worker::Message reply;
    try {
        reply = server->process->request(to_message(request), options_.timeout);
    } catch (const worker::WorkerFailure& e) {
        return failed_on_variant(e, *server);
    }
    release(std::move(server));
    return compile_result_from(reply);  // throws for "refused": NVRTC refused the options
}

// The request as a process elsewhere gets it: no folder of this machine, the project's files it
// includes (from the kernel's folder and -I folders, outside the toolkit's, which the node has)
// among its in-memory headers, after the request's own (which win: device-side stand-ins).
DeviceCompileRequest NvrtcProcesses::remote_request(const DeviceCompileRequest& request) {
    DeviceCompileRequest remote = request;
    remote.include_dirs.clear();
    if (request.include_dirs.empty()) return remote;
    std::vector<std::string> texts{request.source}, names;
    std::string key = include_lines_text(request.source);
    for (const auto& [name, text] : request.headers) {
        texts.push_back(text);
        names.push_back(name);
        key += "\n" + name + " " + sha256_hex(text);
    }
    for (const std::string& dir : request.include_dirs) key += "\n-I" + dir;
    std::lock_guard lock(files_mutex_);
    auto found = files_by_includes_.find(key);
    if (found == files_by_includes_.end()) {
        std::vector<std::pair<std::string, std::string>> files;
        try {
            for (ProjectHeader& f :
                 included_project_files(texts, request.include_dirs.front(), request.include_dirs, toolkit_include_dirs(), names))
                files.emplace_back(f.include_name, std::move(f.device_side));
        } catch (const Error& e) {
            throw CompileLauncherError("NVRTC's compiles cannot run through the launcher '" + command_line_text(options_.launcher) +
                                       "' (" + options_.launcher_option + "): " + e.what() +
                                       ", and a process elsewhere is sent the kernel's headers by their include names alone; "
                                       "rename one, or compile here (without " + options_.launcher_option + ")");
        }
        found = files_by_includes_.emplace(key, std::move(files)).first;
    }
    remote.headers.insert(remote.headers.end(), found->second.begin(), found->second.end());
    return remote;
}

DeviceCompileResult NvrtcProcesses::compile_launched(const DeviceCompileRequest& request) {
    const DeviceCompileRequest remote = remote_request(request);
    for (int losses = 0;;) {
        std::unique_ptr<Server> server = acquire();
        worker::Message reply;
        try {
            const std::chrono::milliseconds timeout =
                server->answered ? options_.timeout : options_.timeout + std::chrono::milliseconds(kLaunchedStartAllowance);
            reply = server->process->request(to_message(remote, &server->headers_sent), timeout);
        } catch (const worker::WorkerFailure& e) {
            if (e.kind() != worker::WorkerFailure::Kind::LauncherLost) return failed_on_variant(e, *server);
            {
                std::lock_guard lock(mutex_);
                ++stats_.launcher_lost;
            }
            if (++losses > options_.launcher_retries) return judge_lost(request, e, losses);
            std::cerr << "gi-tool: note: " << e.what() << "; starting another and compiling again\n";
            continue;
        }
        server->answered = true;
        if (reply.type == "error") {
            server->process->kill();
            throw CompileLauncherError("NVRTC's compile process started through the launcher '" +
                                       command_line_text(options_.launcher) + "' did not take a compile request: " +
                                       reply.get("message") + " (is the gi-tool there the same as this one?)");
        }
        release(std::move(server));
        return compile_result_from(reply);  // throws for "refused": NVRTC refused the options
    }
}

// One compile lost on `losses` launched processes in a row: a lost node and a variant that kills
// NVRTC look alike through a launcher, so the compile runs once in a process here. Killed here too,
// it is the variant's compile error; answered here, the launcher is what fails, and the run stops.
DeviceCompileResult NvrtcProcesses::judge_lost(const DeviceCompileRequest& request, const worker::WorkerFailure& failure,
                                               int losses) {
    const std::string launcher = command_line_text(options_.launcher);
    std::cerr << "gi-tool: note: " << failure.what() << "; that is " << losses
              << " NVRTC processes in a row lost through the launcher on one compile: it runs once here to tell a broken "
                 "launcher from a variant that kills NVRTC\n";
    std::unique_ptr<Server> here;
    try {
        here = start(false);
    } catch (const Error& e) {
        throw CompileLauncherError(std::string(failure.what()) + "; that is " + std::to_string(losses) +
                                   " NVRTC processes in a row lost through the launcher '" + launcher +
                                   "' on one compile, and none could be started here to check it (" + e.what() + "), so the run stops");
    }
    {
        std::lock_guard lock(mutex_);
        ++stats_.started;
    }
    try {
        here->process->request(to_message(request), options_.timeout);
    } catch (const worker::WorkerFailure& e) {
        DeviceCompileResult r = failed_on_variant(e, *here);
        r.log = "NVRTC's process was lost " + std::to_string(losses) + " times in a row through the launcher on this variant (" +
                excerpt(failure.what(), 300) + "), and here too: " + r.log;
        return r;
    }
    throw CompileLauncherError(std::string(failure.what()) + "; that is " + std::to_string(losses) +
                               " NVRTC processes in a row lost through the launcher '" + launcher +
                               "' on one compile, which a process here compiled, so the run stops. Check that the launcher "
                               "can start '" + options_.executable + "' where it runs (by hand: the launcher, then '" +
                               options_.executable + " --version'), or run without " + options_.launcher_option);
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
