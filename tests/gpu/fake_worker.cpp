// A stand-in for gi-worker, so the worker protocol, timeouts and crash handling are tested without
// a GPU: when gi_tests starts with GI_FAKE_WORKER=<mode> it behaves as a worker and exits before
// GoogleTest runs. Modes: echo, hang, crash, garbage, exit, sticky.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "worker/protocol.hpp"

namespace {

int run_fake_worker(const std::string& mode) {
    using namespace gi::worker;
    if (mode == "exit") return 3;
    MessageReader reader;
    try {
        while (auto request = read_message(0, reader)) {
            if (request->type == "quit") return 0;
            if (mode == "hang") {
                for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
            }
            if (mode == "crash") {
                std::cerr << "fake worker: crashing on a '" << request->type << "' request" << std::endl;
                std::abort();
            }
            if (mode == "garbage") {
                const char junk[] = "this is not a frame at all....";
                if (::write(1, junk, sizeof junk) < 0) return 1;
                continue;
            }
            Message reply{"echo", request->fields, request->payload};
            reply.fields["request-type"] = request->type;
            reply.fields["payload-bytes"] = std::to_string(request->payload.size());
            if (mode == "sticky") {
                reply = Message{"result", {{"outcome", "fault"}, {"sticky", "1"}, {"detail", "illegal address"}}, {}};
                write_message(1, reply);
                return 0;
            }
            write_message(1, reply);
        }
    } catch (const std::exception& e) {
        std::cerr << "fake worker: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

const int fake_worker_exit = [] {
    const char* mode = std::getenv("GI_FAKE_WORKER");
    if (mode == nullptr) return 0;
    std::_Exit(run_fake_worker(mode));
}();

}  // namespace
