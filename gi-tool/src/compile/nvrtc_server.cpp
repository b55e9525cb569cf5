#include "compile/nvrtc_server.hpp"

#include <exception>
#include <iostream>

#include "compile/nvrtc_messages.hpp"
#include "util/error.hpp"

namespace gi {

int serve_nvrtc_compiles() {
    worker::MessageReader reader;
    try {
        const int out_fd = worker::protocol_stdout();
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
