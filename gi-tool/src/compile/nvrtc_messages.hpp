#pragma once
// NVRTC compiles in processes of their own (compile/nvrtc_server.hpp): the request and its reply as
// worker-protocol messages (worker/protocol.hpp), declared once for both ends.
//   compile  -> compiled (ok, log, ms; the cubin as payload)
//            -> refused (message: NVRTC is missing or refused the options; the caller uses nvcc)
#include "compile/nvrtc_compiler.hpp"
#include "worker/protocol.hpp"

namespace gi {

worker::Message to_message(const DeviceCompileRequest& request);
DeviceCompileRequest compile_request_from(const worker::Message& message);  // gi::Error when malformed

worker::Message to_message(const DeviceCompileResult& result);
DeviceCompileResult compile_result_from(const worker::Message& message);  // gi::Error when malformed

}  // namespace gi
