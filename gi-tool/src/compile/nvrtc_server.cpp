#include "compile/nvrtc_server.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <iostream>

#include "compile/nvrtc_messages.hpp"
#include "util/error.hpp"

namespace gi {

int serve_nvrtc_compiles() {
    // The protocol on a private descriptor; anything else that writes to fd 1 goes to /dev/null.
    const int out_fd = ::dup(1);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (out_fd < 0 || null_fd < 0 || ::dup2(null_fd, 1) < 0) {
        std::perror("gi-tool --nvrtc-server: setting up descriptors");
        return 1;
    }
    worker::MessageReader reader;
    try {
        while (std::optional<worker::Message> request = worker::read_message(0, reader)) {
            if (request->type == "quit") return 0;
            if (request->type != "compile") {
                worker::write_message(out_fd, {"error", {{"message", "unknown request '" + request->type + "'"}}, {}});
                continue;
            }
            worker::Message reply;
            try {
                reply = to_message(compile_with_nvrtc(compile_request_from(*request)));
            } catch (const Error& e) {
                reply = {"refused", {{"message", e.what()}}, {}};
            }
            worker::write_message(out_fd, reply);
        }
    } catch (const std::exception& e) {
        std::cerr << "gi-tool --nvrtc-server: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace gi
