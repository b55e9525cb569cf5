#include "compile/nvrtc_server.hpp"

#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "compile/nvrtc_messages.hpp"
#include "util/error.hpp"

namespace gi {

int serve_nvrtc_compiles() {
    worker::MessageReader reader;
    std::map<std::string, std::string> headers;  // by sha256: what a master elsewhere sends once
    try {
        const int out_fd = worker::protocol_stdout();
        while (std::optional<worker::Message> request = worker::read_message(0, reader)) {
            if (request->type == "quit") return 0;
            if (request->type != "compile") {
                worker::write_message(out_fd, {"error", {{"message", "unknown request '" + request->type + "'"}}, {}});
                continue;
            }
            DeviceCompileRequest compile;
            try {
                compile = compile_request_from(*request, &headers);
            } catch (const Error& e) {
                // Not NVRTC's refusal (which sends the variant to nvcc): the request itself is wrong.
                worker::write_message(out_fd, {"error", {{"message", e.what()}}, {}});
                continue;
            }
            worker::Message reply;
            try {
                reply = to_message(compile_with_nvrtc(compile));
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
