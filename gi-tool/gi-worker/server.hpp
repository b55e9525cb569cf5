#pragma once
// gi-worker's request loop body: one Server per process, made at the first request (it opens the
// GPU), holding the loaded cases (slots), the modules it retires, and the sanitizer sessions' case.
// It answers hello, load-case, unload-case, run and check-variants (worker/protocol.hpp).
#include <memory>
#include <string>

#include "gpu.hpp"
#include "worker/protocol.hpp"

namespace gi::worker {

class Server {
public:
    // Replies go to `out_fd`.
    Server(Gpu gpu, int out_fd);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Answers one request; false when the worker must exit (quit, or a sticky error).
    bool handle(const Message& m);
    // Unloads the oldest retired module; false when there was none (serve() calls it while idle).
    bool unload_one();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// An "error" reply; `fatal` tells the parent the worker exits after it.
Message error_reply(const std::string& text, bool fatal = false);

}  // namespace gi::worker
